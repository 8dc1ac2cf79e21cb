/**
 * The write steps a message sent here and a message arriving from another node share: the
 * session it goes into, and the message row with what follows from it (every participant's
 * newest message, its sender's membership, the wait window). Each runs inside the caller's
 * transaction.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../../../context.ts';
import { notFound } from '../../../../errors.ts';
import type { Party } from '../../messaging/participants.ts';
import { participantKey, type ChatParty } from '../domain/participants.ts';
import { nextWaitWindow } from '../domain/wait-window.ts';
import { hasSpoken, insertChatMessage, sessionMessageRowId, type NewChatMessage } from '../store/messages.ts';
import { insertParticipant, setLastMessage, setLeftAt } from '../store/participants.ts';
import { findPairSession, insertChatSession, saveWaitWindow, type ChatSessionRow } from '../store/sessions.ts';

/**
 * The two-party session of this pair (reused), or a new session of exactly these participants,
 * recorded as `creator`'s, under `newSessionId` when one is given (a client's envelope names it).
 */
export function openSession(db: Db, creator: Party, targets: readonly ChatParty[], now: string, newSessionId?: string): ChatSessionRow {
  const parties = [creator, ...targets];
  const key = participantKey(parties);
  const existing = parties.length === 2 ? findPairSession(db, key) : undefined;
  if (existing) return existing;
  const sessionId = newSessionId ?? randomUUID();
  const session = insertChatSession(db, {
    session_id: sessionId,
    created_by: creator.agent.agent_id,
    participant_key: key,
    participant_count: parties.length,
    created_at: now,
  });
  for (const party of parties) {
    insertParticipant(db, {
      session_id: sessionId,
      agent_id: party.agent?.agent_id ?? null,
      remote_address: party.agent === null ? party.address : null,
      alias: party.alias,
      address: party.address,
      did: party.stableId ?? party.didKey,
      joined_at: now,
    });
  }
  return session;
}

export function assertReplyTo(db: Db, sessionId: string, replyTo: string | undefined): void {
  if (replyTo === undefined) return;
  if (sessionMessageRowId(db, sessionId, replyTo) === undefined)
    throw notFound('SVC_ERR_REPLY_TO_NOT_FOUND', `reply_to message ${replyTo} not found in this session`);
}

/** The participant started the session or has spoken in it (a participant on another node speaks for itself there). */
export function hasEngaged(db: Db, session: ChatSessionRow, party: ChatParty): boolean {
  if (party.agent === null) return false;
  return session.created_by === party.agent.agent_id || hasSpoken(db, session.session_id, party.agent.agent_id);
}

/**
 * Stores a message of `session`. It becomes every participant's newest message (the list's
 * order), its sender's membership follows it (a leaving message marks it gone, any other brings
 * it back), and the session's wait window follows what it says about waiting.
 */
export function recordMessage(db: Db, session: ChatSessionRow, row: NewChatMessage): void {
  const id = insertChatMessage(db, row);
  setLastMessage(db, session.session_id, id);
  setLeftAt(db, session.session_id, { agent_id: row.from_agent_id, remote_address: row.from_remote_address }, row.sender_leaving ? row.created_at : null);
  const window = nextWaitWindow(session, row.from_agent_id, row, row.created_at);
  if (window !== null) saveWaitWindow(db, session.session_id, window);
}
