/**
 * The editors' live preview (`POST /v1/present/preview`, ours) and the palettes a present page
 * paints: the preview is the present page's own HTML for a body and an optional unsaved theme,
 * with every palette's text-on-surface contrast; pages paint exactly the palettes the contrast
 * check passed. Also the owner feed's `docs_changed` nudge that keeps the Documents view live.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn } from '../support/sse.ts';

let t: TestNode;
let alice: DocsClient;
let reader: DocsClient;
let outsider: DocsClient;

beforeAll(async () => {
  t = await startTestNode();
  alice = await addDocsMember(t, { team: 'preview', domain: 'preview.test', alias: 'alice' });
  reader = await addDocsMember(t, { teamId: alice.teamId, alias: 'reader', scopes: ['docs:read'] });
  outsider = await addDocsMember(t, { team: 'elsewhere', domain: 'elsewhere.test', alias: 'eve' });
});
afterAll(async () => {
  await t.stop();
});

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest of a png')]);
const preview = (client: DocsClient, body: Record<string, unknown>) => client.request('POST', '/v1/present/preview', { body });

async function pageOf(slug: string, client: DocsClient = alice): Promise<string> {
  const link = expectOk(await client.request('POST', '/v1/present', { body: { slug } }), 201);
  return (await fetch(link.url)).text();
}

describe('POST /v1/present/preview', () => {
  it('renders an unsaved body as the present page would, sanitised, with the saved theme', async () => {
    expectOk(await alice.request('PUT', '/v1/theme', { body: { header: 'Acme memo', tokens: { colors: { accent: '#8a1c7c' } } } }));
    const shown = expectOk(await preview(reader, { body: '# Draft\n\n<script>alert(1)</script> [x](javascript:alert(1))' }));
    expect(shown.html).toMatch(/^<!doctype html>/);
    expect(shown.html).toContain('<h1>Draft</h1>');
    expect(shown.html).toContain('Acme memo');
    expect(shown.html).toContain('--accent:#8a1c7c;');
    expect(shown.html).not.toContain('<script');
    expect(shown.html).not.toContain('javascript:');
    expect(shown.contrast).toEqual([
      {
        palette: 'light',
        text: '#1f2328',
        surface: '#ffffff',
        ratio: expect.any(Number),
        passes: true,
        // Every text colour the page paints, each on what it is painted on.
        checks: [
          { role: 'text', label: 'text', foreground: '#1f2328', on: 'surface', background: '#ffffff', ratio: expect.any(Number), passes: true },
          { role: 'muted', label: 'muted text', foreground: '#57606a', on: 'surface', background: '#ffffff', ratio: expect.any(Number), passes: true },
          { role: 'link', label: 'link colour (accent)', foreground: '#8a1c7c', on: 'surface', background: '#ffffff', ratio: expect.any(Number), passes: true },
          { role: 'code', label: 'text', foreground: '#1f2328', on: 'code block background', background: '#f5f5f5', ratio: expect.any(Number), passes: true },
        ],
      },
    ]);
    // What unset colours fall back to, for an editor's swatches.
    expect(shown.base_palettes.light).toMatchObject({ surface: '#ffffff', text: '#1f2328' });
    expect(shown.base_palettes.dark).toMatchObject({ background: '#0d1117' });
  });

  it("previews a theme being edited without saving it, with each palette's contrast", async () => {
    const before = expectOk(await alice.request('GET', '/v1/theme'));
    const draft = { tokens: { colors: { text: '#777777' }, layout: { color_scheme: 'auto' } }, header: 'Draft header', footer: null };
    const shown = expectOk(await preview(alice, { body: 'Body', theme: draft }));
    expect(shown.html).toContain('Draft header');
    expect(shown.html).toContain('@media (prefers-color-scheme:dark)');
    expect(shown.contrast.map((c: any) => [c.palette, c.passes])).toEqual([
      ['light', false],
      ['dark', false],
    ]);
    expect(shown.contrast[0].ratio).toBeCloseTo(4.478, 2);
    // The same draft is what PUT refuses; nothing was saved by the preview.
    expectRefusal(await alice.request('PUT', '/v1/theme', { body: draft }), 422, /contrast ratio of 4\.47:1/, 'SVC_ERR_THEME_CONTRAST_INSUFFICIENT');
    expect(expectOk(await alice.request('GET', '/v1/theme'))).toEqual(before);
  });

  it('reports alpha colours as uncheckable, and drops invalid tokens as PUT would', async () => {
    const shown = expectOk(await preview(alice, { body: '', theme: { tokens: { colors: { text: 'rgba(0,0,0,0.5)', accent: 'url(evil)' } } } }));
    expect(shown.contrast).toMatchObject([{ palette: 'light', text: 'rgba(0,0,0,0.5)', surface: '#ffffff', ratio: null, passes: false }]);
    expect(shown.contrast[0].checks.map((c: any) => [c.role, c.ratio === null, c.passes])).toEqual([
      ['text', true, false],
      ['muted', false, true],
      ['link', false, true],
      ['code', true, false],
    ]);
    expect(shown.html).not.toContain('evil');
  });

  it("shows the team's images and logo by absolute URL on the docs origin, and not another team's", async () => {
    const upload = async (client: DocsClient) =>
      expectOk(await client.request('POST', '/v1/assets', { body: { content_type: 'image/png', data_base64: PNG.toString('base64') } }), 201)
        .asset_id as string;
    const mine = await upload(alice);
    const theirs = await upload(outsider);
    const logo = expectOk(await alice.request('PUT', '/v1/theme', { body: { logo: { content_type: 'image/png', data_base64: PNG.toString('base64') } } }));
    const docs = t.node.info.docs_url;
    const shown = expectOk(await preview(alice, { body: `![ours](/assets/${mine}) ![theirs](/assets/${theirs})` }));
    expect(shown.html).toContain(`src="${docs}/assets/${mine}"`);
    expect(shown.html).toContain(`<img class="logo" src="${docs}/assets/${logo.logo_asset_id}"`);
    expect(shown.html).not.toContain(theirs);
    const cleared = expectOk(await preview(alice, { body: 'x', theme: { clear_logo: true } }));
    expect(cleared.html).not.toContain('class="logo"');
  });

  it('needs docs:read (a write-only member is refused)', async () => {
    const writeOnly = await addDocsMember(t, { teamId: alice.teamId, alias: 'scribe', scopes: ['docs:write'] });
    expectRefusal(await preview(writeOnly, { body: 'x' }), 403, /docs:read/);
  });

  it('refuses malformed requests and callers without a certificate', async () => {
    expectValidation(await preview(alice, {}), 'body');
    expectValidation(await preview(alice, { body: 1 }), 'body');
    expectValidation(await preview(alice, { body: '', extra: true }), 'extra');
    expectValidation(await preview(alice, { body: '', theme: { header: 'x'.repeat(2001) } }), 'header');
    expectValidation(await preview(alice, { body: '', theme: { logo: { content_type: 'image/png', data_base64: '' } } }), 'logo');
    const anonymous = await fetch(`${t.node.info.docs_url}/v1/present/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'x' }),
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('palettes on present pages', () => {
  it('paints the dark palette the contrast check passed for a dark theme', async () => {
    const team = await addDocsMember(t, { team: 'dark', domain: 'dark.test', alias: 'dora' });
    expectOk(await team.request('PUT', '/v1/theme', { body: { tokens: { layout: { color_scheme: 'dark' } } } }));
    expectOk(await team.create('night', '# Night'), 201);
    const html = await pageOf('night', team);
    expect(html).toContain(':root{color-scheme:dark;--background:#0d1117;--surface:#161b22;--text:#e6edf3;');
    expect(html).not.toContain('prefers-color-scheme');
  });

  it('paints both palettes for auto, the dark one under prefers-color-scheme', async () => {
    const team = await addDocsMember(t, { team: 'auto', domain: 'auto.test', alias: 'otto' });
    expectOk(await team.request('PUT', '/v1/theme', { body: { tokens: { layout: { color_scheme: 'auto' }, fonts: { body: 'serif' } } } }));
    expectOk(await team.create('both', '# Both'), 201);
    const html = await pageOf('both', team);
    expect(html).toContain(':root{color-scheme:light dark;--background:#f6f7f9;');
    expect(html).toContain('@media (prefers-color-scheme:dark){:root{--background:#0d1117;');
    expect(html).toContain('--font-body:Georgia');
  });
});

describe('docs_changed on the owner feed', () => {
  it("nudges the owner when a team's document is created or gains a version, not on reads", async () => {
    const response = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(10))}`, { token: t.node.ownerToken });
    const stream = response.stream!;
    try {
      expect((await stream.next()).event).toBe('connected');
      expectOk(await alice.create('fed', 'one'), 201);
      expect(await stream.next()).toMatchObject({ event: 'docs_changed', data: { team_id: alice.teamId } });
      expectOk(await alice.request('GET', '/v1/documents/fed'));
      expectOk(await alice.append('fed', 'two'), 201);
      expect(await stream.next()).toMatchObject({ event: 'docs_changed', data: { team_id: alice.teamId } });
    } finally {
      stream.close();
    }
  });
});
