/**
 * A session as its participants reach it: a session the caller does not take part in does not
 * exist for it; its participants as they are now; who has left and who is waiting; and the bus
 * nudges every write publishes after it commits.
 */
import type { Db } from '../../../context.ts';
import { notFound } from '../../../errors.ts';
import { identityTopic, sessionTopic, type EventBus } from '../../../events/bus.ts';
import type { ChatDeps } from './deps.ts';
import { isParticipant, remoteParty, type ChatParty, type ChatViewer } from './domain/participants.ts';
import { findParticipant, sessionMembers, type Membership } from './store/participants.ts';
import { findChatSession, type ChatSessionRow } from './store/sessions.ts';

export function viewerOf({ identities }: ChatDeps, agentId: string): ChatViewer {
  const row = identities.row(agentId);
  return { agentId, projectId: row.project_id, custody: row.custody };
}

/** The session, when the caller takes part in it; otherwise it does not exist for them. */
export function memberSession(db: Db, agentId: string, sessionId: string): ChatSessionRow {
  const session = findParticipant(db, sessionId, agentId) ? findChatSession(db, sessionId) : undefined;
  if (!session) throw notFound('SVC_ERR_CHAT_SESSION_NOT_FOUND', 'Session not found');
  return session;
}

/**
 * The participants, the creator first, then its targets in order: identities of this node as they
 * are now (alias, address and keys), identities on other nodes as they last wrote.
 */
export function sessionParties({ ctx, recipients }: ChatDeps, sessionId: string): ChatParty[] {
  return sessionMembers(ctx.db, sessionId).map((member) => (member.agent === null ? remoteParty(member.address, member.did) : recipients.party(member.agent)));
}

/** Whether the identity's latest message in the session said it was leaving. */
export function hasLeft(db: Db, sessionId: string, agentId: string): boolean {
  return (findParticipant(db, sessionId, agentId)?.left_at ?? null) !== null;
}

export function membershipOf(memberships: readonly Membership[], party: ChatParty): Membership | undefined {
  return memberships.find((membership) => isParticipant(membership, party));
}

/** Someone is waiting: it has the session's stream open and has not left (a left chat waits for no one). Only identities of this node connect. */
export function isWaiting({ ctx, presence }: ChatDeps, sessionId: string, agentId: string | null): boolean {
  return agentId !== null && presence.isConnected(sessionId, agentId) && !hasLeft(ctx.db, sessionId, agentId);
}

/** After a write commits: the session's topic (its streams) and the identity topics of those it concerns. */
export function publishChange(bus: EventBus, sessionId: string, agentIds: readonly string[]): void {
  bus.publish(sessionTopic(sessionId));
  for (const agentId of new Set(agentIds)) bus.publish(identityTopic(agentId));
}
