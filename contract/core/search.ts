/**
 * Full-text search (ours): one query shape and one answer for every place that searches, each
 * scoped exactly like its reads:
 *
 * - `GET /v1/search` on the core (an identity: Bearer or DIDKey; the MCP tool `search` too): its
 *   own mail (received and sent) and the chats it is in;
 * - `GET /v1/search` on the documents surface (team-signed, `docs:read`): the team's documents,
 *   older versions findable and ranked lower;
 * - `GET /v1/search` on the library surface (team-signed, `library:read`): the team's shelf
 *   profiles and the public catalog's blueprints;
 * - `GET /v1/node/search` (the owner): everything this node holds, optionally narrowed to one
 *   identity (`agent_id`) or team (`team`).
 *
 * The query language (words, prefixes `contr*`, "quoted phrases", AND / OR / NOT, `-word`,
 * parentheses; diacritics ignored) is parsed by the node, never handed to the index as typed.
 */
import { z } from 'zod';
import { MAX_SEARCH_QUERY } from '../core-rules.ts';

export const SEARCH_KINDS = ['mail', 'chat', 'document', 'profile', 'blueprint'] as const;
export const SearchKind = z.enum(SEARCH_KINDS);
export type SearchKind = z.output<typeof SearchKind>;

// Longer text is a 422, as are more terms or deeper nesting than the parser allows.
export { MAX_SEARCH_QUERY };
export const DEFAULT_SEARCH_PAGE = 20;
export const MAX_SEARCH_PAGE = 50;
/**
 * Results are ranked among each kind's most recent matches, up to this many (relevance and recency
 * together); paging goes as deep. A query matching more is answered from its most recent matches,
 * and `more_matches` says so: narrow it to reach older ones (or sort by `recent` with `before`).
 */
export const SEARCH_WINDOW = 1000;

const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((value) => value === true || value === 'true' || value === '1');
const instant = z.iso.datetime({ offset: true });

export const SearchQuery = z.object({
  q: z
    .string()
    .min(1)
    .max(MAX_SEARCH_QUERY * 4),
  /** Kinds to search, comma-separated (`mail,chat`); every kind the place holds by default. */
  type: z
    .string()
    .max(64)
    .transform((value, ctx) => {
      const kinds = [
        ...new Set(
          value
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean),
        ),
      ];
      for (const kind of kinds) {
        if (!(SEARCH_KINDS as readonly string[]).includes(kind)) {
          ctx.addIssue({ code: 'custom', message: `unknown kind ${kind} (one or more of ${SEARCH_KINDS.join(', ')})` });
          return z.NEVER;
        }
      }
      return kinds as SearchKind[];
    })
    .optional(),
  /** Mail and chat from this sender: an alias or an address (`acme.example/ada`), matched as a word. */
  from: z.string().min(1).max(320).optional(),
  /** Mail to this recipient: an alias or an address. */
  to: z.string().min(1).max(320).optional(),
  /** Only what was written at or after / before these instants (RFC 3339). */
  after: instant.optional(),
  before: instant.optional(),
  /** Only unread mail (the caller's received mail; sent mail is never unread). */
  unread: flag.optional(),
  /** Owner search: one team's documents and profiles. */
  team: z.string().min(3).max(320).optional(),
  /** Owner search: one identity's mail and chats. */
  agent_id: z.string().min(1).max(128).optional(),
  /** `relevance` (the default: how well it matches, then how recent) or `recent` (newest first). */
  sort: z.enum(['relevance', 'recent']).default('relevance'),
  limit: z.coerce.number().int().min(1).max(MAX_SEARCH_PAGE).default(DEFAULT_SEARCH_PAGE),
  /** `next_cursor` of the page before. */
  cursor: z.string().min(1).max(256).optional(),
});
export type SearchInput = z.output<typeof SearchQuery>;

/**
 * Where the matched words are in `snippet`: [start, end) in UTF-16 code units. Written as "two
 * integers" rather than a tuple: a tuple's JSON Schema (`prefixItems` with `items: false`) means
 * "no items at all" to a draft-07 validator, which is what MCP SDK 1.x hosts check a tool's
 * structured result with, so every search with a hit failed there. This form reads the same in
 * every draft, and the wire is unchanged.
 */
export const Highlight = z.array(z.number().int()).length(2);

const hitBase = {
  /** The matched item's title: a mail's subject, a chat's sender, a document's title, a profile's or blueprint's name. */
  title: z.string(),
  /** The matched words in `title`, as `highlights` are in `snippet`. */
  title_highlights: z.array(Highlight),
  /** A short stretch of the matched text, whitespace collapsed, `…` where cut. */
  snippet: z.string(),
  highlights: z.array(Highlight),
  /** When it was written (a document version: when that version was saved). */
  created_at: z.string(),
  /** Higher is better; comparable within one answer only. */
  score: z.number(),
};

export const MailHit = z.object({
  kind: z.literal('mail'),
  ...hitBase,
  message_id: z.string(),
  thread_id: z.string().nullable(),
  /** The identity whose mailbox holds it (received or sent). */
  agent_id: z.string(),
  /** `inbox`, `archive` or `sent`, as that identity's Mail shows it. */
  folder: z.enum(['inbox', 'archive', 'sent']),
  from: z.string(),
  to: z.string(),
  unread: z.boolean(),
});

export const ChatHit = z.object({
  kind: z.literal('chat'),
  ...hitBase,
  message_id: z.string(),
  session_id: z.string(),
  /** An identity of this node in the chat (the caller, for an identity's search). */
  agent_id: z.string(),
  from: z.string(),
});

export const DocumentHit = z.object({
  kind: z.literal('document'),
  ...hitBase,
  team_id: z.string(),
  slug: z.string(),
  version: z.number().int(),
  /** False for an older version (it ranks lower than the current one). */
  current: z.boolean(),
});

export const ProfileHit = z.object({ kind: z.literal('profile'), ...hitBase, team_id: z.string(), profile_ref: z.string() });
export const BlueprintHit = z.object({ kind: z.literal('blueprint'), ...hitBase, blueprint_ref: z.string() });

export const SearchHit = z.discriminatedUnion('kind', [MailHit, ChatHit, DocumentHit, ProfileHit, BlueprintHit]);
export type SearchHit = z.output<typeof SearchHit>;

/** How far the index is built for data that existed before it (new writes are indexed as they happen). */
export const SearchIndexState = z.object({ complete: z.boolean(), indexed: z.number().int(), total: z.number().int() });
export type SearchIndexState = z.output<typeof SearchIndexState>;

export const SearchResults = z.object({
  results: z.array(SearchHit),
  next_cursor: z.string().nullable(),
  /** More matched than the window ranks (SEARCH_WINDOW per kind): narrow the query to reach older ones. */
  more_matches: z.boolean(),
  index: SearchIndexState,
});
export type SearchResults = z.output<typeof SearchResults>;
