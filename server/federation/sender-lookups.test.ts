/**
 * What answering one federation request may make this node do (sender-lookups.ts): each question
 * asked once and charged to the connecting client, the request's own token given back only when it
 * earned it, DNS queries counted and capped, and the request's time budget. Time here is vitest's
 * (this module keeps no node clock: its budget is the request's own wall time).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_DNS_QUERIES_PER_REQUEST } from '../dns/limits.ts';
import { staticDnsResolver } from '../dns/resolver.ts';
import type { ServiceError } from '../errors.ts';
import type { ClientBudget } from '../http/rate-limit.ts';
import { BUDGET_RETRY_AFTER_S, INBOUND_TIME_BUDGET_MS, SenderLookups } from './sender-lookups.ts';

/** A client with `tokens` left, counting what it is charged and refunded. */
function client(tokens: number): ClientBudget & { taken: number; refunds: number } {
  const budget = {
    taken: 0,
    refunds: 0,
    take(cost: number) {
      if (tokens < cost) return 9;
      tokens -= cost;
      budget.taken += cost;
      return 0;
    },
    refund() {
      budget.refunds += 1;
    },
  };
  return budget;
}

/** The refusal `promise` rejects with. */
const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as ServiceError,
  );

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('SenderLookups', () => {
  it("asks each question once per request, charging the first to the request's own token and the rest to its client", async () => {
    const payer = client(1);
    const lookups = new SenderLookups(payer, staticDnsResolver());
    const ask = vi.fn(async () => ({ ok: true }));
    expect(await lookups.answer('https://a/x', ask)).toEqual({ ok: true });
    expect(await lookups.answer('https://a/x', ask)).toEqual({ ok: true });
    expect(ask).toHaveBeenCalledTimes(1);
    expect(payer.taken).toBe(0);
    await lookups.answer('https://a/y', ask);
    expect(payer.taken).toBe(1);
    // Out of tokens: a new question is refused unasked, with the client's wait; a known one is free.
    const refused = await refusalOf(lookups.answer('https://a/z', ask));
    expect(refused).toMatchObject({ statusCode: 429, code: 'SVC_ERR_RATE_LIMITED', headers: { 'retry-after': '9' } });
    expect(ask).toHaveBeenCalledTimes(2);
    expect(await lookups.answer('https://a/x', ask)).toEqual({ ok: true });
  });

  it('uses an answer learned another way (a lookup of many addresses) without asking or charging, and never over one asked', async () => {
    const payer = client(0);
    const lookups = new SenderLookups(payer, staticDnsResolver());
    const ask = vi.fn(async () => 'asked');
    lookups.prime('https://a/zed', 'primed');
    expect(await lookups.answer('https://a/zed', ask)).toBe('primed');
    expect(await lookups.answer('https://a/amy', ask)).toBe('asked');
    lookups.prime('https://a/amy', 'primed');
    expect(await lookups.answer('https://a/amy', ask)).toBe('asked');
    expect(ask).toHaveBeenCalledTimes(1);
  });

  it("gives the request's own token back only when it stored something new and used the token for nothing else", () => {
    const unused = client(5);
    const proved = new SenderLookups(unused, staticDnsResolver());
    proved.provedNew();
    proved.settle();
    expect(unused.refunds).toBe(1);
    // Settled once: a second settle gives nothing more back.
    proved.settle();
    expect(unused.refunds).toBe(1);

    const nothingNew = client(5);
    new SenderLookups(nothingNew, staticDnsResolver()).settle();
    expect(nothingNew.refunds).toBe(0);

    const spent = client(5);
    const charged = new SenderLookups(spent, staticDnsResolver());
    expect(charged.charge()).toBe(0);
    charged.provedNew();
    charged.settle();
    expect(spent.refunds).toBe(0);
    expect(spent.taken).toBe(0);
  });

  it(`counts and charges each DNS query that goes out, at most ${MAX_DNS_QUERIES_PER_REQUEST} a request; an answer from the cache is free`, async () => {
    const payer = client(100);
    const dns = staticDnsResolver({ '_svcid.a.test': [['svcid=v1']] });
    const lookups = new SenderLookups(payer, dns);
    expect(await lookups.dns.resolveTxt('_svcid.a.test')).toEqual([['svcid=v1']]);
    // The resolver's cache answers without a query: it never calls onQuery.
    const cached = new SenderLookups(payer, { resolveTxt: async () => [['cached']], lookup: async () => [] });
    for (const name of ['_svcid.b.test', '_svcid.c.test']) expect(await cached.dns.resolveTxt(name)).toEqual([['cached']]);
    expect(payer.taken).toBe(0);
    for (let i = 1; i < MAX_DNS_QUERIES_PER_REQUEST; i++) await lookups.dns.resolveTxt(`_svcid.n${i}.test`);
    expect(payer.taken).toBe(MAX_DNS_QUERIES_PER_REQUEST - 1);
    const over = await refusalOf(lookups.dns.resolveTxt('_svcid.over.test'));
    expect(over).toMatchObject({ statusCode: 503, code: 'SVC_ERR_FEDERATION_BUDGET_SPENT', headers: { 'retry-after': String(BUDGET_RETRY_AFTER_S) } });
    expect(over!.message).toBe(`This request made the ${MAX_DNS_QUERIES_PER_REQUEST} DNS queries one request may; try again in ${BUDGET_RETRY_AFTER_S} s`);
    // The host name the outbound client resolves to connect counts too, once per name.
    const connecting = new SenderLookups(null, dns);
    expect(connecting.queryElsewhere('A node.a.test')).toBeNull();
    expect(connecting.queryElsewhere('A node.a.test')).toBeNull();
    for (let i = 1; i < MAX_DNS_QUERIES_PER_REQUEST; i++) expect(connecting.queryElsewhere(`A node${i}.test`)).toBeNull();
    expect(connecting.queryElsewhere('A one-more.test')).toMatchObject({ code: 'SVC_ERR_FEDERATION_BUDGET_SPENT' });
  });

  it("stops waiting for a question at the request's deadline, gives it its own timeout a moment past that, and starts none after", async () => {
    const lookups = new SenderLookups(null, staticDnsResolver());
    let timeoutMs = 0;
    const slow = lookups.answer('https://a/slow', (ms) => {
      timeoutMs = ms;
      return new Promise(() => {});
    });
    expect(timeoutMs).toBe(INBOUND_TIME_BUDGET_MS + 250);
    const refused = refusalOf(slow);
    vi.advanceTimersByTime(INBOUND_TIME_BUDGET_MS - 1);
    expect(lookups.timeSpent()).toBeNull();
    expect(lookups.remainingMs()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await refused).toMatchObject({ statusCode: 503, code: 'SVC_ERR_FEDERATION_BUDGET_SPENT', headers: { 'retry-after': String(BUDGET_RETRY_AFTER_S) } });
    expect(lookups.timeSpent()).toMatchObject({ code: 'SVC_ERR_FEDERATION_BUDGET_SPENT' });
    const ask = vi.fn(async () => 'late');
    expect(await refusalOf(lookups.answer('https://a/late', ask))).toMatchObject({ code: 'SVC_ERR_FEDERATION_BUDGET_SPENT' });
    expect(await refusalOf(lookups.dns.resolveTxt('_svcid.late.test'))).toMatchObject({ code: 'SVC_ERR_FEDERATION_BUDGET_SPENT' });
    expect(ask).not.toHaveBeenCalled();
  });
});
