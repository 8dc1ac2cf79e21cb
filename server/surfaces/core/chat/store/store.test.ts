/**
 * Chat's store modules on a real encrypted database (the shipped migrations): what the mappers
 * decode, and the queries whose answer is not obvious from their SQL: participants on another
 * node (null agent id) in "from others" counts and per-recipient feeds, membership by either
 * column, the session list's order, pages and pending filter, and history's filters.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../../context.ts';
import { closeDatabase, openDatabase } from '../../../../store/database.ts';
import {
  countFromOthers,
  findChatMessage,
  hasSpoken,
  insertChatMessage,
  lastChatMessageRowId,
  lastSessionMessageRowId,
  messageRowIdInSessionsOf,
  messageSignerDid,
  messagesPostedSince,
  messagesStoredAfter,
  newestSessionMessages,
  sessionMessagesAfter,
  toChatMessage,
  toLastMessage,
  toWakeItem,
  unreadMessagesOf,
  type NewChatMessage,
} from './messages.ts';
import {
  findParticipant,
  insertParticipant,
  localParticipantIds,
  readPosition,
  readWatermarks,
  sessionMembers,
  sessionMemberships,
  sessionSummaries,
  setLastMessage,
  setLeftAt,
  setReadWatermark,
  updateRemoteParticipant,
} from './participants.ts';
import { findChatSession, findPairSession, insertChatSession, saveWaitWindow } from './sessions.ts';

let dir: string;
let db: Db;

beforeEach(() => {
  seq = 0;
  dir = mkdtempSync(join(tmpdir(), 'svc-chat-store-'));
  db = openDatabase({ file: join(dir, 'node.db'), key: randomBytes(32) });
  db.prepare(`INSERT INTO projects (project_id, slug, name, created_at) VALUES ('p1', 'p1', 'P1', ?)`).run(T0);
  db.prepare(`INSERT INTO projects (project_id, slug, name, created_at) VALUES ('p2', 'p2', 'P2', ?)`).run(T0);
  for (const [id, project] of [
    ['amy', 'p1'],
    ['bob', 'p1'],
    ['cy', 'p2'],
  ]) {
    db.prepare(
      `INSERT INTO agents (agent_id, project_id, alias, lifetime, key_id, did_key, created_at, updated_at) VALUES (?, ?, ?, 'ephemeral', 'k', ?, ?, ?)`,
    ).run(id, project, id, `did:key:z${id}`, T0, T0);
  }
});
afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

const T0 = '2026-01-01T00:00:00.000Z';
const at = (second: number): string => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
const FAR = 'far.test/dee';

/** A session of these participants: agent ids, or FAR (on another node). */
function session(id: string, participants: string[]): void {
  insertChatSession(db, {
    session_id: id,
    created_by: participants[0]!,
    participant_key: [...participants].sort().join(','),
    participant_count: participants.length,
    created_at: T0,
  });
  for (const who of participants) {
    const remote = who === FAR;
    insertParticipant(db, {
      session_id: id,
      agent_id: remote ? null : who,
      remote_address: remote ? who : null,
      alias: remote ? 'dee' : who,
      address: remote ? who : null,
      did: `did:key:z${who}`,
      joined_at: T0,
    });
  }
}

let seq = 0;
/** A message from an agent id or from FAR; becomes the session's newest, as the commands do. */
function message(sessionId: string, from: string, extra: Partial<NewChatMessage> = {}): number {
  seq += 1;
  const remote = from === FAR;
  const id = insertChatMessage(db, {
    message_id: `m${seq}`,
    session_id: sessionId,
    from_agent_id: remote ? null : from,
    from_remote_address: remote ? from : null,
    from_alias: remote ? 'dee' : from,
    from_address: remote ? from : null,
    from_did: `did:key:z${from}`,
    from_stable_id: null,
    to_text: 'x',
    to_did: '',
    body: `body ${seq}`,
    reply_to: null,
    sender_leaving: false,
    sender_rejoining: false,
    hang_on: false,
    wait_seconds: null,
    signature: 'sig',
    signed_payload: '{}',
    timestamp: at(seq),
    created_at: at(seq),
    from_namespace_trust: remote ? 'verified' : null,
    ...extra,
  });
  setLastMessage(db, sessionId, id);
  return id;
}

describe('sessions', () => {
  it('finds the two-party session by its key and keeps the wait window it is given', () => {
    session('pair', ['amy', FAR]);
    session('group', ['amy', 'bob', 'cy']);
    expect(findPairSession(db, ['amy', FAR].sort().join(','))?.session_id).toBe('pair');
    expect(findPairSession(db, 'amy,bob,cy')).toBeUndefined();
    expect(findChatSession(db, 'pair')).toMatchObject({ wait_seconds: null, wait_started_by: null, hang_on_count: 0 });
    saveWaitWindow(db, 'pair', { wait_seconds: 60, wait_started_at: T0, wait_started_by: 'amy', hang_on_count: 2 });
    expect(findChatSession(db, 'pair')).toMatchObject({ wait_seconds: 60, wait_started_at: T0, wait_started_by: 'amy', hang_on_count: 2 });
  });
});

describe('participants', () => {
  it('lists members in join order, a participant on another node by its address and key', () => {
    session('pair', ['amy', FAR]);
    const [amy, dee] = sessionMembers(db, 'pair');
    expect(amy).toMatchObject({ agent: { agent_id: 'amy', project_id: 'p1', alias: 'amy' } });
    expect(dee).toEqual({ agent: null, address: FAR, did: `did:key:z${FAR}` });
    updateRemoteParticipant(db, 'pair', FAR, { alias: 'dee2', did: 'did:svc:dee' });
    expect(sessionMembers(db, 'pair')[1]).toEqual({ agent: null, address: FAR, did: 'did:svc:dee' });
    expect(localParticipantIds(db, 'pair')).toEqual(['amy']);
  });

  it('marks leaving and returning by agent id or by remote address, and only that participant', () => {
    session('pair', ['amy', FAR]);
    setLeftAt(db, 'pair', { agent_id: null, remote_address: FAR }, T0);
    expect(sessionMemberships(db, 'pair').map((m) => [m.agent_id ?? m.remote_address, m.left_at])).toEqual([
      ['amy', null],
      [FAR, T0],
    ]);
    setLeftAt(db, 'pair', { agent_id: 'amy', remote_address: null }, at(5));
    setLeftAt(db, 'pair', { agent_id: null, remote_address: FAR }, null);
    expect(sessionMemberships(db, 'pair').map((m) => m.left_at)).toEqual([at(5), null]);
  });

  it('reads watermarks and receipts of identities of this node only', () => {
    session('group', ['amy', 'bob', FAR]);
    const first = message('group', FAR);
    expect(readPosition(db, 'group', 'bob')).toBeUndefined();
    setReadWatermark(db, 'group', 'bob', first, at(9));
    expect(readWatermarks(db, 'group', 'amy')).toEqual(new Map([['bob', first]]));
    expect(readPosition(db, 'group', 'bob')).toEqual({ alias: 'bob', last_read_at: at(9), message_id: 'm' + String(seq) });
    const memberships = sessionMemberships(db, 'group');
    expect(memberships.find((m) => m.agent_id === 'bob')).toMatchObject({ last_read_message_id: `m${seq}`, last_read_at: at(9) });
    expect(memberships.find((m) => m.agent_id === 'amy')).toMatchObject({ last_read_message_id: null });
  });

  it("lists one identity's sessions newest first, counting others' unread messages (those from another node too), paged and filtered", () => {
    session('old', ['amy', 'bob']);
    session('pair', ['amy', FAR]);
    session('quiet', ['amy', 'cy']);
    message('old', 'bob');
    const ownInPair = message('pair', 'amy');
    const fromFar = message('pair', FAR);
    message('pair', FAR);
    const all = sessionSummaries(db, 'amy');
    expect(all.map((s) => [s.session_id, s.unread_count, s.last_id])).toEqual([
      ['pair', 2, fromFar + 1],
      ['old', 1, all[1]!.last_id],
      ['quiet', 0, 0],
    ]);
    expect(sessionSummaries(db, 'amy', { limit: 1 }).map((s) => s.session_id)).toEqual(['pair']);
    expect(sessionSummaries(db, 'amy', { before: fromFar + 1 }).map((s) => s.session_id)).toEqual(['old', 'quiet']);
    setReadWatermark(db, 'old', 'amy', all[1]!.last_id, T0);
    expect(sessionSummaries(db, 'amy', { pendingOnly: true }).map((s) => s.session_id)).toEqual(['pair']);
    saveWaitWindow(db, 'quiet', { wait_seconds: 60, wait_started_at: T0, wait_started_by: 'cy', hang_on_count: 0 });
    expect(sessionSummaries(db, 'amy', { pendingOnly: true }).map((s) => s.session_id)).toEqual(['pair', 'quiet']);
    expect(countFromOthers(db, 'pair', 0, fromFar, 'amy')).toBe(1);
    expect(countFromOthers(db, 'pair', ownInPair, fromFar + 1, 'amy')).toBe(2);
    expect(findParticipant(db, 'pair', 'amy')).toMatchObject({ agent_id: 'amy', remote_address: null, last_message_id: fromFar + 1 });
  });
});

describe('messages', () => {
  it('stores booleans as integers and maps a row for a reader of the sender’s project, and of another', () => {
    session('pair', ['amy', 'bob']);
    const id = message('pair', 'amy', { hang_on: true, sender_rejoining: true, body: 'x'.repeat(250) });
    const row = findChatMessage(db, id)!;
    expect(row).toMatchObject({ from_agent_id: 'amy', from_project_id: 'p1', hang_on: 1, sender_leaving: 0, sender_rejoining: 1 });
    const verdicts = {
      signature_status: 'verified' as const,
      from_namespace_trust: null,
      is_contact: false,
      rotation_announcement: null,
      replacement_announcement: null,
      end_to_end: false,
      content_mode: 'legacy_plaintext_v1' as const,
      message_version: 1,
      body: row.body,
      signature: row.signature,
    };
    expect(toChatMessage(row, { agentId: 'bob', projectId: 'p1', custody: 'custodial' }, verdicts)).toMatchObject({
      from_agent_id: 'amy',
      hang_on: true,
      extends_wait_seconds: 300,
      sender_leaving: false,
      sender_rejoining: true,
      to: 'x',
      // Upstream's names beside ours.
      from_agent: row.from_alias,
      to_address: 'x',
      signature_status: 'verified',
    });
    expect(toChatMessage(row, { agentId: 'cy', projectId: 'p2', custody: 'custodial' }, verdicts).from_agent_id).toBeNull();
    expect(toLastMessage(row, { agentId: 'bob', projectId: 'p1', custody: 'custodial' })).toMatchObject({
      from_agent_id: 'amy',
      preview: 'x'.repeat(200),
      sender_rejoining: true,
    });
    expect(toWakeItem(row, true)).toMatchObject({ id, preview: 'x'.repeat(200), sender_waiting: true });
    expect(Object.keys(toWakeItem(row, false))).not.toContain('from_agent_id');
  });

  it('tells a message from another node by its null agent id and its address', () => {
    session('pair', ['amy', FAR]);
    const id = message('pair', FAR);
    expect(findChatMessage(db, id)).toMatchObject({ from_agent_id: null, from_remote_address: FAR, from_project_id: null, from_namespace_trust: 'verified' });
    expect(messageSignerDid(db, `m${seq}`)).toBe(`did:key:z${FAR}`);
    expect(hasSpoken(db, 'pair', 'amy')).toBe(false);
    message('pair', 'amy');
    expect(hasSpoken(db, 'pair', 'amy')).toBe(true);
  });

  it('feeds each identity of this node the others’ unread messages, never the sender and never the participant on another node', () => {
    session('group', ['amy', 'bob', FAR]);
    const fromFar = message('group', FAR);
    const fromAmy = message('group', 'amy');
    expect(unreadMessagesOf(db, 'amy', 0, 10).map((m) => m.id)).toEqual([fromFar]);
    expect(unreadMessagesOf(db, 'bob', 0, 10).map((m) => m.id)).toEqual([fromFar, fromAmy]);
    expect(unreadMessagesOf(db, 'bob', fromFar, 10).map((m) => m.id)).toEqual([fromAmy]);
    setReadWatermark(db, 'group', 'bob', fromFar, T0);
    expect(unreadMessagesOf(db, 'bob', 0, 10).map((m) => m.id)).toEqual([fromAmy]);

    expect(messagesPostedSince(db, fromFar - 1, 10).map((m) => [m.id, m.to_agent_id])).toEqual([
      [fromFar, 'amy'],
      [fromFar, 'bob'],
      [fromAmy, 'bob'],
    ]);
    // The limit counts messages, not rows per recipient.
    expect(messagesPostedSince(db, fromFar - 1, 1).map((m) => m.id)).toEqual([fromFar, fromFar]);
    expect(lastChatMessageRowId(db)).toBe(fromAmy);
  });

  it('pages a session: newest first then oldest first, unread from others, one message, after a row id or a time', () => {
    session('pair', ['amy', FAR]);
    const ids = [message('pair', 'amy'), message('pair', FAR), message('pair', 'amy'), message('pair', FAR)];
    expect(newestSessionMessages(db, 'pair', { limit: 2 }).map((m) => m.id)).toEqual(ids.slice(2));
    expect(newestSessionMessages(db, 'pair', { limit: 10, unreadBy: { agentId: 'amy', lastReadId: ids[1]! } }).map((m) => m.id)).toEqual([ids[3]]);
    expect(newestSessionMessages(db, 'pair', { limit: 10, messageId: findChatMessage(db, ids[2]!)!.message_id }).map((m) => m.id)).toEqual([ids[2]]);
    expect(sessionMessagesAfter(db, 'pair', ids[1]!, 1).map((m) => m.id)).toEqual([ids[2]]);
    const created = findChatMessage(db, ids[1]!)!.created_at;
    expect(messagesStoredAfter(db, 'pair', created, 10).map((m) => m.id)).toEqual(ids.slice(2));
    expect(messagesStoredAfter(db, 'pair', created, 1).map((m) => m.id)).toEqual([ids[3]]);
    expect(lastSessionMessageRowId(db, 'pair')).toBe(ids[3]);
    expect(lastSessionMessageRowId(db, 'none')).toBe(0);
  });

  it("finds a list cursor only among the identity's own sessions", () => {
    session('ab', ['amy', 'bob']);
    session('bc', ['bob', 'cy']);
    const inAb = message('ab', 'bob');
    message('bc', 'cy');
    expect(messageRowIdInSessionsOf(db, 'amy', `m${seq - 1}`)).toBe(inAb);
    expect(messageRowIdInSessionsOf(db, 'amy', `m${seq}`)).toBeUndefined();
  });
});
