/**
 * Teams whose key this node holds (DESIGN §4): the node issues and revokes the certificates, and
 * is the registry team-certificate auth checks against (TeamKeyring). Each team also gets an
 * owner member whose key custody holds, so the node's owner (the UI) can act on the library and
 * document surfaces through the same envelope every other member uses.
 */
import { randomUUID } from 'node:crypto';
import { buildTeamHeaders, type TeamHeaders } from '../auth/team-envelope-client.ts';
import type { TeamKeyring } from '../auth/team-envelope.ts';
import { signingTimestamp } from '../clock.ts';
import type { NodeContext } from '../context.ts';
import type { JsonValue } from '../crypto/canonical-json.ts';
import { isDidKey } from '../crypto/did-key.ts';
import { normalizeDomain } from '../crypto/dns-txt.ts';
import { encodeCertificate, issueCertificate } from '../crypto/team-certificate.ts';
import { conflict, forbidden, invalid, notFound } from '../errors.ts';
import { TEAMS_TOPIC } from '../events/bus.ts';
import { ADDRESS_NAME } from '../../contract/core/namespaces.ts';
import { DEFAULT_MEMBER_SCOPES, isTeamScope, TEAM_SCOPES, type TeamScope } from './scopes.ts';
import {
  activeAliasTaken,
  activeMemberCount,
  certificateScopes,
  certificatesOf,
  findCertificate,
  findTeam,
  insertCertificate,
  insertTeam,
  listTeams,
  revokeCertificate,
  teamDidKeyOf,
  teamsOfMember,
  toMember,
  toTeam,
  type CertificateRow,
  type TeamRow,
} from './store.ts';
import { MEMBER_ALIAS, MEMBER_ALIAS_RULE } from '../../contract/core-rules.ts';
import { OWNER_ALIAS } from '../../contract/node/teams.ts';
import type { AddMemberInput, IssuedCertificate, Member, Revoked, Team } from '../../contract/node/teams.ts';

export { OWNER_ALIAS };
const ALIAS = MEMBER_ALIAS;
const DID_SVC = /^did:(svc|aw):[1-9A-HJ-NP-Za-km-z]{1,64}$/;

/** A 422 naming one body field: the teams' and their invites' one way of refusing a field. */
export const bodyIssue = (field: string, msg: string) => invalid('SVC_ERR_VALIDATION', [{ loc: ['body', field], msg, type: 'value_error' }]);

/** `<domain>/<name>` with a valid domain and address name. */
export function validAddress(address: string): boolean {
  const slash = address.indexOf('/');
  if (slash < 0) return false;
  const domain = address.slice(0, slash);
  return normalizeDomain(domain) === domain && ADDRESS_NAME.test(address.slice(slash + 1));
}

/** What team auth asks about a certificate on every request (kept frozen in memory). */
interface KnownCertificate {
  readonly team_id: string;
  readonly member_did_key: string;
  readonly revoked_at: string | null;
  readonly scopes: readonly string[];
}

/** Closes what a revoked certificate had granted elsewhere; returns how many grants it closed. */
export type GrantCloser = (certificateId: string, revokedAt: string) => number;

export class TeamService implements TeamKeyring {
  readonly #ctx: NodeContext;
  readonly #teamKeys = new Map<string, string>();
  readonly #issued = new Map<string, KnownCertificate>();
  readonly #grantClosers: GrantCloser[] = [];
  readonly #revokeListeners: ((certificateId: string) => void)[] = [];

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  /**
   * Another surface's standing grants that a revocation must close with the certificate (the
   * documents surface's editable present links), run in the revocation's transaction. Registered
   * at wiring, so teams never depends on a surface.
   */
  closesOnRevoke(closer: GrantCloser): void {
    this.#grantClosers.push(closer);
  }

  /** Told of each revocation once it has committed (the core ends the member's streams). */
  afterRevoke(listener: (certificateId: string) => void): void {
    this.#revokeListeners.push(listener);
  }

  #row(teamId: string): TeamRow | null {
    return findTeam(this.#ctx.db, teamId) ?? null;
  }

  #require(teamId: string): TeamRow {
    const row = this.#row(teamId);
    if (!row) throw notFound('SVC_ERR_TEAM_NOT_FOUND', `Team ${teamId} not found`);
    return row;
  }

  #view(row: TeamRow): Team {
    return toTeam(row, activeMemberCount(this.#ctx.db, row.team_id));
  }

  list(): Team[] {
    return listTeams(this.#ctx.db).map((row) => this.#view(row));
  }

  get(teamId: string): Team {
    return this.#view(this.#require(teamId));
  }

  /** Creates the team key and the owner member in custody; `team_id` is `<name>:<domain>`. */
  create(name: string, domainInput: string): Team {
    if (!ADDRESS_NAME.test(name)) throw bodyIssue('name', 'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit');
    const domain = normalizeDomain(domainInput);
    if (domain === null) throw bodyIssue('domain', 'not a valid domain name');
    const teamId = `${name}:${domain}`;
    if (this.#row(teamId)) throw conflict('SVC_ERR_TEAM_EXISTS', `Team ${teamId} already exists`);

    const { custody, db } = this.#ctx;
    const teamKey = custody.createSigningKey('team');
    const ownerKey = custody.createSigningKey('team');
    try {
      const now = this.#ctx.clock.now().toISOString();
      const ownerCertificateId = randomUUID();
      db.transaction(() => {
        if (this.#row(teamId)) throw conflict('SVC_ERR_TEAM_EXISTS', `Team ${teamId} already exists`);
        insertTeam(db, {
          team_id: teamId,
          name,
          domain,
          key_id: teamKey.keyId,
          team_did_key: teamKey.didKey,
          owner_certificate_id: ownerCertificateId,
          created_at: now,
        });
        this.#issue(this.#require(teamId), {
          certificateId: ownerCertificateId,
          input: { did_key: ownerKey.didKey, alias: OWNER_ALIAS, lifetime: 'persistent', scopes: [...TEAM_SCOPES] },
          memberKeyId: ownerKey.keyId,
        });
      })();
    } catch (error) {
      custody.destroyKey(teamKey.keyId);
      custody.destroyKey(ownerKey.keyId);
      throw error;
    }
    // Committed: an owner's UI open elsewhere shows the team without a reload (CLI, owner API).
    this.#ctx.bus.publish(TEAMS_TOPIC);
    return this.get(teamId);
  }

  /** Issues a certificate for a member who keeps its own key. */
  addMember(teamId: string, input: AddMemberInput): IssuedCertificate {
    const team = this.#require(teamId);
    if (!isDidKey(input.did_key)) throw bodyIssue('did_key', 'not an Ed25519 did:key');
    if (!ALIAS.test(input.alias)) throw bodyIssue('alias', MEMBER_ALIAS_RULE);
    if (input.did_aw !== undefined && !DID_SVC.test(input.did_aw)) throw bodyIssue('did_aw', 'not a did:svc stable id');
    if (input.address !== undefined && !validAddress(input.address)) throw bodyIssue('address', 'must be <domain>/<name>');
    for (const scope of input.scopes ?? []) {
      if (!isTeamScope(scope)) throw bodyIssue('scopes', `unknown scope ${scope} (allowed: ${TEAM_SCOPES.join(', ')})`);
    }
    const issued = this.#ctx.db.transaction(() => this.#issue(team, { certificateId: randomUUID(), input, memberKeyId: null }))();
    this.#ctx.bus.publish(TEAMS_TOPIC);
    return issued;
  }

  #issue(
    team: TeamRow,
    { certificateId, input, memberKeyId }: { certificateId: string; input: AddMemberInput; memberKeyId: string | null },
  ): IssuedCertificate {
    const db = this.#ctx.db;
    if (activeAliasTaken(db, team.team_id, input.alias)) throw conflict('SVC_ERR_TEAM_ALIAS_TAKEN', 'Alias already active in team');
    // Upstream's default: a certificate without a lifetime is ephemeral (spec §2): upstream's
    // verifiers read a missing lifetime that way, so a persistent one must be asked for.
    const lifetime = input.lifetime ?? 'ephemeral';
    const certificate = issueCertificate(
      {
        certificate_id: certificateId,
        team_id: team.team_id,
        team_did_key: team.team_did_key,
        member_did_key: input.did_key,
        member_did_aw: input.did_aw,
        member_address: input.address,
        alias: input.alias,
        lifetime,
        issued_at: signingTimestamp(this.#ctx.clock),
      },
      (bytes) => this.#ctx.custody.sign(team.key_id, bytes),
    );
    const json = JSON.stringify(certificate);
    const scopes = [...new Set(input.scopes ?? DEFAULT_MEMBER_SCOPES)].sort();
    insertCertificate(db, {
      certificate_id: certificateId,
      team_id: team.team_id,
      member_did_key: input.did_key,
      member_did_aw: input.did_aw ?? null,
      member_address: input.address ?? null,
      alias: input.alias,
      lifetime,
      issued_at: certificate.issued_at,
      certificate: json,
      scopes: JSON.stringify(scopes),
      member_key_id: memberKeyId,
    });
    return { certificate, certificate_b64: encodeCertificate(json) };
  }

  members(teamId: string): Member[] {
    const team = this.#require(teamId);
    return certificatesOf(this.#ctx.db, teamId).map((row) => toMember(row, team.owner_certificate_id));
  }

  /**
   * The teams an identity is a member of: those with an unrevoked certificate for its current
   * did:key, or for its did:svc stable id; with `scope`, only those where such a certificate
   * holds it.
   */
  teamsOf(identity: { did_key: string; did_aw: string | null }, scope?: TeamScope): string[] {
    return teamsOfMember(this.#ctx.db, identity, scope);
  }

  /**
   * Revokes the certificate and, in the same transaction, the editable present links it minted
   * (revocation.ts); requests carrying it are refused from the next one on.
   */
  revoke(teamId: string, certificateId: string): Revoked {
    const team = this.#require(teamId);
    const row = this.#certificateRow(certificateId);
    if (!row || row.team_id !== teamId) throw notFound('SVC_ERR_TEAM_CERTIFICATE_NOT_FOUND', `Certificate ${certificateId} not found in team ${teamId}`);
    if (certificateId === team.owner_certificate_id)
      throw forbidden('SVC_ERR_TEAM_OWNER_NOT_REVOCABLE', 'The owner member cannot be revoked; the node acts for its owner through it');
    if (row.revoked_at !== null) throw conflict('SVC_ERR_TEAM_CERTIFICATE_ALREADY_REVOKED', `Certificate ${certificateId} is already revoked`);
    const revokedAt = this.#ctx.clock.now().toISOString();
    const { db } = this.#ctx;
    const closed = db.transaction(() => {
      revokeCertificate(db, certificateId, revokedAt);
      return this.#grantClosers.reduce((sum, close) => sum + close(certificateId, revokedAt), 0);
    })();
    this.#issued.delete(certificateId);
    for (const listener of this.#revokeListeners) listener(certificateId);
    this.#ctx.bus.publish(TEAMS_TOPIC);
    return { revoked: true, certificate_id: certificateId, revoked_at: revokedAt, closed_present_links: closed };
  }

  /** The four team-auth headers for a request made as the team's owner member (key in custody). */
  signAsOwner(
    teamId: string,
    request: { method: string; path: string; body?: string | undefined; aud: string; extra?: Record<string, JsonValue> | undefined },
  ): TeamHeaders {
    const team = this.#require(teamId);
    const owner = this.#certificateRow(team.owner_certificate_id);
    if (!owner || owner.member_key_id === null) throw notFound('SVC_ERR_TEAM_OWNER_NOT_FOUND', `Team ${teamId} has no owner member`);
    const keyId = owner.member_key_id;
    return buildTeamHeaders({
      ...request,
      teamId,
      certificateB64: encodeCertificate(owner.certificate),
      didKey: owner.member_did_key,
      sign: (bytes) => this.#ctx.custody.sign(keyId, bytes),
      timestamp: signingTimestamp(this.#ctx.clock),
    });
  }

  #certificateRow(certificateId: string): CertificateRow | null {
    return findCertificate(this.#ctx.db, certificateId) ?? null;
  }

  // TeamKeyring: what team-certificate auth asks on every request.

  // Both answers are kept in memory: a team's key never changes, and this service is the only
  // writer of certificates, so revoke() drops the one entry it changes.

  teamDidKey(teamId: string): string | null {
    const cached = this.#teamKeys.get(teamId);
    if (cached !== undefined) return cached;
    const didKey = teamDidKeyOf(this.#ctx.db, teamId) ?? null;
    if (didKey !== null) this.#teamKeys.set(teamId, didKey);
    return didKey;
  }

  certificate(certificateId: string): KnownCertificate | null {
    const cached = this.#issued.get(certificateId);
    if (cached !== undefined) return cached;
    const row = this.#certificateRow(certificateId);
    if (!row) return null;
    const issued: KnownCertificate = Object.freeze({
      team_id: row.team_id,
      member_did_key: row.member_did_key,
      revoked_at: row.revoked_at,
      scopes: Object.freeze(certificateScopes(row)),
    });
    if (this.#issued.size >= 4096) this.#issued.clear();
    this.#issued.set(certificateId, issued);
    return issued;
  }
}
