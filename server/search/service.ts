/**
 * Search: one query path for every place that searches. The caller says what it may
 * see (a `SearchScope`, built from its credential the way its reads are: routes.ts), the service
 * parses the query once, asks each kind's index for its most recent matches within that scope,
 * ranks them together (ranking.ts), and cuts snippets from the stored text of the page it returns.
 */
import type { Db } from '../context.ts';
import type { Clock } from '../clock.ts';
import { invalid } from '../errors.ts';
import { SEARCH_WINDOW, type SearchHit, type SearchIndexState, type SearchInput, type SearchKind, type SearchResults } from '../../contract/core/search.ts';
import type { DocumentHistory } from './backfill.ts';
import { tokenize } from './fold.ts';
import { parseQuery, type ParsedQuery } from './query.ts';
import { rank, type Candidate, type Ranked } from './ranking.ts';
import { PUBLIC_SCOPE, agentScope, scopedMatch, sessionScope, teamScope } from './scope.ts';
import { PENDING_KINDS, attachRecent, pendingCount, syncRecent } from './pending-store.ts';
import { relevanceOf, textColumns } from './scoring.ts';
import { snippet } from './snippet.ts';
import { backfillRows } from './store/backfill.ts';
import { chatCandidates, chatRows, sessionsOf } from './store/chat.ts';
import { documentCandidates, documentMeta } from './store/documents.ts';
import { wordsStartingWith } from './store/index-texts.ts';
import { libraryCandidates, libraryRows, libraryTimes } from './store/library.ts';
import { mailCandidates, mailRows } from './store/mail.ts';
import { type WalkMatch } from './store/walk.ts';

/**
 * What a caller may find, kind by kind: null, none of that kind; a list, those scopes only; for
 * the owner, `all` (every identity's, every team's).
 */
export interface SearchScope {
  /** The identity whose mail (received and sent): null for none; 'all' for every mailbox. */
  mail: string | 'all' | null;
  /** The identity whose chats: null for none; 'all' for every chat. */
  chat: string | 'all' | null;
  /** Teams whose documents. */
  documents: readonly string[] | 'all' | null;
  /** Teams whose shelf profiles. */
  profiles: readonly string[] | 'all' | null;
  blueprints: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: false });
/** The most words a prefix is asked for by name (query.ts); more, and FTS5's own prefix merge is no slower. */
export const PREFIX_WORDS = 64;
/** The most rows not yet indexed that a search finds through the in-memory index (pending-store.ts). */
const RECENT_LIMIT = 20_000;
const TITLED_COLUMNS = ['title', 'body'];

interface Cursor {
  offset: number;
}

function readCursor(text: string | undefined): Cursor {
  if (text === undefined) return { offset: 0 };
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0 && parsed.o < SEARCH_WINDOW) return { offset: parsed.o };
  } catch {
    // Falls through to the refusal.
  }
  throw invalid('SVC_ERR_VALIDATION', [{ loc: ['query', 'cursor'], msg: 'not a cursor this search gave (use next_cursor as it came)', type: 'value_error' }]);
}

/**
 * `from` and `to` also as phrases in the `people` column, so the index walks only rows naming
 * them (a superset: the store still compares the fields exactly); without it a filter on a common
 * word walks every row holding the word. The tokens are quoted as query.ts quotes the user's.
 */
function withPeople(text: string, people: ReadonlyArray<string | undefined>): string {
  const phrases = people.flatMap((value) => {
    if (value === undefined) return [];
    const tokens = tokenize(value).map((t) => `"${value.slice(t.start, t.end).replaceAll('"', '""')}"`);
    return tokens.length === 0 ? [] : [`people : (${tokens.join(' + ')})`];
  });
  return phrases.length === 0 ? text : `(${text}) AND ${phrases.join(' AND ')}`;
}

const writeCursor = (offset: number): string => Buffer.from(JSON.stringify({ o: offset }), 'utf8').toString('base64url');

/** The library's reading of its shelf (it alone parses profile.yaml). */
export interface ShelfProfiles {
  /** A profile's name, as its latest profile.yaml gives it; null when it names none (or the shelf has no such profile). */
  profileName(teamId: string, ref: string): string | null;
}

export class SearchService {
  readonly #db: Db;
  readonly #clock: Clock;
  #history: DocumentHistory | null = null;
  #profiles: ShelfProfiles | null = null;

  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
    attachRecent(db);
  }

  /** The documents service tells how to read version chains (it alone decodes them): snippets and the backfill. */
  readDocumentsWith(history: DocumentHistory): void {
    this.#history = history;
  }

  /** The library tells how to read a profile's name from its shelf: profile hits are titled with it. */
  readProfilesWith(profiles: ShelfProfiles): void {
    this.#profiles = profiles;
  }

  get documentHistory(): DocumentHistory | null {
    return this.#history;
  }

  /** How far the index of what existed before it has been built. */
  indexState(): SearchIndexState {
    const rows = backfillRows(this.#db);
    const indexed = rows.reduce((sum, row) => sum + row.done, 0);
    const total = rows.reduce((sum, row) => sum + row.total, 0);
    // Rows written but not yet indexed are found through the in-memory index, unless there are
    // more than it holds (rows written with the node stopped): those wait for the indexer.
    const pending = pendingCount(this.#db);
    const backlog = pending > RECENT_LIMIT ? pending : 0;
    return { complete: rows.every((row) => row.through === row.end_id) && backlog === 0, indexed, total: total + backlog };
  }

  search(scope: SearchScope, input: SearchInput): SearchResults {
    const query = parseQuery(input.q);
    const { offset } = readCursor(input.cursor);
    const wanted = new Set<SearchKind>(input.type ?? ['mail', 'chat', 'document', 'profile', 'blueprint']);
    // Relevance ranks the whole window; newest-first needs only as many as the page reaches.
    const window = input.sort === 'relevance' ? SEARCH_WINDOW : Math.min(SEARCH_WINDOW, offset + input.limit + 1);
    for (const kind of PENDING_KINDS) if (wanted.has(kind)) syncRecent(this.#db, kind, RECENT_LIMIT);
    const perKind = [
      wanted.has('mail') ? this.#mail(scope.mail, query, input, window) : [],
      wanted.has('chat') ? this.#chat(scope.chat, query, input, window) : [],
      wanted.has('document') ? this.#documents(scope.documents, query, input, window) : [],
      this.#library(scope, wanted, query, window),
    ];
    const ranked = rank(perKind.flat(), input.sort, this.#clock.now().getTime());
    const page = ranked.slice(offset, offset + input.limit);
    const next = offset + input.limit;
    return {
      results: this.#hits(page, query, { mail: scope.mail === 'all' ? null : scope.mail, chat: scope.chat === 'all' ? null : scope.chat }),
      next_cursor: next < ranked.length && next < SEARCH_WINDOW ? writeCursor(next) : null,
      more_matches: perKind.some((list) => list.length >= window) && input.sort === 'relevance',
      index: this.indexState(),
    };
  }

  #mail(who: SearchScope['mail'], query: ParsedQuery, input: SearchInput, window: number): Candidate[] {
    if (who === null) return [];
    const agentId = who === 'all' ? null : who;
    const match = this.#walkMatch('mail', agentId === null ? null : [agentScope(agentId)], query, [input.from, input.to]);
    if (match === null) return [];
    const filter = {
      agentId,
      from: input.from ?? null,
      to: input.to ?? null,
      after: input.after ?? null,
      before: input.before ?? null,
      unread: input.unread ?? false,
    };
    return this.#weighed('mail', query, mailCandidates(this.#db, match, filter, window));
  }

  #chat(who: SearchScope['chat'], query: ParsedQuery, input: SearchInput, window: number): Candidate[] {
    // Unread is a mail filter; sent-to is mail's too: a chat cannot satisfy them.
    if (who === null || input.unread === true || input.to !== undefined) return [];
    // Its sessions' messages, and the encrypted ones the node opened for it (indexed under its own scope, as mail).
    const tokens = who === 'all' ? null : [...sessionsOf(this.#db, who).map(sessionScope), agentScope(who)];
    const match = this.#walkMatch('chat', tokens, query, [input.from]);
    if (match === null) return [];
    const filter = { from: input.from ?? null, after: input.after ?? null, before: input.before ?? null };
    return this.#weighed('chat', query, chatCandidates(this.#db, match, filter, window));
  }

  /** What a mail or chat walk matches, in the index and in the rows not yet in it (store/walk.ts); null when the scope holds nothing. */
  #walkMatch(kind: 'mail' | 'chat', scope: readonly string[] | null, query: ParsedQuery, people: ReadonlyArray<string | undefined>): WalkMatch | null {
    const columns = textColumns(kind);
    const index = kind === 'mail' ? 'search_mail' : 'search_chat';
    const indexed = scopedMatch(
      scope,
      withPeople(
        query.match(columns, (prefix) => wordsStartingWith(this.#db, index, prefix, PREFIX_WORDS)),
        people,
      ),
    );
    const recent = scopedMatch(scope, withPeople(query.match(columns), people));
    return indexed === null || recent === null ? null : { indexed, recent };
  }

  /** Mail or chat candidates with their relevance (scoring.ts). */
  #weighed(kind: 'mail' | 'chat', query: ParsedQuery, rows: ReadonlyArray<{ id: number; created_at: string }>): Candidate[] {
    const scores = relevanceOf(
      this.#db,
      kind,
      query.phrases,
      rows.map((row) => row.id),
    );
    return rows.map((row) => ({ kind, id: row.id, bm25: scores.get(row.id) ?? 0, created_at: row.created_at }));
  }

  #documents(teams: SearchScope['documents'], query: ParsedQuery, input: SearchInput, window: number): Candidate[] {
    if (teams === null || input.unread === true || input.from !== undefined || input.to !== undefined) return [];
    const match = scopedMatch(teams === 'all' ? null : teams.map(teamScope), query.match(TITLED_COLUMNS));
    if (match === null) return [];
    return documentCandidates(this.#db, match, { after: input.after ?? null, before: input.before ?? null }, window).map((row) => ({
      kind: 'document',
      id: row.entry_id,
      bm25: row.score,
      created_at: row.created_at,
      document: {
        documentId: row.document_id,
        version: row.version_number,
        currentVersion: row.current_version,
        current: row.version_number === row.current_version,
      },
    }));
  }

  #library(scope: SearchScope, wanted: ReadonlySet<SearchKind>, query: ParsedQuery, window: number): Candidate[] {
    const profiles = wanted.has('profile') ? scope.profiles : null;
    const blueprints = wanted.has('blueprint') && scope.blueprints;
    if (profiles === null && !blueprints) return [];
    const tokens = profiles === 'all' ? null : [...(profiles ?? []).map(teamScope), ...(blueprints ? [PUBLIC_SCOPE] : [])];
    const match = scopedMatch(profiles === 'all' && !blueprints ? null : tokens, query.match(TITLED_COLUMNS));
    if (match === null) return [];
    const rows = libraryCandidates(this.#db, match, { profiles: profiles !== null, blueprints }, window);
    // A profile's or blueprint's time is its latest version's.
    const when = new Map(
      libraryTimes(
        this.#db,
        rows.map((row) => row.entry_id),
      ).map((row) => [row.id, row.created_at]),
    );
    return rows.map((row) => ({
      kind: row.kind,
      id: row.entry_id,
      bm25: row.score,
      created_at: when.get(row.entry_id) ?? new Date(0).toISOString(),
      library: { teamId: row.team_id, ref: row.ref },
    }));
  }

  /** `viewer`: whose mailbox and chats the hits are shown as (null: the owner, who sees each as its holder's). */
  #hits(page: readonly Ranked[], query: ParsedQuery, viewer: { mail: string | null; chat: string | null }): SearchHit[] {
    const ids = (kind: SearchKind) => page.filter((c) => c.kind === kind).map((c) => c.id);
    const mail = new Map(mailRows(this.#db, ids('mail'), viewer.mail).map((row) => [row.id, row]));
    const chat = new Map(chatRows(this.#db, ids('chat')).map((row) => [row.id, row]));
    const library = new Map(libraryRows(this.#db, [...ids('profile'), ...ids('blueprint')]).map((row) => [row.id, row]));
    const documents = new Map(
      documentMeta(
        this.#db,
        page.flatMap((c) => (c.document ? [c.document.documentId] : [])),
      ).map((row) => [row.document_id, row]),
    );
    const cut = (text: string) => snippet(text, query.highlightTerms);
    // A title is shown whole: its marks, not a window of it.
    const titled = (title: string) => {
      const { text, highlights } = snippet(title, query.highlightTerms, Math.max(title.length, 3));
      return { title: text, title_highlights: highlights };
    };
    const hits: SearchHit[] = [];
    for (const c of page) {
      const base = { score: c.score, created_at: c.created_at };
      if (c.kind === 'mail') {
        const row = mail.get(c.id);
        if (row === undefined) continue;
        const { text, highlights } = cut(row.body.trim() === '' ? row.subject : row.body);
        // The recipient's copy unless the viewer sent it, or (the owner) the recipient deleted it and a local sender still has it.
        const received =
          viewer.mail === null ? row.deleted_at === null || row.from_agent_id === null : row.to_agent_id === viewer.mail && row.deleted_at === null;
        const folder = received ? (row.archived_at === null ? 'inbox' : 'archive') : 'sent';
        const agentId = received ? row.to_agent_id : (row.from_agent_id ?? row.to_agent_id);
        hits.push({
          kind: 'mail',
          ...base,
          ...titled(row.subject),
          snippet: text,
          highlights,
          message_id: row.message_id,
          thread_id: row.thread_id,
          agent_id: agentId,
          folder,
          from: row.from_address ?? row.from_alias,
          to: row.to_address ?? row.to_alias,
          unread: received && row.read_at === null,
        });
      } else if (c.kind === 'chat') {
        const row = chat.get(c.id);
        const agentId = viewer.chat ?? row?.local_agent_id ?? null;
        if (row === undefined || agentId === null) continue;
        const { text, highlights } = cut(row.body);
        const from = row.from_address ?? row.from_remote_address ?? row.from_alias;
        hits.push({
          kind: 'chat',
          ...base,
          ...titled(from),
          snippet: text,
          highlights,
          message_id: row.message_id,
          session_id: row.session_id,
          agent_id: agentId,
          from,
        });
      } else if (c.kind === 'document' && c.document !== undefined) {
        const meta = documents.get(c.document.documentId);
        if (meta === undefined) continue;
        const { version, currentVersion, current } = c.document;
        const body = this.#history?.body(meta.document_id, currentVersion, version);
        const { text, highlights } = cut(body === undefined ? '' : decoder.decode(body));
        hits.push({ kind: 'document', ...base, ...titled(meta.title), snippet: text, highlights, team_id: meta.team_id, slug: meta.slug, version, current });
      } else if ((c.kind === 'profile' || c.kind === 'blueprint') && c.library !== undefined) {
        const row = library.get(c.id);
        if (row === undefined) continue;
        const { text, highlights } = cut(row.body);
        if (c.kind === 'profile') {
          hits.push({
            kind: 'profile',
            ...base,
            ...titled(this.#profiles?.profileName(c.library.teamId, c.library.ref) ?? row.title),
            snippet: text,
            highlights,
            team_id: c.library.teamId,
            profile_ref: c.library.ref,
          });
        } else hits.push({ kind: 'blueprint', ...base, ...titled(row.title), snippet: text, highlights, blueprint_ref: c.library.ref });
      }
    }
    return hits;
  }
}
