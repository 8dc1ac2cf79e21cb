/**
 * The outbox store on a real encrypted database: what is due and in which order, the settling
 * statements, a domain made due at once, and the outbound list's mapper.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FEDERATION_VERSION, type FederatedMessage } from '../../contract/core/federation.ts';
import { addIdentity, useStoreDatabase } from '../../test/support/store-database.ts';
import {
  deferDomains,
  dueDomains,
  dueRowsFor,
  insertOutboxRow,
  leaseRows,
  makeDomainDue,
  nextOutboxAttempt,
  outboxRowsFrom,
  scheduleRetry,
  settleBounced,
  settleDelivered,
  subjectOf,
  toOutboundMail,
} from './outbox-store.ts';

const db = useStoreDatabase();

const common = {
  v: FEDERATION_VERSION as typeof FEDERATION_VERSION,
  from: 'a.test/ann',
  from_did: 'did:key:zAnn',
  from_stable_id: null,
  timestamp: 't',
  signature: 's',
  signed_payload: 'p',
};
const mail = (to: string): FederatedMessage => ({ ...common, kind: 'mail', message_id: randomUUID(), to, subject: 'Plans', body: 'b', priority: 'normal' });
const chat = (body: string): FederatedMessage => ({
  ...common,
  kind: 'chat',
  message_id: randomUUID(),
  to: 'b.test/bob',
  body,
  reply_to: null,
  wait_seconds: 0,
  hang_on: false,
  sender_leaving: false,
});

/** Rows this test queued, by message id, as the store reads them back. */
const rowsOf = (agentId: string) => new Map(outboxRowsFrom(db(), agentId, 100).map((row) => [row.message_id, row]));

describe('the outbox store', () => {
  it('queues a message due at once, lists the sender rows newest first, and maps them for the outbound list', () => {
    const ann = addIdentity(db(), { alias: 'ann' });
    const first = mail('b.test/bob');
    const second = chat('  hello\n  there ');
    insertOutboxRow(db(), ann.agent_id, 'b.test', first, '2026-03-01T10:00:00.000Z');
    insertOutboxRow(db(), ann.agent_id, 'b.test', second, '2026-03-01T10:00:01.000Z');
    const rows = outboxRowsFrom(db(), ann.agent_id, 10);
    expect(rows.map((r) => r.message_id)).toEqual([second.message_id, first.message_id]);
    expect(rows[1]).toMatchObject({
      kind: 'mail',
      to_address: 'b.test/bob',
      to_domain: 'b.test',
      status: 'queued',
      attempts: 0,
      next_attempt_at: '2026-03-01T10:00:00.000Z',
    });
    expect(JSON.parse(rows[1]!.payload)).toEqual(first);
    const outbound = toOutboundMail(rows[0]!);
    expect(outbound).toMatchObject({ message_id: second.message_id, kind: 'chat', subject: 'Chat: hello there' });
    expect(outbound).not.toHaveProperty('payload');
    expect(outbound).not.toHaveProperty('from_agent_id');
    expect(outbound).not.toHaveProperty('id');
    expect(outboxRowsFrom(db(), ann.agent_id, 1)).toHaveLength(1);
  });

  it('gives due rows in send order, settles them, and makes a domain due now', () => {
    const ann = addIdentity(db(), { alias: 'ann' });
    const [a, b, c] = [mail('far.test/x'), mail('far.test/y'), mail('near.test/z')];
    insertOutboxRow(db(), ann.agent_id, 'far.test', a, '2026-04-01T10:00:00.000Z');
    insertOutboxRow(db(), ann.agent_id, 'far.test', b, '2026-04-01T10:00:00.000Z');
    insertOutboxRow(db(), ann.agent_id, 'near.test', c, '2026-04-01T10:00:00.000Z');
    const mine = (now: string) => dueRowsFor(db(), ['far.test', 'near.test'], now, 100).filter((row) => row.from_agent_id === ann.agent_id);
    const [rowA, rowB, rowC] = mine('2026-04-01T10:00:00.000Z');
    expect([rowA, rowB, rowC].map((r) => r?.message_id)).toEqual([a.message_id, b.message_id, c.message_id]);

    scheduleRetry(db(), rowA!.id, 1, 'could not reach', '2026-04-01T11:00:00.000Z');
    settleDelivered(db(), rowB!.id, 1, 'https://far.test', '2026-04-01T10:00:01.000Z');
    settleBounced(db(), rowC!.id, 2, 'refused', '2026-04-01T10:00:02.000Z');
    const rows = rowsOf(ann.agent_id);
    expect(rows.get(a.message_id)).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: 'could not reach',
      next_attempt_at: '2026-04-01T11:00:00.000Z',
      settled_at: null,
    });
    expect(rows.get(b.message_id)).toMatchObject({
      status: 'delivered',
      attempts: 1,
      delivered_to: 'https://far.test',
      last_error: null,
      settled_at: '2026-04-01T10:00:01.000Z',
    });
    expect(rows.get(c.message_id)).toMatchObject({ status: 'bounced', attempts: 2, last_error: 'refused', settled_at: '2026-04-01T10:00:02.000Z' });

    // Only queued rows are due, and the next attempt is the earliest queued one.
    expect(mine('2026-04-01T10:30:00.000Z')).toEqual([]);
    expect(mine('2026-04-01T11:00:00.000Z').map((r) => r.message_id)).toEqual([a.message_id]);
    expect(nextOutboxAttempt(db(), '2026-04-01T10:30:00.000Z')! <= '2026-04-01T11:00:00.000Z').toBe(true);
    makeDomainDue(db(), 'far.test', '2026-04-01T10:05:00.000Z');
    expect(rowsOf(ann.agent_id).get(a.message_id)?.next_attempt_at).toBe('2026-04-01T10:05:00.000Z');
    // A row in flight keeps its lease.
    leaseRows(db(), [rowA!.id], '2026-04-01T10:06:00.000Z');
    makeDomainDue(db(), 'far.test', '2026-04-01T10:05:30.000Z', [rowA!.id]);
    expect(rowsOf(ann.agent_id).get(a.message_id)?.next_attempt_at).toBe('2026-04-01T10:06:00.000Z');
  });

  it("keeps a pair's later rows back while an earlier one is leased or backing off, and defers a node's domains", () => {
    const ann = addIdentity(db(), { alias: 'ann' });
    const at = '2026-05-01T10:00:00.000Z';
    const [first, second, other] = [mail('pair.test/bob'), mail('pair.test/bob'), mail('pair.test/carol')];
    for (const message of [first, second, other]) insertOutboxRow(db(), ann.agent_id, 'pair.test', message, at);
    const due = (now: string) => dueRowsFor(db(), ['pair.test'], now, 100).map((row) => row.message_id);
    expect(dueDomains(db(), at)).toContain('pair.test');
    expect(due(at)).toEqual([first.message_id, second.message_id, other.message_id]);

    // The first to bob is in flight: the second to bob waits for it; carol's is not held back.
    const [firstRow] = dueRowsFor(db(), ['pair.test'], at, 1);
    leaseRows(db(), [firstRow!.id], '2026-05-01T10:00:20.000Z');
    expect(due(at)).toEqual([other.message_id]);
    // Backing off holds it back the same way; once settled, the second is next.
    scheduleRetry(db(), firstRow!.id, 1, 'deferred', '2026-05-01T10:01:00.000Z');
    expect(due('2026-05-01T10:00:30.000Z')).toEqual([other.message_id]);
    settleDelivered(db(), firstRow!.id, 2, 'https://pair.test', '2026-05-01T10:00:31.000Z');
    expect(due('2026-05-01T10:00:31.000Z')).toEqual([second.message_id, other.message_id]);

    // A node that asked us to wait: every queued row to its domains waits, none moves earlier.
    deferDomains(db(), ['pair.test'], '2026-05-01T10:05:00.000Z');
    expect(due('2026-05-01T10:04:59.000Z')).toEqual([]);
    expect(dueDomains(db(), '2026-05-01T10:04:59.000Z')).not.toContain('pair.test');
    deferDomains(db(), ['pair.test'], '2026-05-01T10:02:00.000Z');
    expect(due('2026-05-01T10:05:00.000Z')).toEqual([second.message_id, other.message_id]);
  });

  it("keeps rows a delivery holds, and their pairs' later rows, back even once their lease has run out", () => {
    const ann = addIdentity(db(), { alias: 'ann' });
    const at = '2026-06-01T10:00:00.000Z';
    const [first, second, other] = [mail('held.test/bob'), mail('held.test/bob'), mail('held.test/carol')];
    for (const message of [first, second, other]) insertOutboxRow(db(), ann.agent_id, 'held.test', message, at);
    const [firstRow] = dueRowsFor(db(), ['held.test'], at, 1);
    leaseRows(db(), [firstRow!.id], '2026-06-01T10:00:20.000Z');
    const due = (inFlight: number[]) => dueRowsFor(db(), ['held.test'], '2026-06-01T10:00:21.000Z', 100, inFlight).map((row) => row.message_id);
    // The lease is over: without a word about what is in flight, all three are due again.
    expect(due([])).toEqual([first.message_id, second.message_id, other.message_id]);
    expect(due([firstRow!.id])).toEqual([other.message_id]);
  });

  it('calls mail by its subject and chat by the start of its text', () => {
    expect(subjectOf(mail('b.test/bob'))).toBe('Plans');
    expect(subjectOf(chat('x'.repeat(61)))).toBe(`Chat: ${'x'.repeat(60)}…`);
  });
});
