/**
 * Full-text search on the owner API (`GET /v1/node/search`): the request target built
 * from the contract's query shape, and a refused query in words. The wire types are the
 * contract's (contract/core/search.ts), re-exported for the views (types only: that module
 * builds zod schemas, which the renderer's bundle does without); the client method is
 * NodeClient.search (owner.ts).
 */
import type { SearchIndexState, SearchInput, SearchKind, SearchResults } from '../../../contract/core/search.ts';
import { ApiError, issueSentence } from './errors.ts';
import { query } from './http.ts';

export type { SearchHit, SearchIndexState, SearchInput, SearchKind, SearchResults } from '../../../contract/core/search.ts';

/**
 * What a caller passes: the query text, and any of the contract's filters. `sort` and `limit` have
 * defaults on the node, so they are optional here too (the contract's output type makes them
 * required once parsed).
 */
export type SearchParams = Pick<SearchInput, 'q'> & Partial<Omit<SearchInput, 'q'>>;

/** `/v1/node/search?q=…&type=mail,chat…`: only the filters given, in the contract's order. */
export function searchPath(params: SearchParams): string {
  return `/v1/node/search${query({
    q: params.q,
    // Comma-separated, as the contract reads it (one `type`, not a repeated key).
    type: params.type && params.type.length > 0 ? params.type.join(',') : undefined,
    from: params.from,
    to: params.to,
    after: params.after,
    before: params.before,
    unread: params.unread === undefined ? undefined : String(params.unread),
    team: params.team,
    agent_id: params.agent_id,
    sort: params.sort,
    limit: params.limit,
    cursor: params.cursor,
  })}`;
}

/**
 * Why a search failed, in words to show under the field. A refused query (422: "unclosed quote
 * starting at character 7") is about what was typed, so it is said without a field label ("Q: …"
 * would mean nothing to anyone); a filter's problem keeps its label.
 */
export function searchErrorText(error: unknown): string {
  if (error instanceof ApiError && error.status === 422 && error.issues.length > 0) {
    return error.issues.map((issue) => issueSentence(issue.field === 'q' ? { ...issue, field: null } : issue)).join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}

/** What an identity holds itself: its own mail (received and sent) and the chats it is in. */
const OWN_KINDS: readonly SearchKind[] = ['mail', 'chat'];
/** What the node's teams hold, whoever acts: documents, shelf profiles, the catalog's blueprints. */
const TEAM_KINDS: readonly SearchKind[] = ['document', 'profile', 'blueprint'];

/** The two questions' cursors, as one `next_cursor` (only ever handed back to `actingSearch`). */
interface ActingCursor {
  own: string | null;
  teams: string | null;
}

function readCursor(cursor: string | undefined): ActingCursor | null {
  if (cursor === undefined) return null;
  const parsed = JSON.parse(cursor) as Partial<ActingCursor>;
  return { own: parsed.own ?? null, teams: parsed.teams ?? null };
}

function mergeIndex(states: readonly SearchIndexState[]): SearchIndexState {
  return {
    complete: states.every((state) => state.complete),
    indexed: Math.min(...states.map((state) => state.indexed)),
    total: Math.max(...states.map((state) => state.total)),
  };
}

/**
 * Search as the identity acting in the app (`agent_id`) sees the node: its own mail and chats
 * (the owner's search narrowed to that identity, so another identity's copy of a mail, such as
 * the sender's Sent copy of one this identity deleted, is never among them) and the teams'
 * documents, profiles and blueprints, which belong to no identity. The owner's search names one
 * identity or none (then every identity's mail), so this asks two questions at once and answers
 * as one: the hits of each kind come from one answer (the palette groups them by kind), and the
 * next page continues both. Without `agent_id`, no one acts: the teams' kinds only.
 */
export function actingSearch(run: (params: SearchParams) => Promise<SearchResults>): (params: SearchParams) => Promise<SearchResults> {
  return async (params) => {
    const { agent_id: agentId, cursor, type, ...rest } = params;
    const wanted = (kinds: readonly SearchKind[]): SearchKind[] => kinds.filter((kind) => type === undefined || type.length === 0 || type.includes(kind));
    const paging = readCursor(cursor);
    const ownKinds = agentId === undefined ? [] : wanted(OWN_KINDS);
    const teamKinds = wanted(TEAM_KINDS);
    const asks: [Promise<SearchResults> | null, Promise<SearchResults> | null] = [
      ownKinds.length > 0 && (paging === null || paging.own !== null)
        ? run({ ...rest, type: ownKinds, agent_id: agentId, ...(paging?.own ? { cursor: paging.own } : {}) })
        : null,
      teamKinds.length > 0 && (paging === null || paging.teams !== null)
        ? run({ ...rest, type: teamKinds, ...(paging?.teams ? { cursor: paging.teams } : {}) })
        : null,
    ];
    const [own, teams] = await Promise.all(asks);
    const answers = [own, teams].filter((answer): answer is SearchResults => answer !== null);
    const next: ActingCursor = { own: own?.next_cursor ?? null, teams: teams?.next_cursor ?? null };
    return {
      results: answers.flatMap((answer) => answer.results),
      next_cursor: next.own === null && next.teams === null ? null : JSON.stringify(next),
      more_matches: answers.some((answer) => answer.more_matches),
      index: answers.length > 0 ? mergeIndex(answers.map((answer) => answer.index)) : { complete: true, indexed: 0, total: 0 },
    };
  };
}
