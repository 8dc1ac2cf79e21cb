/**
 * Present links over real HTTP (spec §3, §4.7; docs/adr/0006-library-and-document-surfaces.md):
 * mint with defaults, clamping and pinning; revoke; expiry on a node clock the test moves; the
 * public read page (pinned version, CSP and robots headers, no script, hostile Markdown
 * neutralised); editable links (editor page, state, preview, edit with stale-base 409); listing
 * without tokens; `docs/doc.changed` for saves.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDocsMember, setDocCaps, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';

let offsetMs = 0;
/** A clock the test can move: links expire in node time. */
const clock = { now: () => new Date(Date.now() + offsetMs) };

let t: TestNode;
let alice: DocsClient;
let reader: DocsClient;
let outsider: DocsClient;

beforeAll(async () => {
  t = await startTestNode({ clock });
  alice = await addDocsMember(t, { team: 'present', domain: 'present.test', alias: 'alice', address: 'present.test/alice' });
  reader = await addDocsMember(t, { teamId: alice.teamId, alias: 'reader', scopes: ['docs:read'] });
  outsider = await addDocsMember(t, { team: 'elsewhere', domain: 'elsewhere.test', alias: 'eve' });
});
afterAll(async () => {
  await t.stop();
});
afterEach(() => {
  offsetMs = 0;
});

interface Page {
  status: number;
  text: string;
  headers: Headers;
}

async function page(url: string): Promise<Page> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text(), headers: response.headers };
}

async function publicPost(url: string, body: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

async function publicGet(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

const mint = (client: DocsClient, body: Record<string, unknown>) => client.request('POST', '/v1/present', { body });

/** The 404 page, byte for byte the same for every token; the first one seen is the reference. */
let notFoundText: string | null = null;

function expectNotFoundPage(p: Page): void {
  expect(p.status).toBe(404);
  expect(p.headers.get('content-type')).toMatch(/^text\/html/);
  expect(p.text).toContain('<h1>Not found</h1>');
  expect(p.text).not.toMatch(/present|alice|slug|version/i);
  // A small styled page, still with nothing a guesser could learn, and no script.
  expect(p.text).toContain('<title>Link not found</title>');
  expect(p.text).toMatch(/<style>[\s\S]*prefers-color-scheme:dark[\s\S]*<\/style>/);
  expect(p.text).not.toContain('<script');
  notFoundText ??= p.text;
  expect(p.text).toBe(notFoundText);
}

describe('mint', () => {
  it('mints a read link to the latest version with the default lifetime', async () => {
    expectOk(await alice.create('deck', '# One\n'), 201);
    expectOk(await alice.append('deck', '# Two\n'), 201);
    const before = clock.now().getTime();
    const link = expectOk(await mint(alice, { slug: 'deck' }), 201);
    expect(link).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      url: `${t.node.info.docs_url}/present/${link.token}`,
      link_id: expect.any(String),
      slug: 'deck',
      version: 2,
      editable: false,
      ttl_seconds: 86_400,
      expires_at: expect.any(String),
    });
    const expires = Date.parse(link.expires_at) - before;
    expect(expires).toBeGreaterThanOrEqual(86_400_000 - 1000);
    expect(expires).toBeLessThanOrEqual(86_400_000 + 5000);
  });

  it('pins a requested version and clamps the lifetime to seven days', async () => {
    const link = expectOk(await mint(alice, { slug: 'deck', version: 1, ttl_seconds: 10_000_000, editable: false }), 201);
    expect(link.version).toBe(1);
    expect(link.ttl_seconds).toBe(604_800);
    expect(Date.parse(link.expires_at) - clock.now().getTime()).toBeLessThanOrEqual(604_800_000);
    expect(Date.parse(link.expires_at) - clock.now().getTime()).toBeGreaterThan(604_700_000);
    expect(expectOk(await mint(alice, { slug: 'deck', ttl_seconds: 60 }), 201).ttl_seconds).toBe(60);
  });

  it("refuses absent versions, unknown and other teams' documents (404), bad bodies (422), and readers (403)", async () => {
    expectRefusal(await mint(alice, { slug: 'deck', version: 3 }), 404, undefined, 'SVC_ERR_DOCUMENT_VERSION_NOT_FOUND');
    expectRefusal(await mint(alice, { slug: 'nope' }), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
    expectOk(await outsider.create('theirs', 'secret'), 201);
    expectRefusal(await mint(alice, { slug: 'theirs' }), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
    expectValidation(await mint(alice, { slug: 'deck', version: 0 }), 'version');
    expectValidation(await mint(alice, { slug: 'deck', ttl_seconds: 0 }), 'ttl_seconds');
    expectValidation(await mint(alice, { slug: 'deck', extra: true }), 'extra');
    expectValidation(await mint(alice, {}), 'slug');
    expectRefusal(await mint(reader, { slug: 'deck' }), 403, /docs:write/);
  });
});

describe('the read page', () => {
  it('renders the pinned version, even after later appends, with strict headers and no script', async () => {
    expectOk(await alice.create('pinned', '# First version\n\nHello **world**.\n', 'Secret title'), 201);
    const link = expectOk(await mint(alice, { slug: 'pinned' }), 201);
    expectOk(await alice.append('pinned', '# Second version\n'), 201);
    const p = await page(link.url);
    expect(p.status).toBe(200);
    expect(p.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
    // The tab says what the document is: whoever holds the link sees the title on the page anyway.
    expect(p.text).toContain('<title>Secret title</title>');
    expect(p.text).toContain('<meta name="robots" content="noindex, nofollow, noarchive">');
    expect(p.text).toMatch(/<main class="page"><article class="surface">/);
    expect(p.text).toContain('First version');
    expect(p.text).toContain('<strong>world</strong>');
    expect(p.text).not.toContain('Second version');
    expect(p.text).toContain('@media print');
    expect(p.text).not.toContain('<script');
    expect(p.headers.get('content-security-policy')).toBe(
      "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(p.headers.get('x-robots-tag')).toBe('noindex, nofollow, noarchive');
    expect(p.headers.get('x-content-type-options')).toBe('nosniff');
    expect(p.headers.get('referrer-policy')).toBe('no-referrer');
    expect(p.headers.get('cache-control')).toBe('no-store');
  });

  it('neutralises hostile Markdown', async () => {
    const hostile = '<script>alert(1)</script>\n\n[click](javascript:alert(2))\n\n<img src=x onerror=alert(3)>\n\n![x](https://evil.test/x.png)\n';
    expectOk(await alice.create('hostile', hostile), 201);
    const p = await page(expectOk(await mint(alice, { slug: 'hostile' }), 201).url);
    expect(p.status).toBe(200);
    expect(p.text).not.toContain('<script');
    expect(p.text).not.toMatch(/href="javascript:/i);
    expect(p.text).not.toMatch(/<img[^>]*onerror/i);
    expect(p.text).not.toContain('evil.test');
    expect(p.text).toContain('&lt;script&gt;');
  });

  it('is the same small 404 page for unknown and malformed tokens', async () => {
    expectNotFoundPage(await page(`${t.node.info.docs_url}/present/${'A'.repeat(43)}`));
    expectNotFoundPage(await page(`${t.node.info.docs_url}/present/short`));
  });

  it('is served on the core listener too (public, no auth)', async () => {
    const link = expectOk(await mint(alice, { slug: 'pinned' }), 201);
    expect((await page(`${t.url}/present/${link.token}`)).status).toBe(200);
  });
});

describe('revoke and expiry', () => {
  it('revokes idempotently, after which the page is a bare 404', async () => {
    const link = expectOk(await mint(alice, { slug: 'deck' }), 201);
    expect((await page(link.url)).status).toBe(200);
    expect(expectOk(await alice.request('POST', `/v1/present/${link.token}/revoke`))).toEqual({ revoked: true });
    expectNotFoundPage(await page(link.url));
    expect(expectOk(await alice.request('POST', `/v1/present/${link.token}/revoke`))).toEqual({ revoked: true });
    const listed = expectOk(await alice.request('GET', '/v1/present')).find((l: { link_id: string }) => l.link_id === link.link_id);
    expect(listed.revoked_at).toEqual(expect.any(String));
  });

  it('revokes by link_id too (listings never show tokens), only within the team', async () => {
    const link = expectOk(await mint(alice, { slug: 'deck' }), 201);
    expectRefusal(await outsider.request('POST', `/v1/present/${link.link_id}/revoke`), 404, undefined, 'SVC_ERR_PRESENT_LINK_NOT_FOUND');
    expect((await page(link.url)).status).toBe(200);
    expect(expectOk(await alice.request('POST', `/v1/present/${link.link_id.toUpperCase()}/revoke`))).toEqual({ revoked: true });
    expectNotFoundPage(await page(link.url));
    expectRefusal(await alice.request('POST', '/v1/present/00000000-0000-4000-8000-000000000000/revoke'), 404, undefined, 'SVC_ERR_PRESENT_LINK_NOT_FOUND');
  });

  it("nudges the owner's feed on mint and revoke, so an open list of links follows", async () => {
    const response = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(10))}`, { token: t.node.ownerToken });
    const stream = response.stream!;
    try {
      expect((await stream.next()).event).toBe('connected');
      const link = expectOk(await mint(alice, { slug: 'deck' }), 201);
      expect(await stream.next()).toMatchObject({ event: 'docs_changed', data: { team_id: alice.teamId } });
      expectOk(await alice.request('POST', `/v1/present/${link.link_id}/revoke`));
      expect(await stream.next()).toMatchObject({ event: 'docs_changed', data: { team_id: alice.teamId } });
      // Revoking again changes nothing, and says nothing; nor does a refused mint.
      expectOk(await alice.request('POST', `/v1/present/${link.link_id}/revoke`));
      expectRefusal(await mint(reader, { slug: 'deck' }), 403);
      expect(await stream.maybeNext(300)).toBeNull();
    } finally {
      stream.close();
    }
  });

  it('refuses another team, unknown tokens (404) and readers (403)', async () => {
    const link = expectOk(await mint(alice, { slug: 'deck' }), 201);
    expectRefusal(await outsider.request('POST', `/v1/present/${link.token}/revoke`), 404, undefined, 'SVC_ERR_PRESENT_LINK_NOT_FOUND');
    expectRefusal(await alice.request('POST', `/v1/present/${'B'.repeat(43)}/revoke`), 404, undefined, 'SVC_ERR_PRESENT_LINK_NOT_FOUND');
    expectRefusal(await reader.request('POST', `/v1/present/${link.token}/revoke`), 403, /docs:write/);
    expect((await page(link.url)).status).toBe(200);
  });

  it('expires in node time', async () => {
    const link = expectOk(await mint(alice, { slug: 'deck', ttl_seconds: 120 }), 201);
    offsetMs = 119_000;
    expect((await page(link.url)).status).toBe(200);
    offsetMs = 120_000;
    expectNotFoundPage(await page(link.url));
  });
});

describe('editable links', () => {
  it('open an editor over the latest version, with a nonce for its one script', async () => {
    expectOk(await alice.create('shared', '# Draft <one>\n'), 201);
    const link = expectOk(await mint(alice, { slug: 'shared', version: 1, editable: true }), 201);
    expect(link.editable).toBe(true);
    expectOk(await alice.append('shared', '# Draft two & more\n'), 201);
    const p = await page(link.url);
    expect(p.status).toBe(200);
    expect(p.text).toContain('<title>Title of shared</title>');
    expect(p.text).toContain('# Draft two &#38; more');
    expect(p.text).toContain('data-version="2"');
    // A heading names the document and what saving does, above the text (not a bare textarea).
    expect(p.text).toContain('<h1 class="editor-title">Title of shared</h1>');
    expect(p.text).toMatch(/editing the latest version \(2\) through a link\. Saving makes a new version/);
    const csp = p.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(p.text.match(/<script/g)).toHaveLength(1);
    expect(p.text).toContain(`<script nonce="${nonce}">`);
    expect(p.headers.get('x-robots-tag')).toBe('noindex, nofollow, noarchive');
    const again = await page(link.url);
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });

  it('answer state and preview', async () => {
    const link = expectOk(await mint(alice, { slug: 'shared', editable: true }), 201);
    expect(await publicGet(`${link.url}/state`)).toEqual({ status: 200, body: { version_number: 2 } });
    const preview = await publicPost(`${link.url}/preview`, { body: '# Hi\n\n<script>x</script> [a](javascript:y)' });
    expect(preview.status).toBe(200);
    expect(preview.body.html).toContain('<h1>Hi</h1>');
    expect(preview.body.html).not.toContain('<script');
    expect(preview.body.html).not.toContain('javascript:');
    expect(preview.headers.get('cache-control')).toBe('no-store');
    expect((await publicPost(`${link.url}/preview`, { body: 'x'.repeat(200_001) })).status).toBe(422);
  });

  it('save a new version as the minter with the editor name, and refuse a stale base with the latest', async () => {
    const link = expectOk(await mint(alice, { slug: 'shared', editable: true }), 201);
    const saved = await publicPost(`${link.url}/edit`, { body: '# Edited\n', base_version: 2, editor_name: '  Ada \n  Lovelace ' });
    expect(saved).toMatchObject({ status: 200, body: { version_number: 3 } });
    const doc = expectOk(await alice.get('shared'));
    expect(doc.body).toBe('# Edited\n');
    expect(doc.latest).toMatchObject({
      version_number: 3,
      source: 'present-link',
      created_by_did_key: alice.member.key.didKey,
      created_by_alias: 'alice',
      created_by_address: null,
      certificate_id: alice.member.certificateId,
      created_by_editor_name: 'Ada Lovelace',
    });

    const stale = await publicPost(`${link.url}/edit`, { body: '# Mine\n', base_version: 2 });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({
      detail: { message: expect.stringMatching(/version 3/), version_number: 3, body: '# Edited\n' },
      code: 'SVC_ERR_DOCUMENT_VERSION_STALE',
    });
    expect(expectOk(await alice.get('shared')).current_version).toBe(3);

    const anonymous = await publicPost(`${link.url}/edit`, { body: '# Anon\n', base_version: 3, editor_name: '   ' });
    expect(anonymous.body).toEqual({ version_number: 4 });
    expect(expectOk(await alice.get('shared')).latest.created_by_editor_name).toBeNull();
  });

  it('refuse malformed edits', async () => {
    const link = expectOk(await mint(alice, { slug: 'shared', editable: true }), 201);
    expect((await publicPost(`${link.url}/edit`, { body: 'x' })).status).toBe(422);
    expect((await publicPost(`${link.url}/edit`, { body: 'x', base_version: 0 })).status).toBe(422);
    expect((await publicPost(`${link.url}/edit`, { body: 'x', base_version: 4, editor_name: 'n'.repeat(121) })).status).toBe(422);
    expect((await publicPost(`${link.url}/edit`, { body: 'x', base_version: 4, extra: 1 })).status).toBe(422);
  });

  it('are capped like any other append (402)', async () => {
    expectOk(await alice.create('capped', 'one'), 201);
    const link = expectOk(await mint(alice, { slug: 'capped', editable: true }), 201);
    expectOk(await setDocCaps(t, { max_documents: null, max_versions_per_doc: 1 }));
    try {
      const refused = await publicPost(`${link.url}/edit`, { body: 'two', base_version: 1 });
      expect(refused.status).toBe(402);
      expect(refused.body.detail.message).toEqual(expect.any(String));
      expect(refused.body.code).toBe('SVC_ERR_FREE_TIER_LIMIT');
    } finally {
      expectOk(await setDocCaps(t, { max_documents: null, max_versions_per_doc: null }));
    }
    expect(expectOk(await alice.get('capped')).current_version).toBe(1);
  });

  it('are the only links with state, preview and edit (404 for read links, revoked and unknown tokens)', async () => {
    const readLink = expectOk(await mint(alice, { slug: 'shared' }), 201);
    const editLink = expectOk(await mint(alice, { slug: 'shared', editable: true }), 201);
    expectOk(await alice.request('POST', `/v1/present/${editLink.token}/revoke`));
    for (const url of [readLink.url, editLink.url, `${t.node.info.docs_url}/present/${'C'.repeat(43)}`]) {
      const state = await publicGet(`${url}/state`);
      expect(state).toEqual({ status: 404, body: { detail: 'Not found', code: 'SVC_ERR_PRESENT_LINK_NOT_FOUND' } });
      expect((await publicPost(`${url}/preview`, { body: 'x' })).status).toBe(404);
      const edit = await publicPost(`${url}/edit`, { body: 'x', base_version: 1 });
      expect(edit.status).toBe(404);
      expect(edit.body).toEqual({ detail: expect.stringMatching(/no longer accepts edits/), code: 'SVC_ERR_PRESENT_LINK_NOT_FOUND' });
    }
    expect(expectOk(await alice.get('shared')).current_version).toBe(4);
  });
});

describe('listing', () => {
  it("lists the team's links without their tokens, for docs:read members only", async () => {
    const link = expectOk(await mint(alice, { slug: 'deck', version: 1, editable: true, ttl_seconds: 300 }), 201);
    const links = expectOk(await reader.request('GET', '/v1/present'));
    expect(JSON.stringify(links)).not.toContain(link.token);
    expect(links.find((l: { link_id: string }) => l.link_id === link.link_id)).toEqual({
      link_id: link.link_id,
      slug: 'deck',
      version: 1,
      editable: true,
      expires_at: link.expires_at,
      revoked_at: null,
      created_by_alias: 'alice',
      // An agent's own link: named by its certificate, no identity of the node acting.
      created_by_acting_as: null,
      created_at: expect.any(String),
    });
    expect(expectOk(await outsider.request('GET', '/v1/present'))).toEqual([]);
  });
});

describe('docs/doc.changed', () => {
  const open: SseClient[] = [];
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });

  it('announces a save through an editable link with source present-link', async () => {
    await createNodeNamespace(t, 'events.present.test');
    const project = await createProject(t, 'present-events', 'events.present.test');
    const watcher = await createIdentity(t, project.api_key, { alias: 'watcher' });
    const writer = await addDocsMember(t, { team: 'watched-present', domain: 'events.present.test', alias: 'author' });
    expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(writer.teamId)}/members`, { did_key: watcher.did_key, alias: 'watcher' }), 201);
    expectOk(await t.request('POST', '/v1/events/subscriptions', { token: watcher.api_key, body: { type: 'docs/doc.changed' } }), 201);
    const response = await connectSse(`${t.url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(30))}`, { token: watcher.api_key });
    const stream = response.stream!;
    open.push(stream);
    expect((await stream.next()).event).toBe('connected');

    expectOk(await writer.create('evented', 'one'), 201);
    const link = expectOk(await mint(writer, { slug: 'evented', editable: true }), 201);
    expect((await publicPost(`${link.url}/edit`, { body: 'two', base_version: 1 })).status).toBe(200);
    const frames = [await stream.next(), await stream.next()];
    expect(frames.map((f) => [f.event, f.data.slug, f.data.version, f.data.source])).toEqual([
      ['docs/doc.changed', 'evented', 1, 'api'],
      ['docs/doc.changed', 'evented', 2, 'present-link'],
    ]);
  });
});

describe('images on present pages', () => {
  const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest of a png')]);
  const upload = async (client: DocsClient) =>
    expectOk(await client.request('POST', '/v1/assets', { body: { content_type: 'image/png', data_base64: PNG.toString('base64') } }), 201).asset_id as string;

  it("shows the team's own images and drops another team's", async () => {
    const mine = await upload(alice);
    const theirs = await upload(outsider);
    const body = `# Pictures\n\n![ours](/assets/${mine})\n\n![theirs](/assets/${theirs})\n`;
    expectOk(await alice.request('POST', '/v1/documents', { body: { slug: 'pictures', title: 'Pictures', body } }), 201);
    const link = expectOk(await mint(alice, { slug: 'pictures' }), 201);
    const shown = await page(link.url);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(`src="/assets/${mine}"`);
    expect(shown.text).not.toContain(theirs);
    expect(shown.text).toContain('theirs');
    const image = await fetch(`${t.url}/assets/${mine}`);
    expect(image.headers.get('content-type')).toBe('image/png');
  });
});
