/**
 * Search for agents: "the mail from acme about the contract" without paging an inbox.
 * The same query, scope and answer as `GET /v1/search` (the identity's own mail and the chats it
 * is in): the arguments go through that route's schema, so both refuse the same inputs alike.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DEFAULT_SEARCH_PAGE, MAX_SEARCH_PAGE, SearchQuery, SearchResults } from '../../../../../contract/core/search.ts';
import { parseWith } from '../../../../http/validate.ts';
import { identityScope } from '../../../../search/scopes.ts';
import { portable } from '../portable-schema.ts';
import { toolResult } from '../result.ts';
import { READS } from './annotations.ts';
import type { ToolContext } from './context.ts';

export function registerSearchTools(server: McpServer, { services, principal }: ToolContext): void {
  server.registerTool(
    'search',
    {
      title: 'Search mail and chat',
      description:
        'Full-text search over your mail (received and sent) and the chats you are in. Query: words (all must match), prefixes like contr*, ' +
        '"exact phrases", OR, NOT or -word, parentheses; accents ignored (cafe finds Café). Filters narrow it; results come best match first ' +
        '(or newest first with sort "recent"), each with a snippet and the ids to open it (message_id, session_id).',
      inputSchema: z.object({
        query: z.string().describe('What to find, e.g. contract acme or "quarterly report" -draft'),
        type: z.enum(['mail', 'chat', 'all']).default('all').describe('Only mail, only chat, or both'),
        from: z.string().default('').describe('Only from this sender: an alias or an address domain/name'),
        to: z.string().default('').describe('Only mail to this recipient: an alias or an address'),
        after: z.string().default('').describe('Only written at or after this RFC 3339 instant'),
        before: z.string().default('').describe('Only written before this RFC 3339 instant'),
        unread: z.boolean().default(false).describe('Only unread mail'),
        sort: z.enum(['relevance', 'recent']).default('relevance'),
        limit: z.number().int().min(1).max(MAX_SEARCH_PAGE).default(DEFAULT_SEARCH_PAGE),
        cursor: z.string().default('').describe('next_cursor of the previous page'),
      }),
      outputSchema: portable(SearchResults),
      annotations: READS,
    },
    ({ query, type, from, to, after, before, unread, sort, limit, cursor }) =>
      toolResult(SearchResults, () => {
        // Empty strings are "not given", as the HTTP query leaves a parameter out.
        const given = Object.entries({ from, to, after, before, cursor, type: type === 'all' ? '' : type }).filter(([, value]) => value !== '');
        const input = parseWith(SearchQuery, { q: query, sort, limit, ...(unread ? { unread } : {}), ...Object.fromEntries(given) }, 'query');
        return services.search.search(identityScope(principal.agentId), input);
      }),
  );
}
