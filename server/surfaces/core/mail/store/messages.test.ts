/**
 * The messages store on a real encrypted database: the inbox's folders and paging, the
 * recipient-side state changes (each on the caller's own, undeleted copy only), the pending
 * queries the event stream reads, and who may read a body.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AgentRow } from '../../identities/store/agents.ts';
import { addIdentity, useStoreDatabase } from '../../../../../test/support/store-database.ts';
import {
  acknowledgeMail,
  archiveMail,
  deleteMail,
  findMailOrigin,
  inboxRowId,
  inboxRows,
  insertMailRow,
  lastMailRowId,
  mailFolderState,
  mailStoredSince,
  markMailUnread,
  newestPendingMail,
  pendingMailAfter,
  readableMailBody,
  toInboxItem,
  unarchiveMail,
  unreadMailCount,
  type NewMailRow,
} from './messages.ts';

const db = useStoreDatabase();
const T = '2026-03-01T10:00:00.000Z';

/** Mail from `from` to `to`, stored now; returns its message_id. */
function send(from: AgentRow, to: AgentRow, fields: Partial<NewMailRow> = {}): string {
  const messageId = randomUUID();
  insertMailRow(db(), {
    message_id: messageId,
    from_agent_id: from.agent_id,
    from_alias: from.alias,
    from_address: null,
    from_did: from.did_key,
    from_stable_id: null,
    to_agent_id: to.agent_id,
    to_text: to.alias,
    to_alias: to.alias,
    to_address: null,
    to_did: to.did_key,
    to_stable_id: null,
    subject: 'hi',
    body: `body of ${messageId}`,
    priority: 'normal',
    signature: 'sig',
    signed_payload: 'payload',
    created_at: T,
    origin: 'local',
    from_node: null,
    ...fields,
  });
  return messageId;
}

const ids = (rows: { message_id: string }[]) => rows.map((r) => r.message_id);

describe('the messages store', () => {
  it('stores a row with the recipient state empty, and finds who stored an id', () => {
    const [ann, bob] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' })];
    const id = send(ann, bob, { origin: 'remote', from_agent_id: null, from_node: 'https://a.test', from_namespace_trust: 'verified' });
    const [row] = inboxRows(db(), bob.agent_id, { folder: 'inbox', unreadOnly: false, limit: 10 });
    expect(row).toMatchObject({ message_id: id, read_at: null, archived_at: null, deleted_at: null, from_namespace_trust: 'verified', origin: 'remote' });
    expect(findMailOrigin(db(), id)).toEqual({ from_did: ann.did_key, origin: 'remote' });
    expect(findMailOrigin(db(), randomUUID())).toBeUndefined();
    // The id is unique: a second row under it is SQLite's constraint error (delivery.ts turns it into a 409 or a duplicate).
    expect(() => send(ann, bob, { message_id: id })).toThrow(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }));
  });

  it('maps a row to the inbox item: storage-only columns out, the read-time judgement in', () => {
    const [ann, bob] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' })];
    send(ann, bob);
    const [row] = inboxRows(db(), bob.agent_id, { folder: 'inbox', unreadOnly: false, limit: 1 });
    const judged = { conversation_id: row!.message_id, from_address: 'ann', signing_key_id: null, rotation_announcement: null, replacement_announcement: null };
    const encryption = {
      end_to_end: false,
      content_mode: 'legacy_plaintext_v1',
      message_version: 1,
      subject: row!.subject,
      body: row!.body,
      signature: row!.signature,
    } as const;
    const item = toInboxItem(row!, { is_contact: true, signature_status: 'failed', from_namespace_trust: null, ...judged, ...encryption });
    expect(item).not.toHaveProperty('id');
    expect(item).not.toHaveProperty('encrypted_envelope');
    expect(item).not.toHaveProperty('to_agent_id');
    expect(item).not.toHaveProperty('to_text');
    expect(item).not.toHaveProperty('deleted_at');
    expect(item).toMatchObject({ is_contact: true, signature_status: 'failed', from_namespace_trust: null, subject: 'hi', archived_at: null });
  });

  it('lists the inbox newest first by folder, unread only, by id, and before a cursor', () => {
    const [ann, bob] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' })];
    const [m1, m2, m3, m4] = [send(ann, bob), send(ann, bob), send(ann, bob), send(ann, bob)];
    const own = (messageId: string) => ({ agentId: bob.agent_id, messageId });
    archiveMail(db(), own(m2), T);
    acknowledgeMail(db(), own(m3), T);
    deleteMail(db(), own(m4), T);
    const list = (filter: Partial<Parameters<typeof inboxRows>[2]>) =>
      ids(inboxRows(db(), bob.agent_id, { folder: null, unreadOnly: false, limit: 10, ...filter }));
    expect(list({ folder: 'inbox' })).toEqual([m3, m1]);
    expect(list({ folder: 'archive' })).toEqual([m2]);
    expect(list({})).toEqual([m3, m2, m1]);
    expect(list({ unreadOnly: true })).toEqual([m1]);
    expect(list({ messageId: m2 })).toEqual([m2]);
    expect(list({ messageId: m4 })).toEqual([]);
    expect(list({ beforeId: inboxRowId(db(), bob.agent_id, m3) })).toEqual([m2, m1]);
    expect(list({ limit: 1 })).toEqual([m3]);
    // A cursor is any message of this inbox, deleted ones too; another's mail is none.
    expect(inboxRowId(db(), bob.agent_id, m4)).toBeTypeOf('number');
    expect(inboxRowId(db(), ann.agent_id, m1)).toBeUndefined();
  });

  it('acknowledges once, keeping the first time, and only the own undeleted copy', () => {
    const [ann, bob] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' })];
    const own = { agentId: bob.agent_id, messageId: send(ann, bob) };
    expect(acknowledgeMail(db(), own, T)).toEqual({ readAt: T, changed: true });
    expect(acknowledgeMail(db(), own, '2026-03-02T00:00:00.000Z')).toEqual({ readAt: T, changed: false });
    expect(acknowledgeMail(db(), { agentId: ann.agent_id, messageId: own.messageId }, T)).toBeUndefined();
    deleteMail(db(), own, T);
    expect(acknowledgeMail(db(), own, T)).toBeUndefined();
  });

  it('archives (read too, first times kept), unarchives, marks unread back into the inbox, deletes once', () => {
    const [ann, bob] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' })];
    const own = { agentId: bob.agent_id, messageId: send(ann, bob) };
    archiveMail(db(), own, T);
    archiveMail(db(), own, '2026-03-02T00:00:00.000Z');
    expect(mailFolderState(db(), own)).toEqual({ message_id: own.messageId, folder: 'archive', archived_at: T, read_at: T });
    unarchiveMail(db(), own);
    expect(mailFolderState(db(), own)).toMatchObject({ folder: 'inbox', archived_at: null, read_at: T });
    archiveMail(db(), own, T);
    markMailUnread(db(), own);
    expect(mailFolderState(db(), own)).toMatchObject({ folder: 'inbox', archived_at: null, read_at: null });
    // The sender's view of the row is no recipient copy.
    expect(mailFolderState(db(), { agentId: ann.agent_id, messageId: own.messageId })).toBeUndefined();
    expect(deleteMail(db(), own, T)).toBe(true);
    expect(deleteMail(db(), own, T)).toBe(false);
    expect(mailFolderState(db(), own)).toBeUndefined();
  });

  it('reads pending mail (unread, in the inbox) for the stream, and counts unread for chat', () => {
    const [ann, bob] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' })];
    const [m1, m2, m3, m4] = [send(ann, bob), send(ann, bob), send(ann, bob), send(ann, bob)];
    archiveMail(db(), { agentId: bob.agent_id, messageId: m2 }, T);
    expect(ids(newestPendingMail(db(), bob.agent_id, 2))).toEqual([m3, m4]);
    expect(ids(pendingMailAfter(db(), bob.agent_id, inboxRowId(db(), bob.agent_id, m1)!))).toEqual([m3, m4]);
    expect(unreadMailCount(db(), bob.agent_id)).toBe(3);
    expect(unreadMailCount(db(), ann.agent_id)).toBe(0);
  });

  it('feeds every recipient from a row id on, and knows the last id', () => {
    const [ann, bob] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' })];
    const before = lastMailRowId(db());
    const [m1, m2] = [send(ann, bob), send(bob, ann)];
    expect(ids(mailStoredSince(db(), before, 10))).toEqual([m1, m2]);
    expect(ids(mailStoredSince(db(), before, 1))).toEqual([m1]);
    expect(lastMailRowId(db())).toBe(before + 2);
  });

  it('lets the recipient read a body until it deletes it, and a local sender always', () => {
    const [ann, bob, eve] = [addIdentity(db(), { alias: 'ann' }), addIdentity(db(), { alias: 'bob' }), addIdentity(db(), { alias: 'eve' })];
    const messageId = send(ann, bob);
    const body = `body of ${messageId}`;
    expect(readableMailBody(db(), { agentId: bob.agent_id, messageId })).toBe(body);
    expect(readableMailBody(db(), { agentId: ann.agent_id, messageId })).toBe(body);
    expect(readableMailBody(db(), { agentId: eve.agent_id, messageId })).toBeUndefined();
    deleteMail(db(), { agentId: bob.agent_id, messageId }, T);
    expect(readableMailBody(db(), { agentId: bob.agent_id, messageId })).toBeUndefined();
    expect(readableMailBody(db(), { agentId: ann.agent_id, messageId })).toBe(body);
    // A remote or bounce row names no local sender who could read it as theirs.
    const arrived = send(ann, bob, { origin: 'remote' });
    expect(readableMailBody(db(), { agentId: ann.agent_id, messageId: arrived })).toBeUndefined();
  });
});
