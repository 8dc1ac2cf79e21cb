/**
 * One-time join codes (ours; docs/adr/0004-custody-model.md): the owner invites an agent under an
 * alias; the agent presents the code with its own did:key, signed with that key, and receives its
 * certificate. The key is generated on the agent's side and never reaches the node; the code is
 * stored as its SHA-256, expires, and works once. The owner lists pending invites (never their
 * codes) and may cancel one until it is redeemed.
 *
 * What the agent signs (Ed25519, base64url without padding): the canonical JSON of
 * `{type: "svc.team.join", code, did_key, timestamp}` (and `did_aw` when it names one), timestamp
 * within five minutes of the node's clock.
 *
 * A persistent invite may name the member's address (the owner's choice, as with `add-member`),
 * and a persistent agent joins with its own did:svc: the node checks its log names the agent's
 * key as current, and that no identity of this node is that did:svc already (a member is a new
 * identity of the team's project), before the team key signs it into the certificate.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { NodeContext } from '../context.ts';
import { canonicalJsonBytes } from '../crypto/canonical-json.ts';
import { isDidKey, publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { fromBase64Url, sha256Hex } from '../crypto/encoding.ts';
import { parseRfc3339 } from '../crypto/timestamp.ts';
import { conflict, forbidden, notFound, unauthorized } from '../errors.ts';
import type { InviteCancelled, InviteInput, InviteList, IssuedCertificate, JoinInput, PendingInvite, TeamInvite } from '../../contract/node/teams.ts';
import { TEAMS_TOPIC } from '../events/bus.ts';
import { selfCommandWords } from '../self-command.ts';
import { cancelInvite, findInvite, findInviteByCode, insertInvite, pendingInvites, useInvite, type InviteRow } from './invite-store.ts';
import { bodyIssue, validAddress, type TeamService } from './service.ts';

export const JOIN_SIGNATURE_TYPE = 'svc.team.join';
export const DEFAULT_INVITE_SECONDS = 24 * 3600;
const SKEW_MS = 300_000;

/** The bytes an agent signs to join (`didAw`: the did:svc it names, if any). */
export function joinPayload(code: string, didKey: string, timestamp: string, didAw?: string): Buffer {
  return canonicalJsonBytes({ type: JOIN_SIGNATURE_TYPE, code, did_key: didKey, timestamp, ...(didAw === undefined ? {} : { did_aw: didAw }) });
}

/** What the node knows of identities, to check a joining agent's did:svc. */
export interface IdentityRecords {
  /** The did:key a did:svc log this node holds names as current; null when it holds no such log. */
  currentKey(didAw: string): string | null;
  /** The alias of the identity of this node that is this did:svc; null when none is. */
  identityOfDid(didAw: string): string | null;
}

function pendingOf(row: InviteRow): PendingInvite {
  return {
    invite_id: row.invite_id,
    team_id: row.team_id,
    alias: row.alias,
    lifetime: row.lifetime,
    address: row.address,
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}

export class TeamInvites {
  readonly #ctx: NodeContext;
  readonly #teams: TeamService;
  readonly #identities: IdentityRecords;

  constructor(ctx: NodeContext, teams: TeamService, identities: IdentityRecords) {
    this.#ctx = ctx;
    this.#teams = teams;
    this.#identities = identities;
  }

  /** A new join code for `alias` (shown once: only its hash is kept). */
  create(teamId: string, input: InviteInput): TeamInvite {
    this.#teams.get(teamId);
    const now = this.#ctx.clock.now();
    const code = `svc_join_${randomBytes(24).toString('hex')}`;
    const lifetime = input.lifetime ?? 'ephemeral';
    const address = input.address ?? null;
    if (address !== null && lifetime !== 'persistent') throw bodyIssue('address', 'only a persistent member has an address (this invite is ephemeral)');
    if (address !== null && !validAddress(address)) throw bodyIssue('address', 'must be <domain>/<name>');
    const expiresAt = new Date(now.getTime() + (input.expires_in_seconds ?? DEFAULT_INVITE_SECONDS) * 1000).toISOString();
    const row = {
      invite_id: randomUUID(),
      team_id: teamId,
      code_sha256: sha256Hex(code),
      alias: input.alias,
      lifetime,
      address,
      created_at: now.toISOString(),
      expires_at: expiresAt,
    };
    insertInvite(this.#ctx.db, row);
    this.#ctx.bus.publish(TEAMS_TOPIC);
    const cli = selfCommandWords();
    return {
      invite_id: row.invite_id,
      team_id: teamId,
      alias: input.alias,
      lifetime,
      address,
      code,
      expires_at: expiresAt,
      join_url: `${this.#ctx.urls.core_url}/v1/team/join`,
      ...(cli === null ? {} : { cli: [...cli] }),
    };
  }

  /** The team's invites that still work, oldest first. */
  pending(teamId: string): InviteList {
    this.#teams.get(teamId);
    return { team_id: teamId, invites: pendingInvites(this.#ctx.db, teamId, this.#ctx.clock.now().toISOString()).map(pendingOf) };
  }

  /** Stops a code working. Cancelling a cancelled invite answers as the first time; a redeemed one is a 409. */
  cancel(teamId: string, inviteId: string): InviteCancelled {
    this.#teams.get(teamId);
    const db = this.#ctx.db;
    const cancelled = db.transaction(() => {
      const invite = findInvite(db, teamId, inviteId);
      if (invite === undefined) throw notFound('SVC_ERR_TEAM_INVITE_NOT_FOUND', `Team ${teamId} has no invite ${inviteId}`);
      if (invite.used_at !== null)
        throw conflict(
          'SVC_ERR_TEAM_INVITE_USED',
          `Invite ${inviteId} was redeemed at ${invite.used_at} (certificate ${invite.certificate_id}); revoke that certificate instead`,
        );
      if (invite.cancelled_at !== null) return invite.cancelled_at;
      const now = this.#ctx.clock.now().toISOString();
      cancelInvite(db, inviteId, now);
      return now;
    })();
    this.#ctx.bus.publish(TEAMS_TOPIC);
    return { cancelled: true, invite_id: inviteId, cancelled_at: cancelled };
  }

  /** Redeems a code for a certificate naming the agent's own key (and its did:svc, when it names one). */
  join({ code, did_key, did_aw, timestamp, signature }: JoinInput): IssuedCertificate {
    const when = parseRfc3339(timestamp);
    if (when === null || Math.abs(when - this.#ctx.clock.now().getTime()) > SKEW_MS) {
      throw unauthorized('SVC_ERR_TIMESTAMP_INVALID', 'timestamp missing, malformed or more than 5 minutes from the node clock');
    }
    const key = isDidKey(did_key) ? publicKeyFromDidKey(did_key) : null;
    if (key === null) throw bodyIssue('did_key', 'not an Ed25519 did:key');
    const sig = fromBase64Url(signature);
    if (sig === null || !verifyBytes(key, joinPayload(code, did_key, timestamp, did_aw), sig)) {
      throw unauthorized('SVC_ERR_SIGNATURE_INVALID', 'The join signature does not verify against did_key');
    }
    const db = this.#ctx.db;
    return db.transaction(() => {
      const invite = findInviteByCode(db, sha256Hex(code));
      if (invite === undefined) throw forbidden('SVC_ERR_TEAM_INVITE_INVALID', 'Unknown join code');
      if (invite.used_at !== null) throw forbidden('SVC_ERR_TEAM_INVITE_INVALID', 'Join code already used');
      if (invite.cancelled_at !== null) throw forbidden('SVC_ERR_TEAM_INVITE_INVALID', 'Join code cancelled by the team owner');
      if (Date.parse(invite.expires_at) <= this.#ctx.clock.now().getTime()) throw forbidden('SVC_ERR_TEAM_INVITE_INVALID', 'Join code expired');
      if (did_aw !== undefined) this.#checkDid(invite, did_key, did_aw);
      const named = { ...(did_aw === undefined ? {} : { did_aw }), ...(invite.address === null ? {} : { address: invite.address }) };
      const issued = this.#teams.addMember(invite.team_id, { did_key, alias: invite.alias, lifetime: invite.lifetime, ...named });
      useInvite(db, invite.invite_id, this.#ctx.clock.now().toISOString(), issued.certificate.certificate_id);
      return issued;
    })();
  }

  /** A did:svc named on joining: only on a persistent invite, the agent's own, and not an identity of this node already. */
  #checkDid(invite: InviteRow, didKey: string, didAw: string): void {
    if (invite.lifetime !== 'persistent') throw bodyIssue('did_aw', 'only a persistent invite takes a did:svc (this one is ephemeral)');
    if (this.#identities.currentKey(didAw) !== didKey) {
      throw forbidden(
        'SVC_ERR_TEAM_JOIN_IDENTITY_MISMATCH',
        `The did:svc log this node holds for ${didAw} does not name ${didKey} as its current key (register or rotate it through /v1/did first)`,
      );
    }
    const existing = this.#identities.identityOfDid(didAw);
    if (existing !== null) {
      throw conflict(
        'SVC_ERR_TEAM_AGENT_CONFLICT',
        `${didAw} is already the identity ${existing} of this node; a team member is a new identity of the team's project, so join with a did:svc of its own`,
      );
    }
  }
}
