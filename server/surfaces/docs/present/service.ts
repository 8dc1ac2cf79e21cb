/**
 * Present links (spec §3, §4.7; docs/adr/0006-library-and-document-surfaces.md): mint, revoke,
 * list, and resolve a token for the public `/present/{token}` pages. A token is 32 random bytes in
 * base64url, shown once; only its sha256 is stored (migration 0010). Valid means not revoked and
 * `expires_at > now`; anything else resolves to nothing, and the public pages say no more than "not
 * found".
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ActingAs } from '../../../../contract/acting-as.ts';
import type { DocumentDetail } from '../../../../contract/docs/documents.ts';
import type { MintedLink, MintInput, PresentLinkSummary } from '../../../../contract/docs/present.ts';
import { EDITOR_NAME_MAX } from '../../../../contract/docs/rules.ts';
import type { TeamMember } from '../../../auth/team-envelope.ts';
import type { NodeContext } from '../../../context.ts';
import { sha256Hex } from '../../../crypto/encoding.ts';
import { docsTopic } from '../../../events/bus.ts';
import { conflict, notFound } from '../../../errors.ts';
import type { Documents } from '../documents/service.ts';
import {
  findLinkByToken,
  findTeamLink,
  insertPresentLink,
  listTeamLinks,
  revokeLink,
  toPresentLinkSummary,
  toResolvedLink,
  type LinkKey,
  type ResolvedLink,
} from './store.ts';
import type { DocsUrls } from '../urls.ts';

/** A valid link, resolved from its token. */

/** Default and maximum lifetime of a link: upstream's, 1 day and 7 days. */
export const PRESENT_TTL_DEFAULT_SECONDS = 86_400;
export const PRESENT_TTL_MAX_SECONDS = 604_800;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const LINK_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  readonly #urls: DocsUrls;

  constructor(ctx: NodeContext, documents: Documents, urls: DocsUrls) {
    this.#ctx = ctx;
    this.#documents = documents;
    this.#urls = urls;
  }

  /** `actingAs`: the identity the app acted as, when the owner member signed for it (teams/acting-as.ts). */
  mint(member: TeamMember, input: MintInput, actingAs: ActingAs | null): MintedLink {
    const doc = this.#documents.get(member.team_id, input.slug);
    const version = input.version ?? doc.current_version;
    if (version > doc.current_version) throw notFound('SVC_ERR_DOCUMENT_VERSION_NOT_FOUND', `Document ${input.slug} has no version ${version}`);
    const ttl = Math.min(input.ttl_seconds ?? PRESENT_TTL_DEFAULT_SECONDS, PRESENT_TTL_MAX_SECONDS);
    const now = this.#ctx.clock.now();
    const expiresAt = new Date(now.getTime() + ttl * 1000).toISOString();
    const token = randomBytes(32).toString('base64url');
    const linkId = randomUUID();
    const editable = input.editable ?? false;
    insertPresentLink(this.#ctx.db, {
      token_sha256: tokenKey(token),
      link_id: linkId,
      document_id: doc.document_id,
      version_number: version,
      editable,
      expires_at: expiresAt,
      minter: member,
      acting_as: actingAs,
      created_at: now.toISOString(),
    });
    // The owner's open list of links hears about it (a `docs_changed` nudge on the owner feed).
    this.#ctx.bus.publish(docsTopic(member.team_id));
    return { token, url: this.#urls.present(token), link_id: linkId, slug: doc.slug, version, editable, ttl_seconds: ttl, expires_at: expiresAt };
  }

  /**
   * Idempotent; a link that is not one of the team's is not found. Ours: the link's `link_id`
   * works in place of its token, since a listing never shows tokens and a link must stay revocable.
   */
  revoke(teamId: string, tokenOrLinkId: string): { revoked: true } {
    const key: LinkKey | null = TOKEN_PATTERN.test(tokenOrLinkId)
      ? { token_sha256: tokenKey(tokenOrLinkId) }
      : LINK_ID_PATTERN.test(tokenOrLinkId)
        ? { link_id: tokenOrLinkId.toLowerCase() }
        : null;
    const row = key === null ? undefined : findTeamLink(this.#ctx.db, teamId, key);
    if (!row) throw notFound('SVC_ERR_PRESENT_LINK_NOT_FOUND', 'No such present link');
    if (row.revoked_at === null) {
      revokeLink(this.#ctx.db, row.link_id, this.#ctx.clock.now().toISOString());
      this.#ctx.bus.publish(docsTopic(teamId));
    }
    return { revoked: true };
  }

  list(teamId: string): PresentLinkSummary[] {
    return listTeamLinks(this.#ctx.db, teamId).map(toPresentLinkSummary);
  }

  /** The link behind a token when it is valid now; null for unknown, revoked or expired. */
  resolve(token: string): ResolvedLink | null {
    if (!TOKEN_PATTERN.test(token)) return null;
    const row = findLinkByToken(this.#ctx.db, tokenKey(token));
    if (!row || row.revoked_at !== null) return null;
    if (Date.parse(row.expires_at) <= this.#ctx.clock.now().getTime()) return null;
    return toResolvedLink(row);
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
      throw conflict('SVC_ERR_DOCUMENT_VERSION_STALE', {
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
