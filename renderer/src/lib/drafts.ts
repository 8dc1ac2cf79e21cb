/**
 * Local drafts of documents: what the owner typed and has not yet saved as a version, kept in
 * the window's storage (localStorage) so that nothing is lost when the window closes, the node
 * is unreachable, or a save fails. A draft names the version it was started from, so a save can
 * tell when someone else saved in between. A draft of a document that does not exist on the node
 * yet (made while the node could not be reached) has `baseVersion` null and carries its title.
 *
 * Keys: `svc-node.draft@<node origin>|<team id>|<slug>`; one JSON value each.
 */
import { DOCUMENT_SLUG } from '../../../contract/docs/rules.ts';
import type { DocumentSummary } from '../api/docs.ts';

export interface DocumentDraft {
  teamId: string;
  slug: string;
  /** The version the draft started from; null for a document not yet created on the node. */
  baseVersion: number | null;
  title: string;
  body: string;
  /** ISO time of the last keystroke kept. */
  updatedAt: string;
}

/** The part of the Web Storage API used here (localStorage in the app, a Map in tests). */
export type DraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

function isDraft(value: unknown): value is DocumentDraft {
  if (typeof value !== 'object' || value === null) return false;
  const d = value as Record<string, unknown>;
  return (
    typeof d.teamId === 'string' &&
    typeof d.slug === 'string' &&
    (d.baseVersion === null || (typeof d.baseVersion === 'number' && Number.isInteger(d.baseVersion))) &&
    typeof d.title === 'string' &&
    typeof d.body === 'string' &&
    typeof d.updatedAt === 'string'
  );
}

export class DraftStore {
  readonly #storage: DraftStorage;
  readonly #prefix: string;

  /** `origin`: the node's origin, so that two nodes opened in one browser never share drafts. */
  constructor(storage: DraftStorage, origin: string) {
    this.#storage = storage;
    this.#prefix = `svc-node.draft@${origin}|`;
  }

  #key(teamId: string, slug: string): string {
    return `${this.#prefix}${teamId}|${slug}`;
  }

  get(teamId: string, slug: string): DocumentDraft | null {
    const raw = this.#storage.getItem(this.#key(teamId, slug));
    if (raw === null) return null;
    try {
      const parsed: unknown = JSON.parse(raw);
      return isDraft(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }

  /** Keeps the draft; false when the storage refused it (full), so the UI can say so. */
  put(draft: DocumentDraft): boolean {
    try {
      this.#storage.setItem(this.#key(draft.teamId, draft.slug), JSON.stringify(draft));
      return true;
    } catch {
      return false;
    }
  }

  remove(teamId: string, slug: string): void {
    this.#storage.removeItem(this.#key(teamId, slug));
  }

  /** The team's drafts, most recently edited first. */
  list(teamId: string): DocumentDraft[] {
    const mine = `${this.#prefix}${teamId}|`;
    const drafts: DocumentDraft[] = [];
    for (let i = 0; i < this.#storage.length; i++) {
      const key = this.#storage.key(i);
      if (key === null || !key.startsWith(mine)) continue;
      const draft = this.get(teamId, key.slice(mine.length));
      if (draft !== null) drafts.push(draft);
    }
    return drafts.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }
}

/** A row of the Documents list: a document on the node, or a draft of one not yet created there. */
export interface DocumentRow {
  slug: string;
  title: string;
  /** Null for a document that exists only as a local draft. */
  version: number | null;
  updatedAt: string;
  hasDraft: boolean;
}

/**
 * The list's rows: the documents read from the node so far (filtered there by `query`), and
 * before them the drafts of documents the node did not list: not yet created, or on pages not
 * read yet (they would otherwise hide until scrolled to), filtered here by title or slug.
 */
export function documentRows(drafts: readonly DocumentDraft[], documents: readonly DocumentSummary[], query: string): DocumentRow[] {
  const draftSlugs = new Set(drafts.map((d) => d.slug));
  const onNode = new Set(documents.map((d) => d.slug));
  const needle = query.trim().toLowerCase();
  const local = drafts
    .filter((d) => !onNode.has(d.slug))
    .filter((d) => needle === '' || d.title.toLowerCase().includes(needle) || d.slug.toLowerCase().includes(needle))
    .map((d) => ({ slug: d.slug, title: d.title, version: d.baseVersion, updatedAt: d.updatedAt, hasDraft: true }));
  const remote = documents.map((d) => ({ slug: d.slug, title: d.title, version: d.current_version, updatedAt: d.updated_at, hasDraft: draftSlugs.has(d.slug) }));
  return [...local, ...remote];
}

/**
 * Letters that Unicode does not decompose into a base letter and marks, spelled the way they are
 * usually transliterated (issue 14: "Ünïcødé" became `unic-de`).
 */
const TRANSLITERATE: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
  ŋ: 'ng',
  ħ: 'h',
  ŧ: 't',
  ĸ: 'k',
};

/**
 * A slug from a title: lowercase ASCII words joined by `-`, as the node accepts them (≤ 160 chars,
 * SLUG_PATTERN): accents dropped (NFKD, then the combining marks removed), the letters above
 * spelled out, anything else a separator.
 */
export function slugFromTitle(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^ -~]/gu, (c) => TRANSLITERATE[c] ?? c)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 160)
    .replace(/-+$/, '');
  return slug;
}

/** The node's slug rule (contract/docs/rules.ts): a letter or digit, then letters, digits, ".", "_" or "-"; at most 160. */
export const SLUG_PATTERN = DOCUMENT_SLUG;
