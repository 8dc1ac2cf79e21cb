/**
 * The Teams view's rules, pure and tested in team-members.test.ts: which members are listed where
 * and in what order, a presence frame applied to the member it concerns, the one line an invited
 * agent runs, and words for a certificate's lifetime and an invite's expiry.
 */
import type { ActingAs } from '../../../contract/acting-as.ts';
import { JOIN_ELSEWHERE, joinCommandLine, OWNER_ALIAS } from '../../../contract/node/teams.ts';

/** What an agent on another machine needs, in the contract's words (the CLI prints the same). */
export { JOIN_ELSEWHERE };
import type { ListedMember, NodeAgentPresence, PendingInvite, TeamInvite } from '../api/owner.ts';
import type { BadgeLabel } from './labels.ts';

/** Members that act (the owner first, then those online, then by alias), and revoked ones (latest first). */
export function splitMembers(members: readonly ListedMember[]): { active: ListedMember[]; revoked: ListedMember[] } {
  const active = members.filter((m) => m.revoked_at === null);
  const revoked = members.filter((m) => m.revoked_at !== null);
  active.sort((a, b) => Number(b.owner) - Number(a.owner) || Number(b.online) - Number(a.online) || a.alias.localeCompare(b.alias));
  revoked.sort((a, b) => (b.revoked_at ?? '').localeCompare(a.revoked_at ?? '') || a.alias.localeCompare(b.alias));
  return { active, revoked };
}

/**
 * `members` with the presence frame applied to the member that connected as `presence.agent_id`;
 * null when no member did (the frame is about another identity, or a member that connected since
 * the list was read). A revoked certificate never counts as online, whatever its identity does.
 */
export function applyPresence(members: readonly ListedMember[], presence: NodeAgentPresence): ListedMember[] | null {
  if (!members.some((member) => member.agent_id === presence.agent_id)) return null;
  return members.map((member) =>
    member.agent_id !== presence.agent_id
      ? member
      : { ...member, online: presence.online && member.revoked_at === null, last_seen: presence.last_seen ?? member.last_seen },
  );
}

/**
 * Whether a presence frame nobody in the list matched may be about a member all the same: one
 * that never connected (no agent_id yet) may just have, so the list is worth reading again.
 */
export function mayBeNewlyConnected(members: readonly ListedMember[]): boolean {
  return members.some((m) => m.revoked_at === null && !m.owner && m.agent_id === null);
}

/** A member's presence, for its dot and the words beside it. */
export type PresenceState = 'online' | 'offline' | 'never';

export function presenceState(member: ListedMember): PresenceState {
  if (member.online && member.revoked_at === null) return 'online';
  return member.last_seen === null ? 'never' : 'offline';
}

/** The tooltip of a member's presence dot. */
export function presenceHint(member: ListedMember): string {
  switch (presenceState(member)) {
    case 'online':
      return 'Online: its event stream is open or it sent a heartbeat in the last 30 minutes.';
    case 'offline':
      return 'Offline: no open event stream and no recent heartbeat.';
    case 'never':
      return member.owner
        ? 'This app acts through the owner member; it never connects as an agent.'
        : 'Never connected: the agent has not called POST /v1/connect with this certificate yet.';
  }
}

/**
 * The one command the invited agent runs (as `svc-node team invite` prints it): this node's own
 * svc-node when the node says where it is, each word quoted as a shell needs.
 */
export function joinCommand(invite: Pick<TeamInvite, 'join_url' | 'code' | 'alias' | 'cli'>): string {
  return joinCommandLine(invite);
}

/** How long a join code works: the choices offered, and the one chosen by default (the node's default, a day). */
export const INVITE_EXPIRIES = [
  { label: '1 hour', seconds: 3600 },
  { label: '1 day', seconds: 24 * 3600 },
  { label: '7 days', seconds: 7 * 24 * 3600 },
  { label: '30 days', seconds: 30 * 24 * 3600 },
] as const;
export const DEFAULT_INVITE_SECONDS = 24 * 3600;

/** What a member certificate's lifetime means for the agent holding it. */
export function certificateLifetimeBadge(lifetime: ListedMember['lifetime']): BadgeLabel {
  return lifetime === 'persistent'
    ? { text: 'Persistent', tone: 'accent', hint: 'A lasting member: it may join with its own did:svc and address, and its workspace is kept.' }
    : { text: 'Ephemeral', tone: 'neutral', hint: 'One agent run: once it has been away for 30 minutes, the team may clean up its workspace.' };
}

/** The member for a confirm dialog's words: its alias, and its address when it has one. */
export function memberName(member: Pick<ListedMember, 'alias' | 'member_address'>): string {
  return member.member_address ? `${member.alias} (${member.member_address})` : member.alias;
}

/** Pending invites, the one expiring soonest first: that is the one to act on. */
export function sortInvites(invites: readonly PendingInvite[]): PendingInvite[] {
  return [...invites].sort((a, b) => a.expires_at.localeCompare(b.expires_at) || a.alias.localeCompare(b.alias));
}

/**
 * Who a team record names, as a person reads it (as document history does): the identity the app
 * acted as, by its name, when the node recorded it; else the owner member is the person using this
 * app, so "you" (a record from before the node kept the identity), never its certificate alias
 * "owner"; an agent by its alias. `actingAs` is absent from a node that does not record it.
 */
export function actorName(alias: string, actingAs?: ActingAs | null): string {
  if (actingAs) return actingAs.name;
  return alias === OWNER_ALIAS ? 'you' : alias;
}

/** What the name means, for its tooltip: the identity's address (as history gives it), or whose record it is. */
export function actorHint(alias: string, actingAs?: ActingAs | null): string {
  if (actingAs) return `In this app as ${actingAs.address ?? actingAs.name}`;
  return alias === OWNER_ALIAS ? 'In this app (which identity was not recorded)' : `Team member ${alias}`;
}

/** A member's name in the list: the owner member is the person using this app, by the identity they act as. */
export function listedMemberName(member: Pick<ListedMember, 'alias' | 'owner'>, actingName: string | null): string {
  if (!member.owner) return member.alias;
  return actingName === null ? 'You' : `${actingName} (you)`;
}
