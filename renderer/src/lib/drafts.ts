/**
 * Local drafts of documents: what the owner typed and has not yet saved as a version, kept in
 * the window's storage (localStorage) so that nothing is lost when the window closes, the node
 * is unreachable, or a save fails. A draft names the version it was started from, so a save can
 * tell when someone else saved in between. A draft of a document that does not exist on the node
 * yet (made while the node could not be reached) has `baseVersion` null and carries its title.
 *
 * Keys: `svc-node.draft@<node origin>|<team id>|<slug>`; one JSON value each.
 *
 * Mail drafts (MailDrafts, below) are kept the same way, per identity: the mail being written
 * (a new one, or a reply per thread) until it is sent or discarded, and the sends that did not go
 * (refused, or the node could not be reached) until they are sent or discarded.
 */
import { MAX_BODY_BYTES, MAX_RECIPIENTS, MAX_SUBJECT, PRIORITIES, type Priority } from '../../../contract/core-rules.ts';
import { DOCUMENT_SLUG } from '../../../contract/docs/rules.ts';
import type { DocumentSummary } from '../api/docs.ts';
import type { Recipient } from './recipients.ts';

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

// ------------------------------------------------------------------ mail

/** A mail being written: recipients, subject, priority and body; a reply names its thread. */
export interface MailDraft {
  to: Recipient[];
  subject: string;
  body: string;
  priority: Priority;
  /** A reply's thread (the thread's first message id). */
  thread_id?: string;
}

/** A send that has not gone: the node refused it, could not be reached, or never answered. */
export interface UnsentMail {
  id: string;
  draft: MailDraft;
  /** The node's reason; null when the window closed before the node answered. */
  error: string | null;
  /** The send's own message id (one recipient): a retry is then the same send, never a second mail. */
  messageId: string | null;
  /** ISO time it was last tried. */
  triedAt: string;
}

/** Drafts kept per identity (a new mail, and a reply per thread); past this the oldest goes. */
export const MAIL_DRAFTS_KEPT = 10;
/** Unsent mail kept per identity; past this the oldest goes. */
export const UNSENT_KEPT = 10;
/** The longest body kept, in characters: the most the node takes in one mail (contract/core-rules.ts). */
export const MAIL_BODY_KEPT = MAX_BODY_BYTES;

/** Where a draft is kept: a reply by its thread, a new mail in the one slot for new mail. */
export function mailDraftSlot(draft: Pick<MailDraft, 'thread_id'>): string {
  return draft.thread_id === undefined ? 'new' : `re:${draft.thread_id}`;
}

/** Whether two drafts say the same (recipients, subject, priority, body, thread). */
export function sameMailDraft(a: MailDraft, b: MailDraft): boolean {
  return (
    a.subject === b.subject &&
    a.body === b.body &&
    a.priority === b.priority &&
    a.thread_id === b.thread_id &&
    a.to.length === b.to.length &&
    a.to.every((r, i) => r.value === b.to[i]?.value && r.kind === b.to[i].kind)
  );
}

function isRecipient(value: unknown): value is Recipient {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.value === 'string' && (r.kind === 'address' || r.kind === 'alias' || r.kind === 'did') && (r.label === null || typeof r.label === 'string');
}

function isMailDraft(value: unknown): value is MailDraft {
  if (typeof value !== 'object' || value === null) return false;
  const d = value as Record<string, unknown>;
  return (
    Array.isArray(d.to) &&
    d.to.length <= MAX_RECIPIENTS &&
    d.to.every(isRecipient) &&
    typeof d.subject === 'string' &&
    d.subject.length <= MAX_SUBJECT &&
    typeof d.body === 'string' &&
    d.body.length <= MAIL_BODY_KEPT &&
    PRIORITIES.includes(d.priority as Priority) &&
    (d.thread_id === undefined || typeof d.thread_id === 'string')
  );
}

function isUnsent(value: unknown): value is UnsentMail {
  if (typeof value !== 'object' || value === null) return false;
  const u = value as Record<string, unknown>;
  return (
    typeof u.id === 'string' &&
    isMailDraft(u.draft) &&
    (u.error === null || typeof u.error === 'string') &&
    (u.messageId === null || typeof u.messageId === 'string') &&
    typeof u.triedAt === 'string'
  );
}

function parse(raw: string | null): unknown {
  if (raw === null) return null;
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/** A kept list of unsent mail, read back; what is not unsent mail is left out. */
function unsentList(raw: string | null): UnsentMail[] {
  const list = parse(raw);
  return Array.isArray(list) ? list.filter(isUnsent) : [];
}

/** Another window's write of an identity's unsent mail: whose it is, and what was kept before and now. */
export interface UnsentChange {
  agentId: string;
  before: UnsentMail[];
  after: UnsentMail[];
}

/** Why a mail draft was not kept: longer than the node takes, or the window's storage is full. */
export type KeepProblem = 'too-long' | 'full';

/**
 * Mail drafts and unsent mail in the window's storage, per node and identity. Keys:
 * `svc-node.mail-draft@<node origin>|<agent id>|<slot>` (one draft, with when it was last
 * edited) and `svc-node.mail-unsent@<node origin>|<agent id>` (the list of unsent mail).
 */
export class MailDrafts {
  readonly #storage: DraftStorage;
  readonly #origin: string;

  constructor(storage: DraftStorage, origin: string) {
    this.#storage = storage;
    this.#origin = origin;
  }

  #draftPrefix(agentId: string): string {
    return `svc-node.mail-draft@${this.#origin}|${agentId}|`;
  }

  get #unsentPrefix(): string {
    return `svc-node.mail-unsent@${this.#origin}|`;
  }

  #unsentKey(agentId: string): string {
    return this.#unsentPrefix + agentId;
  }

  get(agentId: string, slot: string): MailDraft | null {
    const kept = parse(this.#storage.getItem(this.#draftPrefix(agentId) + slot));
    if (typeof kept !== 'object' || kept === null) return null;
    const draft = (kept as Record<string, unknown>).draft;
    return isMailDraft(draft) ? draft : null;
  }

  /** Keeps the draft in its slot (the identity's oldest go past MAIL_DRAFTS_KEPT); null when kept. */
  put(agentId: string, draft: MailDraft, now: Date = new Date()): KeepProblem | null {
    if (draft.body.length > MAIL_BODY_KEPT || !isMailDraft(draft)) return 'too-long';
    const prefix = this.#draftPrefix(agentId);
    const key = prefix + mailDraftSlot(draft);
    try {
      this.#storage.setItem(key, JSON.stringify({ draft, updatedAt: now.toISOString() }));
    } catch {
      return 'full';
    }
    // Past the bound only (most keystrokes never get here): the oldest drafts go.
    const others = this.#keys(prefix).filter((k) => k !== key);
    if (others.length < MAIL_DRAFTS_KEPT) return null;
    const byAge = others
      .map((k) => ({ k, at: String((parse(this.#storage.getItem(k)) as { updatedAt?: unknown } | null)?.updatedAt ?? '') }))
      .sort((a, b) => b.at.localeCompare(a.at));
    for (const old of byAge.slice(MAIL_DRAFTS_KEPT - 1)) this.#storage.removeItem(old.k);
    return null;
  }

  remove(agentId: string, slot: string): void {
    this.#storage.removeItem(this.#draftPrefix(agentId) + slot);
  }

  /** The identity's unsent mail, oldest first. */
  unsent(agentId: string): UnsentMail[] {
    return unsentList(this.#storage.getItem(this.#unsentKey(agentId)));
  }

  /**
   * What a `storage` event (another window of this browser wrote) changed of an identity's unsent
   * mail on this node; null when the key is anything else.
   */
  unsentChange(event: Pick<StorageEvent, 'key' | 'oldValue' | 'newValue'>): UnsentChange | null {
    const prefix = this.#unsentPrefix;
    if (event.key === null || !event.key.startsWith(prefix)) return null;
    return { agentId: event.key.slice(prefix.length), before: unsentList(event.oldValue), after: unsentList(event.newValue) };
  }

  /** Keeps the identity's unsent mail (the newest UNSENT_KEPT); false when the storage refused it. */
  putUnsent(agentId: string, items: readonly UnsentMail[]): boolean {
    const key = this.#unsentKey(agentId);
    try {
      if (items.length === 0) this.#storage.removeItem(key);
      else this.#storage.setItem(key, JSON.stringify(items.slice(-UNSENT_KEPT)));
      return true;
    } catch {
      return false;
    }
  }

  #keys(prefix: string): string[] {
    const keys: string[] = [];
    for (let i = 0; i < this.#storage.length; i++) {
      const key = this.#storage.key(i);
      if (key !== null && key.startsWith(prefix)) keys.push(key);
    }
    return keys;
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
  const remote = documents.map((d) => ({
    slug: d.slug,
    title: d.title,
    version: d.current_version,
    updatedAt: d.updated_at,
    hasDraft: draftSlugs.has(d.slug),
  }));
  return [...local, ...remote];
}

/**
 * Letters that Unicode does not decompose into a base letter and marks, spelled the way they are
 * usually transliterated (without them "Ünïcødé" became `unic-de`).
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
