/**
 * One-time join codes (issue 17): the owner invites an agent under an alias; the agent presents
 * the code with its own did:key, signed with that key, and receives its certificate. The key is
 * generated on the agent's side and never reaches the node; the code is stored as its SHA-256,
 * expires, and works once.
 *
 * What the agent signs (Ed25519, base64url without padding): the canonical JSON of
 * `{type: "svc.team.join", code, did_key, timestamp}`, timestamp within five minutes of the node's clock.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { NodeContext } from '../context.ts';
import { canonicalJsonBytes } from '../crypto/canonical-json.ts';
import { isDidKey, publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { fromBase64Url, sha256Hex } from '../crypto/encoding.ts';
import { parseRfc3339 } from '../crypto/timestamp.ts';
import { forbidden, invalid, unauthorized } from '../errors.ts';
import type { InviteInput, IssuedCertificate, TeamInvite, JoinInput } from '../../contract/node/teams.ts';
import { findInviteByCode, insertInvite, useInvite } from './invite-store.ts';
import type { TeamService } from './service.ts';

export const JOIN_SIGNATURE_TYPE = 'svc.team.join';
export const DEFAULT_INVITE_SECONDS = 24 * 3600;
const SKEW_MS = 300_000;

/** The bytes an agent signs to join. */
export function joinPayload(code: string, didKey: string, timestamp: string): Buffer {
  return canonicalJsonBytes({ type: JOIN_SIGNATURE_TYPE, code, did_key: didKey, timestamp });
}

export class TeamInvites {
  readonly #ctx: NodeContext;
  readonly #teams: TeamService;

  constructor(ctx: NodeContext, teams: TeamService) {
    this.#ctx = ctx;
    this.#teams = teams;
  }

  /** A new join code for `alias` (shown once: only its hash is kept). */
  create(teamId: string, input: InviteInput): TeamInvite {
    this.#teams.get(teamId);
    const now = this.#ctx.clock.now();
    const code = `svc_join_${randomBytes(24).toString('hex')}`;
    const lifetime = input.lifetime ?? 'ephemeral';
    const expiresAt = new Date(now.getTime() + (input.expires_in_seconds ?? DEFAULT_INVITE_SECONDS) * 1000).toISOString();
    const row = { invite_id: randomUUID(), team_id: teamId, code_sha256: sha256Hex(code), alias: input.alias, lifetime, created_at: now.toISOString(), expires_at: expiresAt };
    insertInvite(this.#ctx.db, row);
    return { invite_id: row.invite_id, team_id: teamId, alias: input.alias, lifetime, code, expires_at: expiresAt, join_url: `${this.#ctx.urls.core_url}/v1/team/join` };
  }

  /** Redeems a code for a certificate naming the agent's own key. */
  join({ code, did_key, timestamp, signature }: JoinInput): IssuedCertificate {
    const when = parseRfc3339(timestamp);
    if (when === null || Math.abs(when - this.#ctx.clock.now().getTime()) > SKEW_MS) {
      throw unauthorized('SVC_ERR_TIMESTAMP_INVALID', 'timestamp missing, malformed or more than 5 minutes from the node clock');
    }
    const key = isDidKey(did_key) ? publicKeyFromDidKey(did_key) : null;
    if (key === null) throw invalid('SVC_ERR_VALIDATION', [{ loc: ['body', 'did_key'], msg: 'not an Ed25519 did:key', type: 'value_error' }]);
    const sig = fromBase64Url(signature);
    if (sig === null || !verifyBytes(key, joinPayload(code, did_key, timestamp), sig)) {
      throw unauthorized('SVC_ERR_SIGNATURE_INVALID', 'The join signature does not verify against did_key');
    }
    const db = this.#ctx.db;
    return db.transaction(() => {
      const invite = findInviteByCode(db, sha256Hex(code));
      if (invite === undefined) throw forbidden('SVC_ERR_TEAM_INVITE_INVALID', 'Unknown join code');
      if (invite.used_at !== null) throw forbidden('SVC_ERR_TEAM_INVITE_INVALID', 'Join code already used');
      if (Date.parse(invite.expires_at) <= this.#ctx.clock.now().getTime()) throw forbidden('SVC_ERR_TEAM_INVITE_INVALID', 'Join code expired');
      const issued = this.#teams.addMember(invite.team_id, { did_key, alias: invite.alias, lifetime: invite.lifetime });
      useInvite(db, invite.invite_id, this.#ctx.clock.now().toISOString(), issued.certificate.certificate_id);
      return issued;
    })();
  }
}
