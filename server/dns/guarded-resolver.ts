/**
 * The resolver every part of the node uses (startNode wraps the system's, or the one a test
 * gives, in this): TXT answers are cached, identical lookups in flight are asked once, and
 * every query that does go out passes the node-wide gate (query-gate.ts).
 *
 * - A TXT answer with records is kept `positiveTtlMs`, "no such record" `negativeTtlMs`, a
 *   failure (timeout, SERVFAIL) `failureTtlMs`; at most `cacheEntries` names, the oldest
 *   dropped first. The gate's own refusals are not DNS answers and are never kept.
 * - Address lookups are not cached (a connection asks once, and the answer's addresses are
 *   checked again on the socket), but are joined and gated the same way.
 * - `onQuery` (LookupOptions) is told only of a query this call sends: a cached answer or a
 *   joined lookup costs the caller nothing.
 */
import { isIP } from 'node:net';
import type { Clock } from '../clock.ts';
import { DnsRefusal } from './errors.ts';
import type { DnsLimits } from './limits.ts';
import { QueryGate } from './query-gate.ts';
import type { DnsResolver, LookupOptions, ResolvedAddress } from './resolver.ts';

type Outcome = { ok: true; records: string[][] } | { ok: false; error: unknown };

interface Entry {
  outcome: Outcome;
  expiresAt: number;
}

export interface GuardedResolver extends DnsResolver {
  /** The node-wide gate, for diagnostics and tests. */
  readonly gate: QueryGate;
}

export function guardedResolver(base: DnsResolver, limits: DnsLimits, clock: Clock): GuardedResolver {
  const gate = new QueryGate(limits, clock);
  const cache = new Map<string, Entry>();
  const txtInFlight = new Map<string, Promise<string[][]>>();
  const lookupsInFlight = new Map<string, Promise<ResolvedAddress[]>>();
  const now = (): number => clock.now().getTime();

  const cached = (key: string): Outcome | null => {
    const entry = cache.get(key);
    if (entry === undefined) return null;
    if (entry.expiresAt > now()) return entry.outcome;
    cache.delete(key);
    return null;
  };

  const remember = (key: string, outcome: Outcome): void => {
    if (!outcome.ok && outcome.error instanceof DnsRefusal) return;
    const ttl = !outcome.ok ? limits.failureTtlMs : outcome.records.length > 0 ? limits.positiveTtlMs : limits.negativeTtlMs;
    if (ttl <= 0) return;
    cache.delete(key);
    cache.set(key, { outcome, expiresAt: now() + ttl });
    // A Map iterates in insertion order: the first key is the oldest entry.
    while (cache.size > limits.cacheEntries) cache.delete(cache.keys().next().value!);
  };

  return {
    gate,
    resolveTxt(name: string, options?: LookupOptions): Promise<string[][]> {
      const key = name.toLowerCase();
      const known = options?.fresh ? null : cached(key);
      if (known !== null) return known.ok ? Promise.resolve(known.records) : Promise.reject(known.error);
      const joined = txtInFlight.get(key);
      if (joined !== undefined) return joined;
      try {
        options?.onQuery?.(name);
      } catch (error) {
        return Promise.reject(error);
      }
      const asked = gate
        .run(name, () => base.resolveTxt(name))
        .then(
          (records) => {
            remember(key, { ok: true, records });
            return records;
          },
          (error: unknown) => {
            remember(key, { ok: false, error });
            throw error;
          },
        );
      const settled = asked.finally(() => txtInFlight.delete(key));
      txtInFlight.set(key, settled);
      return settled;
    },
    lookup(hostname: string, options?: LookupOptions): Promise<ResolvedAddress[]> {
      // An address is its own answer: no query, nothing to gate.
      if (isIP(hostname) !== 0) return base.lookup(hostname);
      const key = hostname.toLowerCase();
      const joined = lookupsInFlight.get(key);
      if (joined !== undefined) return joined;
      try {
        options?.onQuery?.(hostname);
      } catch (error) {
        return Promise.reject(error);
      }
      const settled = gate.run(hostname, () => base.lookup(hostname)).finally(() => lookupsInFlight.delete(key));
      lookupsInFlight.set(key, settled);
      return settled;
    },
  };
}
