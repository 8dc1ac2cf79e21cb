/** The owner client's search (owner.ts, search.ts): the exact request target, and a refused query in words. */
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { NodeClient } from './owner.ts';
import { actingSearch, searchErrorText, searchPath } from './search.ts';
import type { FetchLike } from './sse.ts';

const EMPTY = { results: [], next_cursor: null, more_matches: false, index: { complete: true, indexed: 0, total: 0 } };

function client(status = 200, body: unknown = EMPTY): { client: NodeClient; urls: string[]; headers: Record<string, string>[] } {
  const urls: string[] = [];
  const headers: Record<string, string>[] = [];
  const fetch: FetchLike = async (url, init) => {
    urls.push(url);
    headers.push((init?.headers ?? {}) as Record<string, string>);
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { client: new NodeClient({ coreUrl: 'http://127.0.0.1:4100/', token: 'T0K', mode: 'browser', fetch }), urls, headers };
}

describe('NodeClient.search', () => {
  it('asks GET /v1/node/search with the owner token and only the filters given', async () => {
    const { client: node, urls, headers } = client();
    expect(await node.search({ q: 'cafe' })).toEqual(EMPTY);
    expect(urls).toEqual(['http://127.0.0.1:4100/v1/node/search?q=cafe']);
    expect(headers[0]?.['authorization']).toBe('Bearer T0K');
  });

  it('encodes the query text, and sends kinds comma-separated in one parameter', async () => {
    const { client: node, urls } = client();
    await node.search({ q: '"au lait" contr* -draft', type: ['mail'], agent_id: 'a 1/2' });
    expect(urls[0]).toBe('http://127.0.0.1:4100/v1/node/search?q=%22au+lait%22+contr*+-draft&type=mail&agent_id=a+1%2F2');
    await node.search({ q: 'Café & co', type: ['profile', 'blueprint'], team: 'crew:example.com', limit: 10, cursor: 'c+1', sort: 'recent' });
    expect(urls[1]).toBe(
      'http://127.0.0.1:4100/v1/node/search?q=Caf%C3%A9+%26+co&type=profile%2Cblueprint&team=crew%3Aexample.com&sort=recent&limit=10&cursor=c%2B1',
    );
  });

  it('sends every filter of the contract under its own name', () => {
    expect(
      searchPath({
        q: 'x',
        type: ['mail', 'chat'],
        from: 'bob',
        to: 'alice',
        after: '2026-01-01T00:00:00Z',
        before: '2026-02-01T00:00:00Z',
        unread: true,
        sort: 'relevance',
      }),
    ).toBe('/v1/node/search?q=x&type=mail%2Cchat&from=bob&to=alice&after=2026-01-01T00%3A00%3A00Z&before=2026-02-01T00%3A00%3A00Z&unread=true&sort=relevance');
    // No kinds is every kind: no empty `type=`.
    expect(searchPath({ q: 'x', type: [] })).toBe('/v1/node/search?q=x');
  });

  it('turns a refused query into an ApiError with the node’s words', async () => {
    const refused = {
      detail: [{ loc: ['query', 'q'], msg: 'unclosed quote starting at character 1', type: 'value_error' }],
      code: 'SVC_ERR_SEARCH_QUERY_INVALID',
    };
    const { client: node } = client(422, refused);
    const failure = await node.search({ q: '"au lait' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(searchErrorText(failure)).toBe('Unclosed quote starting at character 1');
  });
});

describe('searchErrorText', () => {
  it('keeps the label of a filter’s problem, and says other failures as they are', () => {
    const issues = [{ field: 'after', message: 'use a date and time' }];
    expect(searchErrorText(new ApiError(422, 'x', issues))).toBe('After: use a date and time');
    expect(searchErrorText(new ApiError(0, 'Could not reach the node.'))).toBe('Could not reach the node.');
    expect(searchErrorText(new ApiError(422, 'The query is too long.'))).toBe('The query is too long.');
  });
});

describe('actingSearch', () => {
  type Params = Parameters<Parameters<typeof actingSearch>[0]>[0];
  const hit = (kind: 'mail' | 'document', title: string) =>
    kind === 'mail'
      ? {
          kind,
          title,
          title_highlights: [],
          snippet: '',
          highlights: [],
          created_at: '',
          score: 1,
          message_id: title,
          thread_id: null,
          agent_id: 'alice',
          folder: 'inbox' as const,
          from: 'bob',
          to: 'alice',
          unread: false,
        }
      : {
          kind,
          title,
          title_highlights: [],
          snippet: '',
          highlights: [],
          created_at: '',
          score: 1,
          team_id: 'crew:x.test',
          slug: title,
          version: 1,
          current: true,
        };

  function fake(pages: Record<string, { results: ReturnType<typeof hit>[]; next_cursor: string | null }>) {
    const asked: Params[] = [];
    const run = async (params: Params) => {
      asked.push(params);
      const side = params.agent_id === undefined ? 'teams' : 'own';
      const page = pages[`${side}:${params.cursor ?? ''}`] ?? { results: [], next_cursor: null };
      return { ...EMPTY, ...page, index: { complete: side === 'own', indexed: side === 'own' ? 5 : 3, total: 5 } };
    };
    return { asked, run };
  }

  it('asks for the acting identity’s own mail and chats, and the teams’ kinds without an identity', async () => {
    const { asked, run } = fake({
      'own:': { results: [hit('mail', 'm1')], next_cursor: null },
      'teams:': { results: [hit('document', 'd1')], next_cursor: null },
    });
    const answer = await actingSearch(run)({ q: 'walrus', agent_id: 'alice' });
    expect(asked).toEqual([
      { q: 'walrus', type: ['mail', 'chat'], agent_id: 'alice' },
      { q: 'walrus', type: ['document', 'profile', 'blueprint'] },
    ]);
    expect(answer.results.map((result) => result.title)).toEqual(['m1', 'd1']);
    expect(answer.next_cursor).toBeNull();
    expect(answer.index).toEqual({ complete: false, indexed: 3, total: 5 });
  });

  it('never asks for every identity’s mail: without an acting identity only the teams’ kinds', async () => {
    const { asked, run } = fake({});
    await actingSearch(run)({ q: 'walrus' });
    expect(asked).toEqual([{ q: 'walrus', type: ['document', 'profile', 'blueprint'] }]);
  });

  it('keeps a type filter, and pages on each side until it ends', async () => {
    const { asked, run } = fake({
      'own:': { results: [hit('mail', 'm1')], next_cursor: 'o2' },
      'teams:': { results: [hit('document', 'd1')], next_cursor: null },
      'own:o2': { results: [hit('mail', 'm2')], next_cursor: null },
    });
    const search = actingSearch(run);
    const first = await search({ q: 'x', agent_id: 'alice', limit: 5 });
    expect(first.next_cursor).not.toBeNull();
    const second = await search({ q: 'x', agent_id: 'alice', limit: 5, cursor: first.next_cursor ?? '' });
    expect(second.results.map((result) => result.title)).toEqual(['m2']);
    expect(second.next_cursor).toBeNull();
    expect(asked.at(-1)).toEqual({ q: 'x', type: ['mail', 'chat'], agent_id: 'alice', limit: 5, cursor: 'o2' });
    expect(asked).toHaveLength(3);

    asked.length = 0;
    await search({ q: 'x', agent_id: 'alice', type: ['mail', 'document'] });
    expect(asked.map((params) => params.type)).toEqual([['mail'], ['document']]);
  });
});
