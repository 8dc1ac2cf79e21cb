/**
 * Present links (spec §3, §4.7; research B4): mint, revoke, list, and resolve a token for the
 * public `/present/{token}` pages. A token is 32 random bytes in base64url, shown once; only its
 * sha256 is stored (migration 0010). Valid means not revoked and `expires_at > now`; anything else
 * resolves to nothing, and the public pages say no more than "not found".
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { DocumentDetail } from '../../../contract/docs/documents.ts';
import type { MintedLink, MintInput, PresentLinkSummary } from '../../../contract/docs/present.ts';
import { EDITOR_NAME_MAX } from '../../../contract/docs/rules.ts';
import type { TeamMember } from '../../auth/team-envelope.ts';
import type { NodeContext } from '../../context.ts';
import { sha256Hex } from '../../crypto/encoding.ts';
import { docsTopic } from '../../events/bus.ts';
import { DetailedServiceError, notFound } from '../../errors.ts';
import type { Documents } from './documents.ts';

/** Default and maximum lifetime of a link (research B4: 1 day, 7 days). */
export const PRESENT_TTL_DEFAULT_SECONDS = 86_400;
export const PRESENT_TTL_MAX_SECONDS = 604_800;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const LINK_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

interface LinkRow {
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
}

const LINK_COLUMNS = `l.link_id, l.team_id, l.document_id, d.slug, d.title, l.version_number, l.editable, l.expires_at, l.revoked_at, l.created_by_did_key,
  l.created_by_did_aw, l.created_by_address, l.created_by_alias, l.certificate_id, l.created_at`;

const tokenKey = (token: string): string => sha256Hex(token);

/** The name an editor typed, whitespace collapsed and cut to 120 characters; blank is none. */
export function editorName(name: string | undefined): string | null {
  if (name === undefined) return null;
  const collapsed = name.replace(/\s+/gu, ' ').trim();
  return collapsed === '' ? null : [...collapsed].slice(0, EDITOR_NAME_MAX).join('');
}

export class PresentLinks {
  readonly #ctx: NodeContext;
  readonly #documents: Documents;

  constructor(ctx: NodeContext, documents: Documents) {
    this.#ctx = ctx;
    this.#documents = documents;
  }

  mint(member: TeamMember, input: MintInput): MintedLink {
    const doc = this.#documents.get(member.team_id, input.slug);
    const version = input.version ?? doc.current_version;
    if (version > doc.current_version) throw notFound(`Document ${input.slug} has no version ${version}`);
    const ttl = Math.min(input.ttl_seconds ?? PRESENT_TTL_DEFAULT_SECONDS, PRESENT_TTL_MAX_SECONDS);
    const now = this.#ctx.clock.now();
    const expiresAt = new Date(now.getTime() + ttl * 1000).toISOString();
    const token = randomBytes(32).toString('base64url');
    const linkId = randomUUID();
    const editable = input.editable ?? false;
    this.#ctx.db
      .prepare(
        `INSERT INTO present_links (token_sha256, link_id, team_id, document_id, version_number, editable, expires_at, revoked_at,
           created_by_did_key, created_by_did_aw, created_by_address, created_by_alias, certificate_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        tokenKey(token),
        linkId,
        member.team_id,
        doc.document_id,
        version,
        editable ? 1 : 0,
        expiresAt,
        member.did_key,
        member.did_aw,
        member.address,
        member.alias,
        member.certificate_id,
        now.toISOString(),
      );
    // The owner's open list of links hears about it (a `docs_changed` nudge on the owner feed).
    this.#ctx.bus.publish(docsTopic(member.team_id));
    const base = (this.#ctx.urls.public_url ?? this.#ctx.urls.docs_url).replace(/\/+$/, '');
    return { token, url: `${base}/present/${token}`, link_id: linkId, slug: doc.slug, version, editable, ttl_seconds: ttl, expires_at: expiresAt };
  }

  /**
   * Idempotent; a link that is not one of the team's is not found. Ours: the link's `link_id`
   * works in place of its token, since a listing never shows tokens and a link must stay revocable.
   */
  revoke(teamId: string, tokenOrLinkId: string): { revoked: true } {
    const column = TOKEN_PATTERN.test(tokenOrLinkId) ? 'token_sha256' : LINK_ID_PATTERN.test(tokenOrLinkId) ? 'link_id' : null;
    const key = column === 'token_sha256' ? tokenKey(tokenOrLinkId) : tokenOrLinkId.toLowerCase();
    const row =
      column === null
        ? undefined
        : (this.#ctx.db.prepare(`SELECT link_id, revoked_at FROM present_links WHERE ${column} = ? AND team_id = ?`).get(key, teamId) as
            | { link_id: string; revoked_at: string | null }
            | undefined);
    if (!row) throw notFound('No such present link');
    if (row.revoked_at === null) {
      this.#ctx.db
        .prepare(`UPDATE present_links SET revoked_at = ? WHERE link_id = ? AND revoked_at IS NULL`)
        .run(this.#ctx.clock.now().toISOString(), row.link_id);
      this.#ctx.bus.publish(docsTopic(teamId));
    }
    return { revoked: true };
  }

  list(teamId: string): PresentLinkSummary[] {
    const rows = this.#ctx.db
      .prepare(
        `SELECT ${LINK_COLUMNS} FROM present_links l JOIN documents d ON d.document_id = l.document_id
         WHERE l.team_id = ? ORDER BY l.created_at DESC, l.link_id`,
      )
      .all(teamId) as LinkRow[];
    return rows.map((row) => ({
      link_id: row.link_id,
      slug: row.slug,
      version: row.version_number,
      editable: row.editable === 1,
      expires_at: row.expires_at,
      revoked_at: row.revoked_at,
      created_by_alias: row.created_by_alias,
      created_at: row.created_at,
    }));
  }

  /** The link behind a token when it is valid now; null for unknown, revoked or expired. */
  resolve(token: string): ResolvedLink | null {
    if (!TOKEN_PATTERN.test(token)) return null;
    const row = this.#ctx.db
      .prepare(`SELECT ${LINK_COLUMNS} FROM present_links l JOIN documents d ON d.document_id = l.document_id WHERE l.token_sha256 = ?`)
      .get(tokenKey(token)) as LinkRow | undefined;
    if (!row || row.revoked_at !== null) return null;
    if (Date.parse(row.expires_at) <= this.#ctx.clock.now().getTime()) return null;
    return {
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
        // Research B4: a save through a link names the minter, but no address.
        address: null,
        lifetime: 'persistent',
        scopes: [],
      },
    };
  }

  /** The pinned body of a read link. */
  pinnedBody(link: ResolvedLink): string {
    return this.#documents.version(link.team_id, link.slug, link.version).body ?? '';
  }

  /** The latest version of the link's document (editable links work over it). */
  latest(link: ResolvedLink): DocumentDetail {
    return this.#documents.get(link.team_id, link.slug);
  }

  /**
   * A save through an editable link: appends a version when `baseVersion` is the latest, else a
   * 409 whose detail carries the latest body and version so the editor can reconcile. Check and
   * append run in one synchronous stretch, so no other write slips in between.
   */
  edit(link: ResolvedLink, body: string, baseVersion: number, name: string | undefined): { version_number: number } {
    const latest = this.latest(link);
    if (latest.current_version !== baseVersion) {
      throw new DetailedServiceError(409, 'SVC_ERR_CONFLICT', {
        message: `The document changed since version ${baseVersion}; the latest is version ${latest.current_version}`,
        version_number: latest.current_version,
        body: latest.body,
      });
    }
    const saved = this.#documents.append(link.team_id, link.slug, Buffer.from(body, 'utf8'), 'present-link', {
      member: link.minter,
      editor_name: editorName(name),
    });
    return { version_number: saved.current_version };
  }
}
