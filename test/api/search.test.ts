/**
 * Full-text search over real HTTP on a real encrypted database: the query language,
 * filters, ranking and paging, and above all scoping. Each caller finds exactly what its reads
 * show: an identity its own mail and its chats, a team member its team's documents and shelf (and
 * the public catalog), the owner everything. Nothing leaks across identities, projects or teams.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SearchResults, type SearchHit } from '../../contract/core/search.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject } from '../support/identities.ts';
import { connectMcp } from '../support/mcp.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { blueprintPayload, profileFiles } from '../support/library.ts';
import { addTeamMember, ALL_SCOPES, type TeamClient } from '../support/teams.ts';

const DOMAIN = 'search.test';
let t: TestNode;
/** alice, bob and dave share a project (dave is in none of alice's and bob's mail or chats); carol is in another project. */
let alice: { api_key: string; agent_id: string };
let bob: { api_key: string; agent_id: string };
let carol: { api_key: string; agent_id: string };
let dave: { api_key: string; agent_id: string };
let acme: TeamClient;
let other: TeamClient;
let sessionId: string;

const search = async (token: string, query: Record<string, string>) => t.request('GET', `/v1/search?${new URLSearchParams(query)}`, { token });
const found = async (token: string, query: Record<string, string>): Promise<SearchHit[]> => SearchResults.parse(expectOk(await search(token, query))).results;
const mail = (token: string, body: Record<string, unknown>) => t.request('POST', '/v1/messages', { token, body });
const highlighted = (hit: SearchHit): string[] => hit.highlights.map(([start, end]) => hit.snippet.slice(start, end));

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});
beforeAll(async () => {
  await createNodeNamespace(t, DOMAIN);
  const project = await createProject(t, 'searchers', DOMAIN);
  const elsewhere = await createProject(t, 'elsewhere', DOMAIN);
  alice = await createIdentity(t, project.api_key, { alias: 'alice' });
  bob = await createIdentity(t, project.api_key, { alias: 'bob' });
  carol = await createIdentity(t, elsewhere.api_key, { alias: 'carol' });
  dave = await createIdentity(t, project.api_key, { alias: 'dave' });
  expectOk(await mail(bob.api_key, { to_alias: 'alice', subject: 'The ACME contract', body: 'Café au lait before we sign the contract with acme.' }));
  expectOk(await mail(bob.api_key, { to_alias: 'alice', subject: 'Lunch', body: 'Shall we get a coffee? The red fox is back.' }));
  expectOk(await mail(alice.api_key, { to_alias: 'bob', subject: 'Re: contract', body: 'Contractual terms look fine; the fox, big and red, agrees.' }));
  const chat = expectOk(
    await t.request('POST', '/v1/chat/sessions', { token: alice.api_key, body: { to_aliases: ['bob'], message: 'Did you read the quarterly numbers?' } }),
  );
  sessionId = chat.session_id;
  acme = await addTeamMember(t, { team: 'acme', domain: DOMAIN, alias: 'writer', scopes: ALL_SCOPES });
  other = await addTeamMember(t, { team: 'other', domain: DOMAIN, alias: 'stranger', scopes: ALL_SCOPES });
  const docs = t.node.info.docs_url;
  expectOk(
    await acme.request('POST', '/v1/documents', { aud: docs, body: { slug: 'roadmap', title: 'Roadmap', body: '# Plans\n\nShip the alpha milestone.\n' } }),
    201,
  );
  expectOk(
    await acme.request('POST', '/v1/documents/roadmap/versions', {
      aud: docs,
      raw: '# Plans\n\nShip the beta milestone.\n',
      contentType: 'text/markdown; charset=utf-8',
    }),
    201,
  );
  expectOk(
    await other.request('POST', '/v1/documents', { aud: docs, body: { slug: 'secret', title: 'Secret plans', body: 'The milestone nobody else may read.\n' } }),
    201,
  );
  expectOk(await acme.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'reviewer', mission: 'Review every zeppelin design.' }) } }), 201);
  expectOk(await other.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'spy', mission: 'Watch the zeppelin hangar.' }) } }), 201);
  expectOk(
    await acme.request('POST', '/v1/blueprints/import', {
      body: blueprintPayload({ ref: 'acme.crew', summary: 'A crew for zeppelin flights', profiles: [{ ref: 'pilot' }] }),
    }),
    201,
  );
});

describe('GET /v1/search (an identity)', () => {
  it('finds its mail by a word, ignoring accents, with the word highlighted in the snippet', async () => {
    const hits = await found(alice.api_key, { q: 'cafe' });
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    expect(hit).toMatchObject({ kind: 'mail', title: 'The ACME contract', folder: 'inbox', agent_id: alice.agent_id, from: 'bob', to: 'alice', unread: true });
    expect(highlighted(hit!)).toEqual(['Café']);
  });

  it('takes prefixes, phrases, OR and NOT, and finds what it sent as well as what it received', async () => {
    const subjects = async (q: string) => (await found(alice.api_key, { q, type: 'mail' })).map((h) => h.title).sort();
    expect(await subjects('contr*')).toEqual(['Re: contract', 'The ACME contract']);
    expect(await subjects('"red fox"')).toEqual(['Lunch']);
    expect(await subjects('fox -lunch')).toEqual(['Re: contract']);
    expect(await subjects('coffee OR café')).toEqual(['Lunch', 'The ACME contract']);
    // The title's matched words are marked too.
    const [titled] = await found(alice.api_key, { q: 'acme', type: 'mail' });
    expect(titled!.title_highlights.map(([start, end]) => titled!.title.slice(start, end))).toEqual(['ACME']);
    const sent = (await found(alice.api_key, { q: 'contractual' }))[0];
    expect(sent).toMatchObject({ kind: 'mail', folder: 'sent', agent_id: alice.agent_id, unread: false });
  });

  it('finds chat messages in the chats it is in', async () => {
    const [hit] = await found(bob.api_key, { q: 'quarterly' });
    expect(hit).toMatchObject({ kind: 'chat', session_id: sessionId, agent_id: bob.agent_id });
    expect(highlighted(hit!)).toEqual(['quarterly']);
  });

  it('filters by kind, sender, recipient, unread and time', async () => {
    expect((await found(alice.api_key, { q: 'contract', from: 'bob' })).map((h) => h.title)).toEqual(['The ACME contract']);
    expect((await found(alice.api_key, { q: 'contract', to: 'bob' })).map((h) => h.title)).toEqual(['Re: contract']);
    expect((await found(alice.api_key, { q: 'contract', unread: 'true' })).map((h) => h.title)).toEqual(['The ACME contract']);
    expect(await found(alice.api_key, { q: 'quarterly', type: 'mail' })).toEqual([]);
    expect(await found(alice.api_key, { q: 'contract', before: '2000-01-01T00:00:00Z' })).toEqual([]);
    expect((await found(alice.api_key, { q: 'contract', after: '2000-01-01T00:00:00Z' })).length).toBe(2);
  });

  it("never shows another identity's mail or a chat it is not in, in its project or another", async () => {
    for (const q of ['cafe', 'contract', 'quarterly', 'fox', 'milestone', 'zeppelin', 'co*', 'the OR a OR we']) {
      expect(await found(carol.api_key, { q })).toEqual([]);
      expect(await found(dave.api_key, { q })).toEqual([]);
    }
    // Every hit an identity gets is its own: mail it received or sent, a chat it is in.
    for (const who of [alice, bob]) {
      for (const hit of await found(who.api_key, { q: 'the OR a OR we OR did OR you', limit: '50' }))
        expect(hit.kind === 'mail' || hit.kind === 'chat' ? hit.agent_id : hit.kind).toBe(who.agent_id);
    }
    // The owner-only narrowing is refused, not ignored.
    expectRefusal(await search(carol.api_key, { q: 'cafe', agent_id: alice.agent_id }), 422, /agent_id narrows the owner's search/, 'SVC_ERR_VALIDATION');
  });

  it('refuses query syntax it cannot read with a 422 naming the problem, never a 500', async () => {
    expectRefusal(await search(alice.api_key, { q: '"au lait' }), 422, /unclosed quote/, 'SVC_ERR_SEARCH_QUERY_INVALID');
    expectRefusal(await search(alice.api_key, { q: '(contract' }), 422, /parenthes/, 'SVC_ERR_SEARCH_QUERY_INVALID');
    expectRefusal(await search(alice.api_key, { q: 'NOT contract' }), 422, undefined, 'SVC_ERR_SEARCH_QUERY_INVALID');
    // FTS5 syntax typed by a user is only words: a column filter cannot reach the scope column.
    expect(await found(carol.api_key, { q: 'scope:a OR cafe' })).toEqual([]);
    expect(await found(carol.api_key, { q: '{scope body}: cafe' })).toEqual([]);
    expectRefusal(await search(alice.api_key, { q: 'cafe', type: 'mail,letters' }), 422, /unknown kind letters/, 'SVC_ERR_VALIDATION');
    expectRefusal(await search(alice.api_key, { q: 'cafe', cursor: 'nonsense' }), 422, /cursor/, 'SVC_ERR_VALIDATION');
  });

  it('pages with next_cursor, newest first when asked', async () => {
    const first = SearchResults.parse(expectOk(await search(alice.api_key, { q: 'contract OR fox OR coffee', sort: 'recent', limit: '2' })));
    expect(first.results).toHaveLength(2);
    expect(Date.parse(first.results[0]!.created_at)).toBeGreaterThanOrEqual(Date.parse(first.results[1]!.created_at));
    const second = SearchResults.parse(
      expectOk(await search(alice.api_key, { q: 'contract OR fox OR coffee', sort: 'recent', limit: '2', cursor: first.next_cursor! })),
    );
    expect(second.results.map((h) => (h.kind === 'mail' ? h.message_id : ''))).not.toContain(
      first.results[0]!.kind === 'mail' ? first.results[0]!.message_id : '',
    );
    expect(second.next_cursor).toBeNull();
    expect(first.index.complete).toBe(true);
  });

  it('ranks by relevance: a word in the subject above the body, a rarer word above a common one, and scores fall with them', async () => {
    const project = await createProject(t, 'rankers', DOMAIN);
    const erin = await createIdentity(t, project.api_key, { alias: 'erin' });
    const frank = await createIdentity(t, project.api_key, { alias: 'frank' });
    const send = async (subject: string, text: string) => expectOk(await mail(frank.api_key, { to_alias: 'erin', subject, body: text }));
    await send('Zebra crossing', 'Meet me there at noon.');
    await send('Notes', 'We saw a zebra near the road, then went home for a long and quiet evening of reading.');
    await send('Sightings', 'Walrus on the beach, and plenty of gulls around the pier.');
    for (let i = 0; i < 4; i++) await send(`Filler ${i}`, 'Another zebra, as every week: the zebra count goes on.');
    const ranked = await found(erin.api_key, { q: 'zebra OR walrus', type: 'mail', limit: '10' });
    const titles = ranked.map((h) => h.title);
    // The subject word counts four times a body word.
    expect(titles.indexOf('Zebra crossing')).toBeLessThan(titles.indexOf('Notes'));
    // "walrus" is in one mail, "zebra" in six: one walrus outweighs one zebra in a body as long.
    expect(titles.indexOf('Sightings')).toBeLessThan(titles.indexOf('Notes'));
    expect(ranked.map((h) => h.score)).toEqual([...ranked.map((h) => h.score)].sort((a, b) => b - a));
    expect(ranked.every((h) => h.score > 0)).toBe(true);
  });
});

describe('GET /v1/search/documents and /v1/search/library (team members)', () => {
  const teamSearch = (member: TeamClient, path: string, q: string) =>
    member.request('GET', `${path}?${new URLSearchParams({ q })}`, { aud: path.includes('documents') ? t.node.info.docs_url : t.node.info.library_url });

  it("finds the team's documents, an older version when only it matches, and nothing of another team", async () => {
    const beta = SearchResults.parse(expectOk(await teamSearch(acme, '/v1/search/documents', 'beta'))).results;
    expect(beta).toMatchObject([{ kind: 'document', slug: 'roadmap', version: 2, current: true }]);
    const alpha = SearchResults.parse(expectOk(await teamSearch(acme, '/v1/search/documents', 'alpha'))).results;
    expect(alpha).toMatchObject([{ kind: 'document', slug: 'roadmap', version: 1, current: false }]);
    // The word in both versions: the document once, at its current version.
    const milestone = SearchResults.parse(expectOk(await teamSearch(acme, '/v1/search/documents', 'milestone'))).results;
    expect(milestone).toMatchObject([{ slug: 'roadmap', version: 2, current: true }]);
    expect(highlighted(milestone[0]!)).toEqual(['milestone']);
    const theirs = SearchResults.parse(expectOk(await teamSearch(other, '/v1/search/documents', 'milestone'))).results;
    expect(theirs.map((h) => (h.kind === 'document' ? h.slug : ''))).toEqual(['secret']);
  });

  it("finds the team's shelf and the public catalog, not another team's shelf", async () => {
    const hits = SearchResults.parse(expectOk(await teamSearch(acme, '/v1/search/library', 'zeppelin'))).results;
    expect(hits.map((h) => `${h.kind}:${h.kind === 'profile' ? h.profile_ref : h.kind === 'blueprint' ? h.blueprint_ref : ''}`).sort()).toEqual([
      'blueprint:acme.crew',
      'profile:reviewer',
    ]);
    // A profile shows as the shelf shows it: by the name its profile.yaml gives.
    expect(hits.find((h) => h.kind === 'profile')?.title).toBe('The reviewer');
    const theirs = SearchResults.parse(expectOk(await teamSearch(other, '/v1/search/library', 'zeppelin'))).results;
    expect(theirs.map((h) => (h.kind === 'profile' ? h.profile_ref : h.kind)).sort()).toEqual(['blueprint', 'spy']);
  });

  it('needs the read scope of its surface', async () => {
    const writerOnly = await addTeamMember(t, { teamId: acme.teamId, alias: 'nodocs', scopes: ['library:read'] });
    expectRefusal(await teamSearch(writerOnly, '/v1/search/documents', 'milestone'), 403);
  });
});

describe('GET /v1/node/search (the owner)', () => {
  const owner = (query: Record<string, string>) => t.owner('GET', `/v1/node/search?${new URLSearchParams(query)}`);

  it("finds everything the node holds, or one identity's, or one team's", async () => {
    const all = SearchResults.parse(expectOk(await owner({ q: 'milestone OR zeppelin OR contract' }))).results;
    expect(new Set(all.map((h) => h.kind))).toEqual(new Set(['mail', 'document', 'profile', 'blueprint']));
    const carols = SearchResults.parse(expectOk(await owner({ q: 'contract', agent_id: carol.agent_id }))).results;
    expect(carols).toEqual([]);
    const alices = SearchResults.parse(expectOk(await owner({ q: 'contract', agent_id: alice.agent_id }))).results;
    expect(alices.map((h) => h.title).sort()).toEqual(['Re: contract', 'The ACME contract']);
    const teamOnly = SearchResults.parse(expectOk(await owner({ q: 'milestone OR zeppelin', team: other.teamId }))).results;
    expect(teamOnly.map((h) => h.kind).sort()).toEqual(['document', 'profile']);
    expectRefusal(await owner({ q: 'x', agent_id: alice.agent_id, team: other.teamId }), 422, /not both/, 'SVC_ERR_VALIDATION');
  });
});

describe('the MCP tool search', () => {
  it('answers as GET /v1/search does, for the identity whose key it uses', async () => {
    const session = await connectMcp(t.url, alice.api_key);
    try {
      const result = await session.call('search', { query: 'cafe' });
      expect(result.isError).toBe(false);
      expect(SearchResults.parse(result.body).results).toMatchObject([{ kind: 'mail', title: 'The ACME contract' }]);
      const refused = await session.call('search', { query: '"open' });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.body)).toMatch(/unclosed quote/);
      expect(SearchResults.parse((await session.call('search', { query: 'quarterly', type: 'mail' })).body).results).toEqual([]);
    } finally {
      await session.close();
    }
  });
});
