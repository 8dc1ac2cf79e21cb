/**
 * The headless node serves the built renderer at /ui/ (server/http/static-ui.ts). Scripts used to
 * go out uncompressed with `max-age=0` although their names carry a hash of their contents: every
 * load fetched ~2.7 MB again. Real HTTP on loopback against the real build in out/renderer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_UI_DIR } from '../../server/index.ts';
import { ensureUiBuilt } from '../e2e/build-ui.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;

beforeAll(async () => {
  ensureUiBuilt(); // no-op when the globalSetup already built it
  t = await startTestNode({ uiDir: DEFAULT_UI_DIR });
  return () => t.stop();
}, 120_000);

/** A GET with exactly these headers, and the bytes as they came off the wire (never decoded). */
function get(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const url = new URL(path, t.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The largest script of the build: the one where compression matters most. */
function largestScript(): string {
  const assets = join(DEFAULT_UI_DIR, 'assets');
  const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
  return scripts.sort((a, b) => readFileSync(join(assets, b)).length - readFileSync(join(assets, a)).length)[0] as string;
}

describe('the headless UI’s files', () => {
  it('sends a script brotli-compressed to a browser that takes brotli, and the bytes decode to the file', async () => {
    const name = largestScript();
    const file = readFileSync(join(DEFAULT_UI_DIR, 'assets', name));
    const response = await get(`/ui/assets/${name}`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(String(response.headers.vary)).toMatch(/accept-encoding/i);
    expect(response.body.length).toBeLessThan(file.length / 2);
    expect(brotliDecompressSync(response.body).equals(file)).toBe(true);
  });

  it('sends gzip to a client that takes only gzip, and the file as it is to one that names no encoding', async () => {
    const name = largestScript();
    const file = readFileSync(join(DEFAULT_UI_DIR, 'assets', name));
    const gzipped = await get(`/ui/assets/${name}`, { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).equals(file)).toBe(true);
    const plain = await get(`/ui/assets/${name}`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(file)).toBe(true);
  });

  it('caches content-hashed assets for a year, compressed or not, and revalidates index.html', async () => {
    const name = largestScript();
    for (const encoding of ['br', 'gzip', 'identity']) {
      const response = await get(`/ui/assets/${name}`, { 'accept-encoding': encoding });
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const css = readdirSync(join(DEFAULT_UI_DIR, 'assets')).find((file) => file.endsWith('.css')) as string;
    expect((await get(`/ui/assets/${css}`, { 'accept-encoding': 'br' })).headers['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const path of ['/ui/', '/ui/index.html']) {
      const response = await get(path, { 'accept-encoding': 'br' });
      expect(response.status).toBe(200);
      expect(response.headers['cache-control']).toBe('no-cache');
      const html = response.headers['content-encoding'] === 'br' ? brotliDecompressSync(response.body) : response.body;
      expect(html.equals(readFileSync(join(DEFAULT_UI_DIR, 'index.html')))).toBe(true);
      expect(response.headers['content-security-policy']).toMatch(/script-src 'self'/);
    }
  });
});
