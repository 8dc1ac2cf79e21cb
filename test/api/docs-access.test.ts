/**
 * Who may do what on the document surface (DESIGN §4): `docs:read` for every read, `docs:write` for
 * every write, recorded per certificate; and `docs/doc.changed` reaching a subscribed team member's
 * event stream after each committed version, create included (DESIGN §5;
 * docs/adr/0006-library-and-document-surfaces.md).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';

let t: TestNode;
let writerAndReader: DocsClient;
let readOnly: DocsClient;
let writeOnly: DocsClient;
let noScopes: DocsClient;

const cover = { title: 'T' };

beforeAll(async () => {
  t = await startTestNode();
  writerAndReader = await addDocsMember(t, { team: 'scopes', domain: 'scopes.test', alias: 'full' });
  const teamId = writerAndReader.teamId;
  readOnly = await addDocsMember(t, { teamId, alias: 'reader', scopes: ['docs:read'] });
  writeOnly = await addDocsMember(t, { teamId, alias: 'writer', scopes: ['docs:write'] });
  noScopes = await addDocsMember(t, { teamId, alias: 'none', scopes: [] });
  expectOk(await writerAndReader.create('shared', 'v1\n'), 201);
});
afterAll(async () => {
  await t.stop();
});

const reads: [string, string][] = [
  ['GET', '/v1/documents'],
  ['GET', '/v1/documents/shared'],
  ['GET', '/v1/documents/shared/versions'],
  ['GET', '/v1/documents/shared/versions/1'],
  ['GET', '/v1/templates'],
  ['GET', '/v1/templates/pitch'],
  ['GET', '/v1/billing'],
];

async function writes(client: DocsClient, slug: string) {
  return [
    await client.create(slug, 'body'),
    await client.createFromTemplate(`${slug}-t`, { name: 'memo', slots: { cover } }),
    await client.append('shared', 'changed\n'),
    await client.appendTemplate('shared', { name: 'memo', slots: { cover } }),
  ];
}

async function state() {
  const doc = expectOk(await writerAndReader.get('shared'));
  const list = expectOk(await writerAndReader.request('GET', '/v1/documents'));
  return { version: doc.current_version, body: doc.body, slugs: list.map((d: any) => d.slug) };
}

describe('scopes', () => {
  it('lets a docs:read member read everything and write nothing (403), changing nothing', async () => {
    for (const [method, path] of reads) expect((await readOnly.request(method, path)).status, path).toBe(200);
    const before = await state();
    for (const res of await writes(readOnly, 'by-reader')) expectRefusal(res, 403, /docs:write/, 'SVC_ERR_SCOPE_MISSING');
    // A wrongly typed body is still a 403 first: the scope decides before the content.
    expectRefusal(await readOnly.request('POST', '/v1/documents/shared/versions', { body: { x: 1 } }), 403);
    expect(await state()).toEqual(before);
  });

  it('lets a docs:write-only member write but not read (each route checks its own scope)', async () => {
    const [create, createT, append, appendT] = await writes(writeOnly, 'by-writer');
    expect([create!.status, createT!.status, append!.status, appendT!.status]).toEqual([201, 201, 201, 201]);
    for (const [method, path] of reads) expectRefusal(await writeOnly.request(method, path), 403, /docs:read/, 'SVC_ERR_SCOPE_MISSING');
  });

  it('refuses a member with neither scope everywhere', async () => {
    const before = await state();
    for (const [method, path] of reads) expectRefusal(await noScopes.request(method, path), 403);
    for (const res of await writes(noScopes, 'by-none')) expectRefusal(res, 403);
    expect(await state()).toEqual(before);
  });

  it('records who made each version', async () => {
    const history = expectOk(await readOnly.request('GET', '/v1/documents/shared/versions'));
    expect(history.map((v: any) => [v.version_number, v.created_by_alias, v.source])).toEqual([
      [3, 'writer', 'template'],
      [2, 'writer', 'api'],
      [1, 'full', 'api'],
    ]);
    expect(history[0].certificate_id).toBe(writeOnly.member.certificateId);
  });

  it('refuses a revoked certificate', async () => {
    const gone = await addDocsMember(t, { teamId: writerAndReader.teamId, alias: 'gone' });
    expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(gone.teamId)}/members/${gone.member.certificateId}/revoke`));
    expectRefusal(await gone.request('GET', '/v1/documents'), 401, /revoked/);
  });

  it('checks the envelope audience against the docs surface origins', async () => {
    expectRefusal(await readOnly.request('GET', '/v1/documents', { aud: 'https://elsewhere.test' }), 401, /aud/);
  });
});

describe('docs/doc.changed', () => {
  const open: SseClient[] = [];
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });

  it('reaches a subscribed member on create, append and template append, never for a refusal', async () => {
    await createNodeNamespace(t, 'events.docs.test');
    const project = await createProject(t, 'docs-events', 'events.docs.test');
    const reader = await createIdentity(t, project.api_key, { alias: 'watcher' });
    const writer = await addDocsMember(t, { team: 'watched', domain: 'events.docs.test', alias: 'author' });
    const added = await t.owner('POST', `/v1/node/teams/${encodeURIComponent(writer.teamId)}/members`, { did_key: reader.did_key, alias: 'watcher' });
    expectOk(added, 201);
    const subscribed = await t.request('POST', '/v1/events/subscriptions', { token: reader.api_key, body: { type: 'docs/doc.changed' } });
    expectOk(subscribed, 201);

    const response = await connectSse(`${t.url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(30))}`, { token: reader.api_key });
    expect(response.status).toBe(200);
    const stream = response.stream!;
    open.push(stream);
    expect((await stream.next()).event).toBe('connected');

    expectOk(await writer.create('watched-doc', 'one'), 201);
    expectOk(await writer.append('watched-doc', 'two'), 201);
    expectOk(await writer.appendTemplate('watched-doc', { name: 'memo', slots: { cover } }), 201);
    expectOk(await writer.createFromTemplate('watched-t', { name: 'metrics', slots: { cover } }), 201);
    const frames = [await stream.next(), await stream.next(), await stream.next(), await stream.next()];
    expect(frames.map((f) => f.event)).toEqual(Array(4).fill('docs/doc.changed'));
    expect(frames.map((f) => [f.data.slug, f.data.version, f.data.source, f.data.resource_ref])).toEqual([
      ['watched-doc', 1, 'api', 'watched-doc'],
      ['watched-doc', 2, 'api', 'watched-doc'],
      ['watched-doc', 3, 'template', 'watched-doc'],
      ['watched-t', 1, 'template', 'watched-t'],
    ]);
    for (const frame of frames) expect(JSON.stringify(frame.data)).not.toContain('one');

    expectRefusal(await writer.append('watched-doc', 'bad', 'text/plain'), 415, undefined, 'SVC_ERR_UNSUPPORTED_MEDIA_TYPE');
    expectRefusal(await writer.create('watched-doc', 'again'), 409, undefined, 'SVC_ERR_DOCUMENT_SLUG_TAKEN');
    expect(await stream.maybeNext(300)).toBeNull();
  });
});
