/**
 * Full-text search on the owner API (`GET /v1/node/search`, issue 18): the request target built
 * from the contract's query shape, and a refused query in words. The wire types are the
 * contract's (contract/core/search.ts), re-exported for the views (types only: that module
 * builds zod schemas, which the renderer's bundle does without); the client method is
 * NodeClient.search (owner.ts).
 */
import type { SearchInput } from '../../../contract/core/search.ts';
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
