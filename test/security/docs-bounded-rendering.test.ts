/**
 * Rendering stays bounded (a 200k-character pathological table previewed 20 times on the
 * peer listener made a loopback request wait 14.8 s; each view of a 2 MB document's read link took
 * 9.3 s, rendered again on every GET).
 * - While hostile tables render, through the team preview on the peer listener and through an
 *   editable link's preview, the loopback listener answers at once: rendering runs in a worker
 *   thread, never on the event loop (a real `svc-node serve` with a peer listener); and the
 *   owner's own previews are served before the peers' waiting renders, never refused as busy.
 * - A read link's page is built once and then served from memory, however many read it (also all
 *   at once); a 2 MB document saved through an editable link is over the render cap, so it is
 *   never rendered at all: its page shows the text plain, built once. A theme change or a new
 *   image makes a new page, never a stale one. Previews over the cap are plain text too.
 * Counters (pages built, renders done) are read from the in-process node of the second part.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentPagesBuilt } from '../../server/surfaces/docs/present/pages.ts';
import { RENDER_MAX_BYTES } from '../../server/markdown/lazy.ts';
import { renderPool } from '../../server/markdown/pool.ts';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk } from '../support/expect.ts';
import { requestJson, startTestNode, type NodeEndpoint, type TestNode } from '../support/node.ts';
import { freePort, startServedNode, type ServedNode } from '../support/served-node.ts';

/**
 * The pathological table: a header, then one-character rows that markdown-it completes to
 * full rows, and sanitize-html then parses again: about 2 MB of HTML out of 200k characters, over
 * a second of rendering on this machine's cores.
 */
function hostileTable(chars: number): string {
  let markdown = 'a|b\n-|-\n';
  while (markdown.length + 2 <= chars) markdown += 'x\n';
  return markdown;
}
const TABLE = hostileTable(200_000);

/** A big table whose JSON encoding still fits one request (2 MiB): rows with few newlines to escape. */
function bigTable(chars: number): string {
  let markdown = '| when | who | what |\n|---|---|---|\n';
  while (markdown.length + 40 <= chars) markdown += '| 2026-11-25 | alice | saved a new draft |\n';
  return markdown;
}

const MB = 1024 * 1024;

async function post(url: string, body: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

describe('hostile rendering on the peer listener', () => {
  let node: ServedNode;
  let peerUrl: string;

  beforeAll(async () => {
    node = await startServedNode({ prefix: 'svc-node-render-', args: ['--public-port', String(await freePort())] });
    peerUrl = node.info.public_url as string;
    return () => node.dispose();
  });

  it('keeps the loopback listener answering while hostile tables render, previewed through both doors', { timeout: 120_000 }, async () => {
    const alice = await addDocsMember(node, { team: 'render', domain: 'render.test', alias: 'alice' });
    // The same team reached as a peer would reach it: requests and their audience on the peer listener.
    const peer: NodeEndpoint = {
      url: peerUrl,
      info: { docs_url: peerUrl, library_url: peerUrl },
      request: (m, p, o) => requestJson(peerUrl, m, p, o),
      owner: node.owner,
    };
    const mallory = await addDocsMember(peer, { teamId: alice.teamId, alias: 'mallory', scopes: ['docs:read', 'docs:write'] });
    expectOk(await alice.create('pitch', '# Pitch\n'), 201);
    const link = expectOk(await alice.request('POST', '/v1/present', { body: { slug: 'pitch', editable: true } }), 201);
    expect(link.url.startsWith(peerUrl)).toBe(true);

    // More than the renderer takes from peers at once (one running, eight waiting): some are refused.
    const hostile = [
      ...Array.from({ length: 6 }, () => mallory.request('POST', '/v1/present/preview', { body: { body: TABLE } })),
      ...Array.from({ length: 6 }, () => post(`${link.url}/preview`, { body: TABLE })),
    ];
    let running = true;
    const settled = Promise.allSettled(hostile).finally(() => (running = false));

    // The owner's app previews through the loopback listener meanwhile: never refused as busy, and
    // answered after at most the render already running, long before the peers' queue drains.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const own = alice
      .request('POST', '/v1/present/preview', { body: { body: '# Our pitch\n\nFine.' } })
      .then((answer) => ({ answer, whilePeersWait: running }));

    // The owner's own listener, sampled the whole time the renders run.
    const latencies: number[] = [];
    // The hostile renders clear `running` once they settle, while this loop awaits; the types do not see that.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    while (running) {
      const started = performance.now();
      const info = await node.owner('GET', '/v1/node/info');
      latencies.push(performance.now() - started);
      expect(info.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const results = await settled;
    const mine = await own;
    expect(mine.answer.status, JSON.stringify(mine.answer.body)).toBe(200);
    expect(mine.answer.body.html).toContain('Our pitch');
    expect(mine.whilePeersWait).toBe(true);

    // Each one rendered, or was refused in our words (too complex: 422; renderer busy: 503); never a 5xx of another kind.
    const statuses = results.map((result) => (result.status === 'fulfilled' ? result.value.status : -1));
    for (const [i, status] of statuses.entries()) expect([200, 422, 503], `request ${i}`).toContain(status);
    expect(statuses.filter((status) => status === 200 || status === 422).length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    for (const result of results) {
      if (result.status === 'fulfilled' && result.value.status !== 200) {
        expect(result.value.body.detail).toMatch(/too complex to render|renderer is busy/);
        expect(result.value.body.code).toBe(result.value.status === 422 ? 'SVC_ERR_DOCUMENT_TOO_COMPLEX' : 'SVC_ERR_RENDERER_BUSY');
      }
    }
    // The renders take seconds in all and over a second each; a request that waited for one would show it.
    expect(Math.max(...latencies), `loopback latencies (ms): ${latencies.map(Math.round).join(', ')}`).toBeLessThan(1_000);
    expect(latencies.length).toBeGreaterThanOrEqual(5);
  });
});

describe('read pages are built once', () => {
  let t: TestNode;
  let alice: DocsClient;

  beforeAll(async () => {
    t = await startTestNode();
    alice = await addDocsMember(t, { team: 'pages', domain: 'pages.test', alias: 'alice' });
  });
  afterAll(async () => {
    await t.stop();
  });

  const readLink = async (slug: string): Promise<string> => expectOk(await alice.request('POST', '/v1/present', { body: { slug } }), 201).url;

  async function view(url: string): Promise<{ status: number; text: string; ms: number }> {
    const started = performance.now();
    const response = await fetch(url);
    const text = await response.text();
    return { status: response.status, text, ms: performance.now() - started };
  }

  it('shows a 2 MB document saved through an editable link as plain text, built once for every view', { timeout: 60_000 }, async () => {
    expectOk(await alice.create('log', '# Log\n'), 201);
    const editable = expectOk(await alice.request('POST', '/v1/present', { body: { slug: 'log', editable: true } }), 201);
    const big = bigTable(1_950_000);
    expect(Buffer.byteLength(big)).toBeGreaterThan(RENDER_MAX_BYTES);
    expect(await post(`${editable.url}/edit`, { body: big, base_version: 1 })).toMatchObject({ status: 200, body: { version_number: 2 } });
    const url = await readLink('log');

    const built = presentPagesBuilt();
    const renders = renderPool.stats;
    // Five readers at once, then five one after another.
    const views = [...(await Promise.all(Array.from({ length: 5 }, () => view(url))))];
    for (let i = 0; i < 5; i++) views.push(await view(url));
    for (const seen of views) {
      expect(seen.status).toBe(200);
      expect(seen.text).toContain('too large to present formatted');
      expect(seen.text).toContain('<pre class="svc-plain">| when | who | what |\n|---|---|---|\n| 2026-11-25 | alice |');
      // Rendered on every view, each took 9 s; a plain page from memory takes milliseconds.
      expect(seen.ms).toBeLessThan(3_000);
    }
    expect(views[0]!.text.length).toBeGreaterThan(big.length);
    expect(presentPagesBuilt() - built).toBe(1);
    // Over the cap it never reached the renderer.
    expect(renderPool.stats.rendered).toBe(renders.rendered);
    expect(renderPool.stats.timed_out).toBe(renders.timed_out);
  });

  it('renders a hostile document under the cap once, for all its readers, and anew only when the theme or images change', { timeout: 60_000 }, async () => {
    expectOk(await alice.create('table', hostileTable(300_000)), 201);
    const url = await readLink('table');
    const built = presentPagesBuilt();
    const before = renderPool.stats;
    const attempts = () =>
      renderPool.stats.rendered + renderPool.stats.timed_out + renderPool.stats.crashed - (before.rendered + before.timed_out + before.crashed);

    const first = await Promise.all(Array.from({ length: 4 }, () => view(url)));
    for (let i = 0; i < 4; i++) first.push(await view(url));
    for (const seen of first) expect(seen.status).toBe(200);
    // Rendered, or shown plain when over the time budget: either way the same page for everyone.
    expect(new Set(first.map((seen) => seen.text)).size).toBe(1);
    expect(first[0]!.text).toMatch(/<table>|too complex to present formatted/);
    expect(presentPagesBuilt() - built).toBe(1);
    expect(attempts()).toBe(1);

    // A new theme is a new page (never the stale one), built once again.
    expectOk(await alice.request('PUT', '/v1/theme', { body: { header: 'Quarterly' } }));
    const themed = await Promise.all([view(url), view(url)]);
    for (const seen of themed) expect(seen.text).toContain('Quarterly');
    expect(presentPagesBuilt() - built).toBe(2);
    // So is a new image of the team (the sanitiser keeps only the team's images).
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('png')]);
    expectOk(await alice.request('POST', '/v1/assets', { body: { content_type: 'image/png', data_base64: png.toString('base64') } }), 201);
    await view(url);
    await view(url);
    expect(presentPagesBuilt() - built).toBe(3);
    expect(attempts()).toBe(3);
  });

  it('previews a body over the cap as plain text without rendering it', async () => {
    const before = renderPool.stats.rendered;
    const body = `# Big\n\n${'word '.repeat(Math.ceil((RENDER_MAX_BYTES + MB / 8) / 5))}<script>alert(1)</script>`;
    const shown = expectOk(await alice.request('POST', '/v1/present/preview', { body: { body } }));
    expect(shown.html).toContain('too large to present formatted');
    expect(shown.html).toContain('# Big');
    expect(shown.html).not.toContain('<script>');
    expect(shown.html).toContain('&#60;script&#62;');
    expect(renderPool.stats.rendered).toBe(before);
    // Under the cap, the same preview renders.
    expect(expectOk(await alice.request('POST', '/v1/present/preview', { body: { body: '# Small' } })).html).toContain('<h1>Small</h1>');
    expect(renderPool.stats.rendered).toBe(before + 1);
  });
});
