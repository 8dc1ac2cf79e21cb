/**
 * The `teams` and `team_certificates` tables: the teams whose key this node holds and the member
 * certificates it issued. The only module that reads or writes them, and the home of the
 * membership rule every "is this identity a member" query uses.
 */
import type { Db } from '../context.ts';
import type { CertificateLifetime } from '../crypto/team-certificate.ts';
import type { Member, Team } from '../../contract/node/teams.ts';

export interface TeamRow {
  team_id: string;
  name: string;
  domain: string;
  /** The team key in custody. */
  key_id: string;
  team_did_key: string;
  owner_certificate_id: string;
  created_at: string;
}

export interface CertificateRow {
  certificate_id: string;
  team_id: string;
  member_did_key: string;
  member_did_aw: string | null;
  member_address: string | null;
  alias: string;
  lifetime: CertificateLifetime;
  issued_at: string;
  /** The signed certificate, as JSON. */
  certificate: string;
  /** JSON array of the scopes it grants. */
  scopes: string;
  /** Set for the owner member, whose key custody holds. */
  member_key_id: string | null;
  revoked_at: string | null;
}

/**
 * Team membership, as SQL over the team_certificates row `certificate`: it is unrevoked and names
 * the identity (SQL expressions `didKey`, `didAw`) by its current did:key or by its did:svc.
 * Subscriptions, deliveries of app events and every teamsOf answer go by this one rule.
 */
export function membershipSql(certificate: string, didKey: string, didAw: string): string {
  return `${certificate}.revoked_at IS NULL AND (${certificate}.member_did_key = ${didKey} OR ${certificate}.member_did_aw = ${didAw})`;
}

/** SQL: the team_certificates row `certificate` grants the scope the SQL expression `scope` names. */
export function grantsScopeSql(certificate: string, scope: string): string {
  return `EXISTS (SELECT 1 FROM json_each(${certificate}.scopes) granted WHERE granted.value = ${scope})`;
}

export function toTeam({ key_id: _key, ...row }: TeamRow, memberCount: number): Team {
  return { ...row, member_count: memberCount };
}

export function toMember(row: CertificateRow, ownerCertificateId: string): Member {
  return {
    certificate_id: row.certificate_id,
    team_id: row.team_id,
    alias: row.alias,
    member_did_key: row.member_did_key,
    member_did_aw: row.member_did_aw,
    member_address: row.member_address,
    lifetime: row.lifetime,
    issued_at: row.issued_at,
    revoked_at: row.revoked_at,
    scopes: certificateScopes(row),
    owner: row.certificate_id === ownerCertificateId,
  };
}

export function certificateScopes(row: Pick<CertificateRow, 'scopes'>): string[] {
  return JSON.parse(row.scopes) as string[];
}

export function findTeam(db: Db, teamId: string): TeamRow | undefined {
  return db.prepare(`SELECT * FROM teams WHERE team_id = ?`).get(teamId) as TeamRow | undefined;
}

export function listTeams(db: Db): TeamRow[] {
  return db.prepare(`SELECT * FROM teams ORDER BY created_at, team_id`).all() as TeamRow[];
}

export function teamDidKeyOf(db: Db, teamId: string): string | undefined {
  return db.prepare(`SELECT team_did_key FROM teams WHERE team_id = ?`).pluck().get(teamId) as string | undefined;
}

export function insertTeam(db: Db, row: TeamRow): void {
  db.prepare(
    `INSERT INTO teams (team_id, name, domain, key_id, team_did_key, owner_certificate_id, created_at)
     VALUES (@team_id, @name, @domain, @key_id, @team_did_key, @owner_certificate_id, @created_at)`,
  ).run(row);
}

/** Certificates of the team that are not revoked. */
export function activeMemberCount(db: Db, teamId: string): number {
  return db.prepare(`SELECT COUNT(*) FROM team_certificates WHERE team_id = ? AND revoked_at IS NULL`).pluck().get(teamId) as number;
}

export function activeAliasTaken(db: Db, teamId: string, alias: string): boolean {
  return db.prepare(`SELECT 1 FROM team_certificates WHERE team_id = ? AND alias = ? AND revoked_at IS NULL`).get(teamId, alias) !== undefined;
}

export function insertCertificate(db: Db, row: Omit<CertificateRow, 'revoked_at'>): void {
  db.prepare(
    `INSERT INTO team_certificates (certificate_id, team_id, member_did_key, member_did_aw, member_address, alias, lifetime, issued_at, certificate, scopes, member_key_id)
     VALUES (@certificate_id, @team_id, @member_did_key, @member_did_aw, @member_address, @alias, @lifetime, @issued_at, @certificate, @scopes, @member_key_id)`,
  ).run(row);
}

export function findCertificate(db: Db, certificateId: string): CertificateRow | undefined {
  return db.prepare(`SELECT * FROM team_certificates WHERE certificate_id = ?`).get(certificateId) as CertificateRow | undefined;
}

/** Every certificate of the team, revoked ones too, in the order they were issued. */
export function certificatesOf(db: Db, teamId: string): CertificateRow[] {
  return db.prepare(`SELECT * FROM team_certificates WHERE team_id = ? ORDER BY issued_at, rowid`).all(teamId) as CertificateRow[];
}

export function revokeCertificate(db: Db, certificateId: string, revokedAt: string): void {
  db.prepare(`UPDATE team_certificates SET revoked_at = ? WHERE certificate_id = ? AND revoked_at IS NULL`).run(revokedAt, certificateId);
}

/**
 * The teams the identity is a member of ({@link membershipSql}), in id order; with `scope`, only
 * those where such a certificate grants it.
 */
export function teamsOfMember(db: Db, identity: { did_key: string; did_aw: string | null }, scope?: string): string[] {
  return db
    .prepare(
      `SELECT DISTINCT team_id FROM team_certificates c
       WHERE ${membershipSql('c', '@didKey', '@didAw')} AND (@scope IS NULL OR ${grantsScopeSql('c', '@scope')}) ORDER BY team_id`,
    )
    .pluck()
    .all({ didKey: identity.did_key, didAw: identity.did_aw, scope: scope ?? null }) as string[];
}
