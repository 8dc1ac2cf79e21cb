/**
 * Who made each version, over real HTTP: the app signs through the owner's sign route
 * naming the identity chosen in its switcher (`acting_as`), and the node records that identity on
 * the version; without it the owner member is named. An outside member's own envelope cannot
 * claim to act for anyone. A visitor through an editable link is named by what they typed, and
 * never as the link's minter. A present link made in the app names the identity it acted as, an
 * agent's link its certificate. The sign route refuses identities that cannot act.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDocsMember, MARKDOWN, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import type { ApiResponse } from '../support/node.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
let alice: DocsClient;
let teamId: string;
let bob: { agent_id: string };
let carol: { agent_id: string };

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, 'credit.test');
  const project = await createProject(t, 'credit', 'credit.test');
  bob = await createIdentity(t, project.api_key, persistent('bob'));
  carol = await createIdentity(t, project.api_key, { alias: 'carol' });
  alice = await addDocsMember(t, { team: 'credit', domain: 'credit.test', alias: 'alice', address: 'credit.test/alice' });
  teamId = alice.teamId;
});
afterAll(async () => {
  await t.stop();
});

/** A documents request as the app makes it: signed by the owner's sign route, then sent. */
async function asApp(method: string, path: string, options: { json?: unknown; markdown?: string; actingAs?: string } = {}): Promise<ApiResponse> {
  const text = options.json !== undefined ? JSON.stringify(options.json) : options.markdown;
  const signed = await t.owner('POST', `/v1/node/teams/${encodeURIComponent(teamId)}/sign`, {
    method,
    path,
    surface: 'docs',
    ...(text === undefined ? {} : { body: text }),
    ...(options.actingAs === undefined ? {} : { acting_as: options.actingAs }),
  });
  if (signed.status !== 200) return signed;
  const { url, headers } = signed.body as { url: string; headers: Record<string, string> };
  const contentType = options.json !== undefined ? 'application/json' : MARKDOWN;
  const response = await fetch(url, { method, headers: { ...headers, ...(text === undefined ? {} : { 'content-type': contentType }) }, body: text });
  return { status: response.status, headers: response.headers, body: await response.json() } as ApiResponse;
}

const versionsOf = async (slug: string) => expectOk(await alice.request('GET', `/v1/documents/${slug}/versions`)) as any[];

describe('saves made in the app', () => {
  it('record the identity the app acts as on every kind of write', async () => {
    const created = expectOk(await asApp('POST', '/v1/documents', { json: { slug: 'notes', title: 'Notes', body: '# One\n' }, actingAs: bob.agent_id }), 201);
    expect(created.latest.acting_as).toEqual({ agent_id: bob.agent_id, alias: 'bob', name: 'bob', address: 'credit.test/bob' });
    expect(created.latest.author).toEqual({ kind: 'identity', name: 'bob', address: 'credit.test/bob' });
    // Still signed as the owner member: the certificate fields say so, unchanged.
    expect(created.latest.created_by_alias).toBe('owner');

    expectOk(await asApp('POST', '/v1/documents/notes/versions', { markdown: '# Two\n', actingAs: carol.agent_id }), 201);
    expectOk(
      await asApp('POST', '/v1/documents/notes/versions/template', { json: { name: 'memo', slots: { cover: { title: 'Three' } } }, actingAs: bob.agent_id }),
      201,
    );
    expectOk(await asApp('POST', '/v1/documents/notes/versions', { markdown: '# Four\n' }), 201);

    const history = await versionsOf('notes');
    expect(history.map((v) => [v.version_number, v.author])).toEqual([
      [4, { kind: 'member', name: 'owner', address: null }],
      [3, { kind: 'identity', name: 'bob', address: 'credit.test/bob' }],
      [2, { kind: 'identity', name: 'carol', address: null }],
      [1, { kind: 'identity', name: 'bob', address: 'credit.test/bob' }],
    ]);
    expect(history[2].acting_as).toEqual({ agent_id: carol.agent_id, alias: 'carol', name: 'carol', address: null });
    // One version read on its own says the same.
    expect(expectOk(await alice.request('GET', '/v1/documents/notes/versions/3')).author).toEqual({
      kind: 'identity',
      name: 'bob',
      address: 'credit.test/bob',
    });
  });

  it('refuses to sign for an identity that is unknown or cannot act, signing nothing', async () => {
    expectRefusal(await asApp('POST', '/v1/documents/notes/versions', { markdown: '# x\n', actingAs: '00000000-0000-4000-8000-000000000000' }), 404);
    expectValidation(await asApp('POST', '/v1/documents/notes/versions', { markdown: '# x\n', actingAs: '' }), 'acting_as');
    const project = await createProject(t, 'gone', 'credit.test');
    const dave = await createIdentity(t, project.api_key, persistent('dave'));
    expectOk(await t.owner('POST', `/api/v1/agents/${dave.agent_id}/archive`));
    expectRefusal(
      await asApp('POST', '/v1/documents/notes/versions', { markdown: '# x\n', actingAs: dave.agent_id }),
      422,
      /archived/,
      'SVC_ERR_ACTING_AS_INACTIVE',
    );
    expect((await versionsOf('notes')).length).toBe(4);
  });
});

describe('members and visitors', () => {
  it('name an agent by its certificate, whatever its own envelope claims', async () => {
    const claim = { agent_id: bob.agent_id, alias: 'bob', name: 'bob', address: 'credit.test/bob' };
    const created = expectOk(
      await alice.request('POST', '/v1/documents', { body: { slug: 'agent-doc', title: 'By an agent', body: 'x' }, extra: { acting_as: claim } }),
      201,
    );
    expect(created.latest.acting_as).toBeNull();
    expect(created.latest.author).toEqual({ kind: 'member', name: 'alice', address: 'credit.test/alice' });
  });

  it('name a visitor through an editable link by what they typed, and never the minter', async () => {
    expectOk(await asApp('POST', '/v1/documents', { json: { slug: 'open', title: 'Open', body: 'v1' }, actingAs: bob.agent_id }), 201);
    const link = expectOk(await asApp('POST', '/v1/present', { json: { slug: 'open', editable: true }, actingAs: bob.agent_id }), 201);
    const edit = async (body: Record<string, unknown>) =>
      (await fetch(`${link.url}/edit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;
    expect(await edit({ body: 'v2', base_version: 1 })).toBe(200);
    expect(await edit({ body: 'v3', base_version: 2, editor_name: '  Zoë   Visitor ' })).toBe(200);
    const history = await versionsOf('open');
    expect(history.map((v) => [v.version_number, v.source, v.author])).toEqual([
      [3, 'present-link', { kind: 'link-editor', name: 'Zoë Visitor', address: null }],
      [2, 'present-link', { kind: 'link-editor', name: null, address: null }],
      [1, 'api', { kind: 'identity', name: 'bob', address: 'credit.test/bob' }],
    ]);
    // The minter stays on record, as before.
    expect(history[1].created_by_alias).toBe('owner');
  });
});

describe('present links', () => {
  it('name the identity the app acted as when it made them, and an agent by its certificate', async () => {
    expectOk(await asApp('POST', '/v1/documents', { json: { slug: 'shown', title: 'Shown', body: 'x' }, actingAs: bob.agent_id }), 201);
    const byBob = expectOk(await asApp('POST', '/v1/present', { json: { slug: 'shown' }, actingAs: bob.agent_id }), 201);
    const byCarol = expectOk(await asApp('POST', '/v1/present', { json: { slug: 'shown' }, actingAs: carol.agent_id }), 201);
    const unnamed = expectOk(await asApp('POST', '/v1/present', { json: { slug: 'shown' } }), 201);
    const claim = { agent_id: bob.agent_id, alias: 'bob', name: 'bob', address: 'credit.test/bob' };
    const byAgent = expectOk(await alice.request('POST', '/v1/present', { body: { slug: 'shown' }, extra: { acting_as: claim } }), 201);

    const links = expectOk(await alice.request('GET', '/v1/present')) as { link_id: string; created_by_alias: string; created_by_acting_as: unknown }[];
    const who = (id: string) => {
      const link = links.find((l) => l.link_id === id)!;
      return [link.created_by_alias, link.created_by_acting_as];
    };
    expect(who(byBob.link_id)).toEqual(['owner', claim]);
    expect(who(byCarol.link_id)).toEqual(['owner', { agent_id: carol.agent_id, alias: 'carol', name: 'carol', address: null }]);
    expect(who(unnamed.link_id)).toEqual(['owner', null]);
    expect(who(byAgent.link_id)).toEqual(['alice', null]);
  });
});
