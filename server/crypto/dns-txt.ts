/**
 * DNS TXT namespace authority records (DESIGN.md §5;
 * docs/adr/0002-did-svc-identity-log-and-namespace-records.md).
 *
 * Ours: `_svcid.<domain>` TXT `svcid=v1; controller=<did:key>; node=<origin>;`. Upstream's
 * `_awid` / `awid=` / `registry=` differ only in names, so the names are a profile and one parser
 * serves both. No network here: callers pass the TXT rdata a resolver returned.
 */
import { isIP } from 'node:net';
import { isDidKey } from './did-key.ts';
import { namespaceDomain } from '../../contract/core-rules.ts';

export interface DnsTxtProfile {
  /** The owner-name label in front of the domain. */
  label: string;
  /** The record's leading `tag=v1` key. */
  tag: string;
  /** The key that names where the namespace is served. */
  originKey: string;
}

export const SVC_DNS: DnsTxtProfile = { label: '_svcid', tag: 'svcid', originKey: 'node' };
export const UPSTREAM_DNS: DnsTxtProfile = { label: '_awid', tag: 'awid', originKey: 'registry' };

export interface OriginPolicy {
  /** Accept http:// origins; only for development setups. */
  allowHttp?: boolean;
}

export type DnsRecordResult = { ok: true; controllerDid: string; origin: string | null } | { ok: false; reason: 'absent' | 'invalid'; error: string };

/**
 * A namespace domain as stored (lower-cased, no trailing dot), or null when it is not one. The rule
 * and its words are the contract's (contract/core-rules.ts namespaceDomainError), which the UI's
 * forms and the request schemas use too.
 */
export const normalizeDomain = (domain: string): string | null => (typeof domain === 'string' ? namespaceDomain(domain) : null);

export function dnsRecordName(domain: string, profile: DnsTxtProfile = SVC_DNS): string {
  const name = normalizeDomain(domain);
  if (name === null) throw new RangeError(`invalid domain: ${domain}`);
  return `${profile.label}.${name}`;
}

/** Why `value` is not an acceptable origin for a record, or null when it is. */
export function originError(value: string, policy: OriginPolicy = {}): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'origin is not a URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) return 'origin must use https';
  // Comparing with the rebuilt origin rejects paths, queries, userinfo, default ports and case.
  if (url.username || url.password || `${url.protocol}//${url.host}` !== value) return 'origin is not canonical';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) return 'origin must not be an IP literal';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'origin must not be localhost';
  return null;
}

export function renderDnsRecord(args: { controllerDid: string; origin?: string | null }, profile: DnsTxtProfile = SVC_DNS, policy: OriginPolicy = {}): string {
  if (!isDidKey(args.controllerDid)) throw new RangeError('controller must be an Ed25519 did:key');
  const parts = [`${profile.tag}=v1`, `controller=${args.controllerDid}`];
  if (args.origin) {
    const error = originError(args.origin, policy);
    if (error) throw new RangeError(error);
    parts.push(`${profile.originKey}=${args.origin}`);
  }
  return `${parts.join('; ')};`;
}

/** `txtRecords` is one array of character-strings per TXT rdata, as node:dns resolveTxt returns. */
export function parseDnsRecords(txtRecords: readonly (readonly string[])[], profile: DnsTxtProfile = SVC_DNS, policy: OriginPolicy = {}): DnsRecordResult {
  const prefix = `${profile.tag}=`;
  const ours = txtRecords.map((strings) => strings.join('')).filter((text) => text.startsWith(prefix));
  const record = ours[0];
  if (record === undefined) return { ok: false, reason: 'absent', error: `no ${profile.tag} record` };
  if (ours.length > 1) return invalid(`multiple ${profile.tag} records`);

  const fields = new Map<string, string>();
  for (const raw of record.split(';')) {
    const part = raw.trim();
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    if (fields.has(key)) return invalid(`duplicate ${key} field`);
    fields.set(key, part.slice(eq + 1).trim());
  }
  if (fields.get(profile.tag) !== 'v1') return invalid(`unsupported ${profile.tag} version`);
  const controllerDid = fields.get('controller') ?? '';
  if (!isDidKey(controllerDid)) return invalid('controller must be an Ed25519 did:key');
  const origin = fields.get(profile.originKey) || null;
  if (origin !== null) {
    const error = originError(origin, policy);
    if (error) return invalid(`${profile.originKey}: ${error}`);
  }
  return { ok: true, controllerDid, origin };
}

function invalid(error: string): DnsRecordResult {
  return { ok: false, reason: 'invalid', error };
}
