/**
 * The Sent view's reads on a real encrypted database: each source newest first by second then id,
 * the cursor's condition on the same and the other source (the rank deciding a tie within a
 * second), the outbox's chat rows left out, and the mappers.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FEDERATION_VERSION, type FederatedMail } from '../../../../../contract/core/federation.ts';
import type { AgentRow } from '../../identities/store/agents.ts';
import { addIdentity, useStoreDatabase } from '../../../../../test/support/store-database.ts';
import { insertMailRow } from './messages.ts';
import { localSentRows, queuedMailBody, queuedSentRows, sentKeyOf, toLocalSentItem, toQueuedSentItem } from './sent.ts';

const db = useStoreDatabase();

function sendLocal(from: AgentRow, to: AgentRow, at: string): string {
  const messageId = randomUUID();
  insertMailRow(db(), {
    message_id: messageId,
    from_agent_id: from.agent_id,
    from_alias: from.alias,
    from_address: null,
    from_did: from.did_key,
    from_stable_id: null,
    to_agent_id: to.agent_id,
    to_text: `as ${to.alias}`,
    to_alias: to.alias,
    to_address: null,
    to_did: to.did_key,
    to_stable_id: null,
    subject: 'local',
    body: 'here',
    priority: 'high',
    signature: 'sig',
    signed_payload: 'payload',
    created_at: at,
    origin: 'local',
    from_node: null,
  });
  return messageId;
}

/** A row as federation/outbox-store.ts writes it (that store is federation's; core does not import it). */
function queue(from: AgentRow, at: string, kind: 'mail' | 'chat' = 'mail'): string {
  const mail: FederatedMail = {
    v: FEDERATION_VERSION,
    kind: 'mail',
    message_id: randomUUID(),
    from: 'a.test/ann',
    from_did: from.did_key,
    from_stable_id: null,
    to: 'b.test/bob',
    subject: 'away',
    body: 'there',
    priority: 'low',
    timestamp: at,
    signature: 'sig',
    signed_payload: 'payload',
  };
  db()
    .prepare(
      `INSERT INTO federation_outbox (message_id, kind, from_agent_id, to_address, to_domain, payload, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(mail.message_id, kind, from.agent_id, mail.to, 'b.test', JSON.stringify(mail), at, at);
  return mail.message_id;
}

const ids = (rows: { message_id: string }[]) => rows.map((r) => r.message_id);

describe('the Sent view store', () => {
  it('reads each source newest first by second, then id, and leaves out chat and mail received', () => {
    const [ann, bob] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' })];
    const early = sendLocal(ann, bob, '2026-03-01T10:00:00.900Z');
    const late1 = sendLocal(ann, bob, '2026-03-01T10:00:01.000Z');
    const late2 = sendLocal(ann, bob, '2026-03-01T10:00:01.000Z');
    sendLocal(bob, ann, '2026-03-01T10:00:02.000Z');
    const q1 = queue(ann, '2026-03-01T10:00:00.000Z');
    const q2 = queue(ann, '2026-03-01T10:00:01.500Z');
    queue(ann, '2026-03-01T10:00:03.000Z', 'chat');
    expect(ids(localSentRows(db(), ann.agent_id, null, 10))).toEqual([late2, late1, early]);
    expect(ids(queuedSentRows(db(), ann.agent_id, null, 10))).toEqual([q2, q1]);
    expect(ids(localSentRows(db(), ann.agent_id, null, 2))).toEqual([late2, late1]);
  });

  it('pages after a cursor: the same source by second and id, the other by second with remote first', () => {
    const [ann, bob] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' })];
    const l0 = sendLocal(ann, bob, '2026-03-01T09:59:59.000Z');
    const l1 = sendLocal(ann, bob, '2026-03-01T10:00:00.100Z');
    const l2 = sendLocal(ann, bob, '2026-03-01T10:00:00.200Z');
    const q0 = queue(ann, '2026-03-01T09:59:59.500Z');
    const q1 = queue(ann, '2026-03-01T10:00:00.300Z');

    const afterLocal = sentKeyOf(db(), ann.agent_id, l2)!;
    expect(afterLocal).toMatchObject({ sec: '2026-03-01T10:00:00', rank: 0 });
    expect(ids(localSentRows(db(), ann.agent_id, afterLocal, 10))).toEqual([l1, l0]);
    // Within the cursor's second a remote item came before the local cursor, so it is not after it.
    expect(ids(queuedSentRows(db(), ann.agent_id, afterLocal, 10))).toEqual([q0]);

    const afterRemote = sentKeyOf(db(), ann.agent_id, q1)!;
    expect(afterRemote).toMatchObject({ sec: '2026-03-01T10:00:00', rank: 1 });
    expect(ids(queuedSentRows(db(), ann.agent_id, afterRemote, 10))).toEqual([q0]);
    // ... and local items of the same second come after it.
    expect(ids(localSentRows(db(), ann.agent_id, afterRemote, 10))).toEqual([l2, l1, l0]);

    expect(sentKeyOf(db(), bob.agent_id, l1)).toBeUndefined();
  });

  it('maps a local send: delivered at once, the alias only within the sender project', () => {
    const ann = addIdentity(db(), { alias: 'ann', project_id: 'sent-team' });
    const [colleague, stranger] = [addIdentity(db(), { alias: 'col', project_id: 'sent-team' }), addIdentity(db(), { alias: 'str' })];
    sendLocal(ann, colleague, '2026-03-01T10:00:00.000Z');
    sendLocal(ann, stranger, '2026-03-01T10:00:01.000Z');
    const [toStranger, toColleague] = localSentRows(db(), ann.agent_id, null, 10).map((row) =>
      toLocalSentItem(row, 'sent-team', { end_to_end: false, content_mode: 'legacy_plaintext_v1', message_version: 1, subject: row.subject, body: row.body }),
    );
    expect(toColleague).toMatchObject({
      destination: 'local',
      to: 'as col',
      to_alias: 'col',
      status: 'delivered',
      attempts: null,
      settled_at: '2026-03-01T10:00:00.000Z',
    });
    expect(toStranger).toMatchObject({ to: 'as str', to_alias: null, priority: 'high' });
  });

  it('maps a queued send from its payload and outbox state, and reads its body for the sender only', () => {
    const ann = addIdentity(db(), { alias: 'ann' });
    const id = queue(ann, '2026-03-01T10:00:00.250Z');
    const [row] = queuedSentRows(db(), ann.agent_id, null, 1);
    expect(toQueuedSentItem(row!)).toMatchObject({
      message_id: id,
      destination: 'remote',
      to: 'b.test/bob',
      to_did: null,
      subject: 'away',
      priority: 'low',
      created_at: '2026-03-01T10:00:00Z',
      status: 'queued',
      attempts: 0,
      next_attempt_at: '2026-03-01T10:00:00.250Z',
    });
    expect(toQueuedSentItem({ ...row!, status: 'bounced' }).next_attempt_at).toBeNull();
    expect(queuedMailBody(db(), ann.agent_id, id)).toBe('there');
    expect(queuedMailBody(db(), addIdentity(db(), { alias: 'eve' }).agent_id, id)).toBeUndefined();
  });
});
