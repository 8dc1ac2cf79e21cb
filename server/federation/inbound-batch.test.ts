/**
 * A batch of messages from another node, received by the node's services on a real encrypted
 * database, without HTTP: a result per message in order, what costs whom, the pair order of
 * deferrals, the request's time budget, the batch's bounds, and one transaction for the mail that
 * passed. The sender's node, which the receiver asks about each new sender, is a loopback server
 * vouching for the test's keys.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import {
  FEDERATION_BATCH_MAX_MESSAGES,
  FEDERATION_VERSION,
  FederationBatch,
  type FederatedChat,
  type FederatedMessage,
} from '../../contract/core/federation.ts';
import { InboxQuery } from '../../contract/core/mail.ts';
import { ServiceError } from '../errors.ts';
import { TokenBuckets, type ClientBudget, type RateLimit } from '../http/rate-limit.ts';
import { signedMail, vouchingNode } from '../../test/support/federation.ts';
import { testKey, type TestKey } from '../../test/support/keys.ts';
import { remoteServers, type RemoteServer } from '../../test/support/remote-server.ts';
import { startUnitNode, type UnitNode } from '../../test/support/unit-node.ts';
import { DomainBudgets, type DomainBudget } from './domain-budget.ts';
import { FederationBatches } from './inbound-batch.ts';
import { BUDGET_RETRY_AFTER_S, INBOUND_TIME_BUDGET_MS } from './sender-lookups.ts';
import { envelopeBytes } from './wire.ts';

const PLENTY: DomainBudget = { messages: { burst: 1000, perSecond: 1000 }, bytes: { burst: 1 << 30, perSecond: 1 << 30 } };
/** How much past the time budget an answer may come (the work in flight is abandoned, not awaited). */
const SLACK_MS = 1_500;

const servers = remoteServers();
let node: UnitNode;
let bob: string;
let carol: string;
let zed: TestKey;
let amy: TestKey;
let checks: RemoteServer;

beforeEach(async () => {
  node = await startUnitNode();
  const { services, ctx } = node;
  const key = ctx.custody.createSigningKey('namespace');
  await services.namespaces.registerByOwner('b.test', key.didKey, key.keyId);
  const project = services.projects.create({ slug: 'pb', namespace: 'b.test' });
  bob = services.identities.create(project.project_id, { lifetime: 'persistent', name: 'bob' }).agent_id;
  carol = services.identities.create(project.project_id, { lifetime: 'persistent', name: 'carol' }).agent_id;
  zed = testKey();
  amy = testKey();
  checks = await vouchingNode(servers, 'x.test', { zed, amy });
  services.directory.set('x.test', checks.url);
});

afterEach(async () => {
  await servers.closeAll();
  node.close();
});

/** Batches received with `budget` per sending domain. */
const batches = (budget: DomainBudget = PLENTY) => new FederationBatches(node.services.inbound, new DomainBudgets(budget, node.ctx.clock));

/** A client's request tokens, as the peer listener keeps them (its request's own token already taken). */
function client(limit: RateLimit): ClientBudget & { refunds: number } {
  const buckets = new TokenBuckets(limit, node.ctx.clock);
  const budget = { refunds: 0, take: (cost: number) => buckets.take('client', cost), refund: () => void (budget.refunds += 1) };
  return budget;
}

/** A chat message `key` signed as its node does. */
function signedChat(key: TestKey, fields: { from: string; to: string; body: string }): FederatedChat {
  const chat = {
    v: FEDERATION_VERSION as typeof FEDERATION_VERSION,
    kind: 'chat' as const,
    message_id: randomUUID(),
    from: fields.from,
    from_did: key.didKey,
    from_stable_id: null,
    to: fields.to,
    body: fields.body,
    timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    reply_to: null,
    wait_seconds: null,
    hang_on: false,
    sender_leaving: false,
  };
  const bytes = envelopeBytes(chat);
  return { ...chat, signature: key.sign(bytes), signed_payload: bytes.toString('utf8') };
}

const from = (key: TestKey, name: string, to: string, body?: string) =>
  signedMail(key, { from: `x.test/${name}`, to: `b.test/${to}`, ...(body === undefined ? {} : { body }) });
const forged = (key: TestKey, name: string, to: string) => ({ ...from(key, name, to), body: 'altered' });
const bodies = (agentId: string) =>
  node.services.mail
    .inbox(agentId, InboxQuery.parse({ limit: 100 }))
    .messages.map((m) => m.body)
    .sort();
const asked = () => checks.requests.length;

describe('a batch from another node', () => {
  it('answers each message on its own, in order: one bad message never holds back the rest', async () => {
    const good = from(zed, 'zed', 'bob', 'one');
    const items = [
      good,
      forged(zed, 'zed', 'bob'),
      { v: 1, kind: 'mail', message_id: 'not-a-uuid' },
      { kind: 'mail', message_id: 'x'.repeat(65) },
      good,
      from(zed, 'zed', 'nobody'),
      from(amy, 'amy', 'carol', 'two'),
    ];
    const { results } = await batches().receive({ v: 1, messages: items }, null);
    expect(results.map((r) => [r.message_id, r.status, r.code])).toEqual([
      [good.message_id, 'delivered', undefined],
      [items[1]!.message_id, 'refused', 'SVC_ERR_FEDERATION_SIGNATURE_INVALID'],
      ['not-a-uuid', 'refused', 'SVC_ERR_VALIDATION'],
      // An unparseable item's id is named back only when it is a plausible one.
      [null, 'refused', 'SVC_ERR_VALIDATION'],
      [good.message_id, 'duplicate', undefined],
      [items[5]!.message_id, 'refused', 'SVC_ERR_RECIPIENT_NOT_FOUND'],
      [items[6]!.message_id, 'delivered', undefined],
    ]);
    expect(results[2]!.detail).toMatch(/^messages\.2\./);
    expect(results[1]!.detail).toMatch(/^Refused: signed_payload is not the canonical envelope of the delivered fields \(body differs\)/);
    expect(bodies(bob)).toEqual(['one']);
    expect(bodies(carol)).toEqual(['two']);
  });

  it("checks signatures before asking the sender's node anything, and asks once for the senders of one domain", async () => {
    await batches().receive({ v: 1, messages: [forged(zed, 'zed', 'bob'), forged(amy, 'amy', 'bob')] }, null);
    expect(asked()).toBe(0);
    const { results } = await batches().receive({ v: 1, messages: [from(zed, 'zed', 'bob'), from(amy, 'amy', 'bob'), from(zed, 'zed', 'carol')] }, null);
    expect(results.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);
    // The two new senders' addresses in one lookup, and their namespace once.
    expect(checks.requests.filter((r) => r.includes('/addresses'))).toEqual([expect.stringMatching(/\/addresses\?names=(zed,amy|amy,zed)$/)]);
    expect(checks.requests.filter((r) => r.endsWith('/namespaces/x.test'))).toHaveLength(1);
  });

  it('acknowledges a copy of a message stored before without asking anyone, and refuses another message under its id once the sender is proven', async () => {
    const first = from(zed, 'zed', 'bob', 'first');
    await batches().receive({ v: 1, messages: [first] }, null);
    const before = asked();
    const { results } = await batches().receive({ v: 1, messages: [first] }, null);
    expect(results).toEqual([{ message_id: first.message_id, status: 'duplicate' }]);
    expect(asked()).toBe(before);
    // Another key under the same id: refused as taken only once that sender is proven...
    const taken = signedMail(amy, { from: 'x.test/amy', to: 'b.test/bob', messageId: first.message_id, body: 'imposter' });
    const { results: proven } = await batches().receive({ v: 1, messages: [taken] }, null);
    expect(proven).toMatchObject([{ message_id: first.message_id, status: 'refused', code: 'SVC_ERR_MESSAGE_ID_TAKEN' }]);
    // ...while a sender its node does not vouch for hears what it would for a fresh id.
    const stranger = signedMail(testKey(), { from: 'x.test/stranger', to: 'b.test/bob', messageId: first.message_id });
    const { results: unproven } = await batches().receive({ v: 1, messages: [stranger] }, null);
    expect(unproven).toMatchObject([{ message_id: first.message_id, status: 'refused', code: 'SVC_ERR_SENDER_NOT_FOUND' }]);
    expect(bodies(bob)).toEqual(['first']);
  });

  it("defers what is over the sending domain's budget, and every later message of that pair behind it", async () => {
    const budget: DomainBudget = { messages: { burst: 2, perSecond: 0.001 }, bytes: { burst: 1 << 30, perSecond: 1 << 30 } };
    const messages = [
      from(zed, 'zed', 'bob', 'b1'),
      from(zed, 'zed', 'carol', 'c1'),
      from(zed, 'zed', 'bob', 'b2'),
      from(zed, 'zed', 'bob', 'b3'),
      from(zed, 'zed', 'carol', 'c2'),
    ];
    const { results } = await batches(budget).receive({ v: 1, messages }, null);
    expect(results.map((r) => r.status)).toEqual(['delivered', 'delivered', 'deferred', 'deferred', 'deferred']);
    expect(results[2]).toMatchObject({
      code: 'SVC_ERR_RATE_LIMITED',
      detail: expect.stringMatching(/^x\.test's delivery budget is spent; try again in \d+ s$/),
    });
    expect(results[2]!.retry_after).toBeGreaterThan(0);
    expect(results[3]).toEqual({
      ...results[2],
      message_id: messages[3]!.message_id,
      detail: 'an earlier message from this sender to this recipient was deferred',
    });
    expect(results[4]).toMatchObject({ code: 'SVC_ERR_RATE_LIMITED', detail: expect.stringMatching(/budget is spent/) });
    expect(bodies(bob)).toEqual(['b1']);
    expect(bodies(carol)).toEqual(['c1']);
  });

  it("defers, once the request's time is spent, the message being checked and every one not reached, unchecked", async () => {
    const slow = await vouchingNode(servers, 'slow.test', { zed }, { delayMs: () => INBOUND_TIME_BUDGET_MS * 3 });
    node.services.directory.set('slow.test', slow.url);
    const messages = [signedMail(zed, { from: 'slow.test/zed', to: 'b.test/bob' }), from(zed, 'zed', 'bob'), from(amy, 'amy', 'carol')];
    const started = performance.now();
    const { results } = await batches().receive({ v: 1, messages }, null);
    expect(performance.now() - started).toBeLessThan(INBOUND_TIME_BUDGET_MS + SLACK_MS);
    for (const result of results)
      expect(result).toMatchObject({ status: 'deferred', code: 'SVC_ERR_FEDERATION_BUDGET_SPENT', retry_after: BUDGET_RETRY_AFTER_S });
    // The messages after the slow one were never checked: their node was asked only the one
    // lookup of its senders that came before any check.
    expect(checks.requests).toEqual([expect.stringMatching(/\/addresses\?names=/)]);
    expect(bodies(bob)).toEqual([]);
  });

  it("charges a client a token for each message that proves nothing new, and gives the request's back when it stored new mail and cost nothing else", async () => {
    const flood = client({ burst: 3, perSecond: 0.001 });
    const { results } = await batches().receive({ v: 1, messages: Array.from({ length: 6 }, () => forged(zed, 'zed', 'bob')) }, flood);
    // The first forgery is paid by the request's own token, the next three by the client's; then it has none.
    expect(results.map((r) => r.status)).toEqual(['refused', 'refused', 'refused', 'refused', 'deferred', 'deferred']);
    expect(results[4]).toMatchObject({
      code: 'SVC_ERR_RATE_LIMITED',
      detail: expect.stringMatching(/^too many requests from this client; try again in \d+ s$/),
    });
    expect(flood.refunds).toBe(0);
    // A sender proven before, with new mail: nothing was asked, so the request's token goes back.
    await batches().receive({ v: 1, messages: [from(zed, 'zed', 'bob')] }, null);
    const honest = client({ burst: 3, perSecond: 0.001 });
    const { results: stored } = await batches().receive({ v: 1, messages: [from(zed, 'zed', 'bob'), from(zed, 'zed', 'carol')] }, honest);
    expect(stored.map((r) => r.status)).toEqual(['delivered', 'delivered']);
    expect(honest.refunds).toBe(1);
  });

  it(`holds at most ${FEDERATION_BATCH_MAX_MESSAGES} messages, and at least one`, () => {
    const messages = Array.from({ length: FEDERATION_BATCH_MAX_MESSAGES + 1 }, () => ({}));
    expect(FederationBatch.safeParse({ v: 1, messages: messages.slice(1) }).success).toBe(true);
    expect(FederationBatch.safeParse({ v: 1, messages }).success).toBe(false);
    expect(FederationBatch.safeParse({ v: 1, messages: [] }).success).toBe(false);
  });

  it('stores mail that two deliveries race with once, and acknowledges it to both', async () => {
    const mail = from(zed, 'zed', 'bob', 'raced');
    const [one, two] = await Promise.all([batches().receive({ v: 1, messages: [mail] }, null), batches().receive({ v: 1, messages: [mail] }, null)]);
    expect([one.results[0]!.status, two.results[0]!.status].sort()).toEqual(['delivered', 'duplicate']);
    expect(bodies(bob)).toEqual(['raced']);
  });

  it('stores a chat message that two deliveries race with once, and acknowledges it to both', async () => {
    const message = signedChat(zed, { from: 'x.test/zed', to: 'b.test/bob', body: 'raced chat' });
    const results = await Promise.all([batches().receive({ v: 1, messages: [message] }, null), batches().single(message, null)]);
    expect([results[0].results[0]!.status, results[1].status].sort()).toEqual(['delivered', 'duplicate']);
    expect(node.services.chat.hasMessage(message.message_id, zed.didKey)).toBe(true);
  });

  it('stores the mail that passed in one transaction: a failure storing one leaves none of the batch stored', async () => {
    const messages = [from(zed, 'zed', 'bob', 'm1'), from(zed, 'zed', 'carol', 'm2'), from(zed, 'zed', 'bob', 'fails'), from(zed, 'zed', 'bob', 'm4')];
    // The disk fails as the third mail is written.
    node.ctx.db.exec(`CREATE TEMP TRIGGER fail_store BEFORE INSERT ON messages WHEN NEW.body = 'fails' BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    await expect(batches().receive({ v: 1, messages }, null)).rejects.toThrow('disk I/O error');
    expect(bodies(bob)).toEqual([]);
    expect(bodies(carol)).toEqual([]);
    // Nothing was acknowledged, so the sending node sends the batch again: all of it is stored, once.
    node.ctx.db.exec('DROP TRIGGER fail_store');
    const { results } = await batches().receive({ v: 1, messages }, null);
    expect(results.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    expect(bodies(bob)).toEqual(['fails', 'm1', 'm4']);
    expect(bodies(carol)).toEqual(['m2']);
  });
});

describe('one message from another node (the single route)', () => {
  it('stores it, acknowledges a copy, and refuses a forgery or a spent domain budget with the status the route answers', async () => {
    const budget: DomainBudget = { messages: { burst: 1, perSecond: 0.001 }, bytes: { burst: 1 << 30, perSecond: 1 << 30 } };
    const single = batches(budget);
    const mail = from(zed, 'zed', 'bob', 'hi') as FederatedMessage;
    expect(await single.single(mail, null)).toEqual({ message_id: mail.message_id, status: 'delivered' });
    expect(await single.single(mail, null)).toEqual({ message_id: mail.message_id, status: 'duplicate' });
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => null,
        (error: unknown) => error as ServiceError,
      );
    const forgery = await refusal(single.single(forged(zed, 'zed', 'bob') as FederatedMessage, null));
    expect(forgery).toBeInstanceOf(ServiceError);
    expect(forgery).toMatchObject({ statusCode: 403, code: 'SVC_ERR_FEDERATION_SIGNATURE_INVALID' });
    const over = await refusal(single.single(from(zed, 'zed', 'bob', 'over') as FederatedMessage, null));
    expect(over).toMatchObject({ statusCode: 429, code: 'SVC_ERR_RATE_LIMITED' });
    expect(Number(over!.headers['retry-after'])).toBeGreaterThan(0);
    expect(bodies(bob)).toEqual(['hi']);
  });
});
