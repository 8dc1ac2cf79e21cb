/**
 * The node's resolver layer against a real name server on loopback, counting what reaches it:
 * TXT answers are kept (records, "no record" and failures each for their time), identical
 * lookups in flight are asked once, and the node-wide bounds (slots, queue, rate) refuse at
 * once, as lookup failures, without a query going out. budgetedResolver caps one request's
 * queries and charges only the ones that go out.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsServer } from '../../test/support/dns-server.ts';
import type { Clock } from '../clock.ts';
import { budgetedResolver } from './budget.ts';
import { guardedResolver } from './guarded-resolver.ts';
import { DNS_LIMITS, type DnsLimits } from './limits.ts';
import { createSystemDnsResolver } from './resolver.ts';

let server: DnsServer;
let offset = 0;
const clock: Clock = { now: () => new Date(Date.now() + offset) };

beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.resetCounts();
  offset = 0;
});

const RECORD = [['svcid=v1; controller=did:key:z6Mk;']];

function resolver(limits: Partial<DnsLimits> = {}, timeoutMs = 2_000) {
  return guardedResolver(createSystemDnsResolver({ servers: [server.address], timeoutMs }), { ...DNS_LIMITS, ...limits }, clock);
}

const code = (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => 'answered',
    (error: NodeJS.ErrnoException) => error.code,
  );

describe('guardedResolver: the cache', () => {
  it('keeps an answer with records for positiveTtlMs', async () => {
    server.records['_svcid.kept.test'] = RECORD;
    const dns = resolver({ positiveTtlMs: 60_000 });
    expect(await dns.resolveTxt('_svcid.kept.test')).toEqual(RECORD);
    expect(await dns.resolveTxt('_svcid.KEPT.test')).toEqual(RECORD);
    expect(server.queries('_svcid.kept.test')).toBe(1);
    offset += 60_001;
    expect(await dns.resolveTxt('_svcid.kept.test')).toEqual(RECORD);
    expect(server.queries('_svcid.kept.test')).toBe(2);
  });

  it('keeps "no record" for negativeTtlMs, and a failure for failureTtlMs', async () => {
    server.behaviour['_svcid.broken.test'] = 'servfail';
    const dns = resolver({ negativeTtlMs: 30_000, failureTtlMs: 5_000 });
    for (let i = 0; i < 3; i++) {
      expect(await dns.resolveTxt('_svcid.absent.test')).toEqual([]);
      expect(await code(dns.resolveTxt('_svcid.broken.test'))).toBe('ESERVFAIL');
    }
    expect(server.queries('_svcid.absent.test')).toBe(1);
    expect(server.queries('_svcid.broken.test')).toBe(1);
    offset += 5_001;
    expect(await code(dns.resolveTxt('_svcid.broken.test'))).toBe('ESERVFAIL');
    expect(await dns.resolveTxt('_svcid.absent.test')).toEqual([]);
    expect(server.queries('_svcid.broken.test')).toBe(2);
    expect(server.queries('_svcid.absent.test')).toBe(1);
    offset += 25_000;
    expect(await dns.resolveTxt('_svcid.absent.test')).toEqual([]);
    expect(server.queries('_svcid.absent.test')).toBe(2);
  });

  it('asks again for a fresh lookup, and keeps what it learns', async () => {
    const dns = resolver();
    expect(await dns.resolveTxt('_svcid.changed.test')).toEqual([]);
    server.records['_svcid.changed.test'] = RECORD;
    expect(await dns.resolveTxt('_svcid.changed.test')).toEqual([]);
    expect(await dns.resolveTxt('_svcid.changed.test', { fresh: true })).toEqual(RECORD);
    expect(await dns.resolveTxt('_svcid.changed.test')).toEqual(RECORD);
    expect(server.queries('_svcid.changed.test')).toBe(2);
  });

  it('holds at most cacheEntries names, dropping the oldest', async () => {
    const dns = resolver({ cacheEntries: 2 });
    for (const name of ['a', 'b', 'c']) await dns.resolveTxt(`_svcid.${name}.evict.test`);
    await dns.resolveTxt('_svcid.c.evict.test');
    await dns.resolveTxt('_svcid.a.evict.test');
    expect(server.queries('_svcid.c.evict.test')).toBe(1);
    expect(server.queries('_svcid.a.evict.test')).toBe(2);
  });
});

describe('guardedResolver: joined lookups and node-wide bounds', () => {
  it('asks once for identical lookups in flight, TXT and addresses alike', async () => {
    server.behaviour['_svcid.slow.test'] = 'silent';
    server.addresses['node.joined.test'] = ['192.0.2.1'];
    const dns = resolver({ failureTtlMs: 0 }, 300);
    const codes = await Promise.all(Array.from({ length: 12 }, () => code(dns.resolveTxt('_svcid.slow.test'))));
    expect(codes).toEqual(Array(12).fill('ETIMEOUT'));
    // The one lookup waited for its tries; twelve of them would have sent twelve times as many.
    expect(server.queries('_svcid.slow.test')).toBeLessThanOrEqual(3);
    const found = await Promise.all(Array.from({ length: 5 }, () => dns.lookup('node.joined.test')));
    expect(found.every((addresses) => addresses[0]?.address === '192.0.2.1')).toBe(true);
    expect(server.queries('node.joined.test')).toBe(2); // one A and one AAAA
  });

  it('fails at once past its slots and queue, without a query going out', async () => {
    const names = Array.from({ length: 5 }, (_, i) => `_svcid.n${i}.busy.test`);
    for (const name of names) server.behaviour[name] = 'silent';
    const dns = resolver({ concurrency: 2, queueLength: 2, failureTtlMs: 0 }, 400);
    const started = performance.now();
    const last = code(dns.resolveTxt(names[4]!));
    const first = names.slice(0, 4).map((name) => code(dns.resolveTxt(name)));
    // The fifth asked finds two running and two waiting.
    expect(await Promise.race([code(dns.resolveTxt('_svcid.extra.busy.test')), new Promise((resolve) => setTimeout(() => resolve('waited'), 200))])).toBe(
      'EDNSBUSY',
    );
    expect(performance.now() - started).toBeLessThan(200);
    expect(server.queries('_svcid.extra.busy.test')).toBe(0);
    await Promise.all([last, ...first]);
  });

  it('fails a query that waits for a slot longer than queueWaitMs', async () => {
    server.behaviour['_svcid.hold.wait.test'] = 'silent';
    const dns = resolver({ concurrency: 1, queueWaitMs: 100, failureTtlMs: 0 }, 1_500);
    const holding = code(dns.resolveTxt('_svcid.hold.wait.test'));
    expect(await code(dns.resolveTxt('_svcid.queued.wait.test'))).toBe('EDNSBUSY');
    expect(server.queries('_svcid.queued.wait.test')).toBe(0);
    expect(await holding).toBe('ETIMEOUT');
  });

  it('spends a node-wide query budget, refilled over time', async () => {
    const dns = resolver({ rateBurst: 3, ratePerSecond: 1 });
    for (const name of ['a', 'b', 'c']) expect(await dns.resolveTxt(`_svcid.${name}.rate.test`)).toEqual([]);
    expect(await code(dns.resolveTxt('_svcid.d.rate.test'))).toBe('EDNSRATE');
    expect(server.queries('_svcid.d.rate.test')).toBe(0);
    // Kept answers cost nothing.
    expect(await dns.resolveTxt('_svcid.a.rate.test')).toEqual([]);
    offset += 1_000;
    expect(await dns.resolveTxt('_svcid.d.rate.test')).toEqual([]);
    expect(server.queries()).toBe(4);
  });
});

describe('budgetedResolver', () => {
  it('allows maxQueries queries, charges each, and never cache hits', async () => {
    const dns = resolver();
    const charged: string[] = [];
    const budget = budgetedResolver(dns, { maxQueries: 2, onQuery: (name) => charged.push(name) });
    await dns.resolveTxt('_svcid.cached.budget.test');
    server.resetCounts();
    expect(await budget.resolveTxt('_svcid.cached.budget.test')).toEqual([]);
    expect(await budget.resolveTxt('_svcid.a.budget.test')).toEqual([]);
    expect(await budget.resolveTxt('_svcid.b.budget.test')).toEqual([]);
    expect(await code(budget.resolveTxt('_svcid.c.budget.test'))).toBe('EDNSBUDGET');
    expect(await code(budget.lookup('node.budget.test'))).toBe('EDNSBUDGET');
    expect(charged).toEqual(['_svcid.a.budget.test', '_svcid.b.budget.test']);
    expect(budget.queries).toBe(2);
    expect(server.queries()).toBe(2);
  });

  it("refuses a query its caller will not pay for, with the caller's error", async () => {
    const broke = Object.assign(new Error('out of tokens'), { code: 'BROKE' });
    const budget = budgetedResolver(resolver(), {
      maxQueries: 8,
      onQuery: () => {
        throw broke;
      },
    });
    expect(await code(budget.resolveTxt('_svcid.unpaid.test'))).toBe('BROKE');
    expect(server.queries()).toBe(0);
  });
});
