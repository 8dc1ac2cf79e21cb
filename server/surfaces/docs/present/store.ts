/**
 * The `present_links` table: capability links to a team document, keyed by the sha256 of their
 * token (never the token), named by `link_id` in listings, with their minter kept for the saves
 * an editable link makes, and the identity the app acted as when it made one (migration 0036).
 * The only module that reads or writes it; its reads join `documents` for the slug and title a
 * link shows.
 */
import type { ActingAs } from '../../../../contract/acting-as.ts';
import type { PresentLinkSummary } from '../../../../contract/docs/present.ts';
import type { TeamMember } from '../../../auth/team-envelope.ts';
import type { Db } from '../../../context.ts';
import { actingAsColumns, actingAsOfColumns } from '../../../teams/acting-as-columns.ts';

/** A link row with its document's slug and title. */
export interface PresentLinkRow {
  link_id: string;
  team_id: string;
  document_id: string;
  slug: string;
  title: string;
  version_number: number;
  editable: number;
  expires_at: string;
  revoked_at: string | null;
  created_by_did_key: string;
  created_by_did_aw: string | null;
  created_by_address: string | null;
  created_by_alias: string;
  certificate_id: string;
  created_at: string;
  acting_as_agent_id: string | null;
  acting_as_alias: string | null;
  acting_as_name: string | null;
  acting_as_address: string | null;
}

export interface NewPresentLinkRow {
  token_sha256: string;
  link_id: string;
  document_id: string;
  version_number: number;
  editable: boolean;
  expires_at: string;
  minter: TeamMember;
  /** The identity the app acted as, when the owner member signed for it; else null. */
  acting_as: ActingAs | null;
  created_at: string;
}

/** A valid link, resolved from its token. */
export interface ResolvedLink {
  team_id: string;
  document_id: string;
  slug: string;
  /** The document's title: the page's `<title>`. */
  title: string;
  version: number;
  editable: boolean;
  minter: TeamMember;
}

/** How a revoke names a link: by its token's hash or by its link_id. */
export type LinkKey = { token_sha256: string } | { link_id: string };

const LINK_COLUMNS = `l.link_id, l.team_id, l.document_id, d.slug, d.title, l.version_number, l.editable, l.expires_at, l.revoked_at, l.created_by_did_key,
  l.created_by_did_aw, l.created_by_address, l.created_by_alias, l.certificate_id, l.created_at, l.acting_as_agent_id, l.acting_as_alias, l.acting_as_name,
  l.acting_as_address`;

/** A listing's entry: never the token (which is not stored anyway). */
export const toPresentLinkSummary = (row: PresentLinkRow): PresentLinkSummary => ({
  link_id: row.link_id,
  slug: row.slug,
  version: row.version_number,
  editable: row.editable === 1,
  expires_at: row.expires_at,
  revoked_at: row.revoked_at,
  created_by_alias: row.created_by_alias,
  created_by_acting_as: actingAsOfColumns(row.acting_as_agent_id, row.acting_as_alias, row.acting_as_name, row.acting_as_address),
  created_at: row.created_at,
});

/** The link as its pages use it (validity is the caller's to check), the minter as the member a link save is made as. */
export const toResolvedLink = (row: PresentLinkRow): ResolvedLink => ({
  team_id: row.team_id,
  document_id: row.document_id,
  slug: row.slug,
  title: row.title,
  version: row.version_number,
  editable: row.editable === 1,
  minter: {
    team_id: row.team_id,
    certificate_id: row.certificate_id,
    alias: row.created_by_alias,
    did_key: row.created_by_did_key,
    did_aw: row.created_by_did_aw,
    // As upstream attributes it: a save through a link names the minter, but no address.
    address: null,
    lifetime: 'persistent',
    scopes: [],
  },
});

export function insertPresentLink(db: Db, row: NewPresentLinkRow): void {
  const { minter } = row;
  db.prepare(
    `INSERT INTO present_links (token_sha256, link_id, team_id, document_id, version_number, editable, expires_at, revoked_at,
       created_by_did_key, created_by_did_aw, created_by_address, created_by_alias, certificate_id, created_at,
       acting_as_agent_id, acting_as_alias, acting_as_name, acting_as_address)
     VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    row.token_sha256,
    row.link_id,
    minter.team_id,
    row.document_id,
    row.version_number,
    row.editable ? 1 : 0,
    row.expires_at,
    minter.did_key,
    minter.did_aw,
    minter.address,
    minter.alias,
    minter.certificate_id,
    row.created_at,
    ...actingAsColumns(row.acting_as),
  );
}

/** The link behind a token's hash, whatever its state. */
export function findLinkByToken(db: Db, tokenSha256: string): PresentLinkRow | undefined {
  return db
    .prepare(`SELECT ${LINK_COLUMNS} FROM present_links l JOIN documents d ON d.document_id = l.document_id WHERE l.token_sha256 = ?`)
    .get(tokenSha256) as PresentLinkRow | undefined;
}

/** One of the team's links, by its token's hash or its link_id: its id and when it was revoked. */
export function findTeamLink(db: Db, teamId: string, key: LinkKey): { link_id: string; revoked_at: string | null } | undefined {
  const [column, value] = 'token_sha256' in key ? ['token_sha256', key.token_sha256] : ['link_id', key.link_id];
  return db.prepare(`SELECT link_id, revoked_at FROM present_links WHERE ${column} = ? AND team_id = ?`).get(value, teamId) as
    { link_id: string; revoked_at: string | null } | undefined;
}

/** The team's links, newest first. */
export function listTeamLinks(db: Db, teamId: string): PresentLinkRow[] {
  return db
    .prepare(
      `SELECT ${LINK_COLUMNS} FROM present_links l JOIN documents d ON d.document_id = l.document_id
       WHERE l.team_id = ? ORDER BY l.created_at DESC, l.link_id`,
    )
    .all(teamId) as PresentLinkRow[];
}

/** Revokes a link not revoked yet (a revoked one keeps its first time). */
export function revokeLink(db: Db, linkId: string, at: string): void {
  db.prepare(`UPDATE present_links SET revoked_at = ? WHERE link_id = ? AND revoked_at IS NULL`).run(at, linkId);
}

/**
 * Revokes every still-open editable link minted by a certificate; returns how many. An editable
 * link saves versions credited to the certificate that minted it, so it is a standing grant of
 * that certificate's docs:write and closes with it (TeamService.revoke, in the same transaction).
 * Read links stay open until they expire or are revoked one by one: each shows one pinned version
 * the member could already share, often handed to someone outside the team.
 */
export function revokeEditableLinksOf(db: Db, certificateId: string, revokedAt: string): number {
  return db.prepare(`UPDATE present_links SET revoked_at = ? WHERE certificate_id = ? AND editable = 1 AND revoked_at IS NULL`).run(revokedAt, certificateId)
    .changes;
}
