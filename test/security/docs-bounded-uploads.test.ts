/**
 * Video uploads stay bounded (six parallel 190 MB uploads, buffered whole, once took the node
 * to 2 GiB of memory and its database to 1.2 GB). Against a real `svc-node serve`:
 * - parallel uploads are streamed to files under DIR/assets: the node's resident memory grows by
 *   less than what is in flight, the database not at all, and the bytes come back intact (whole
 *   and by Range);
 * - the team's storage quota is enforced on the declared length before anything is read and on
 *   the bytes as they arrive (a chunked upload cannot sneak past it), counting parallel uploads,
 *   and the per-file cap on the declared length; a refused upload leaves no file and its URL
 *   stays usable;
 * - a dropped upload leaves no partial file; and at start the node removes what a crash or an
 *   expired URL left behind (files and rows).
 * The full-size run (six 190 MB uploads, and the per-file cap on a chunked body) is
 * test/reliability/uploads.reliability.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { VIDEO_MAX_BYTES } from '../../server/surfaces/docs/assets/video-uploads.ts';
import { addDocsMember, setDocCaps, type DocsClient } from '../support/docs.ts';
import { expectOk } from '../support/expect.ts';
import { startTestNode } from '../support/node.ts';
import { startServedNode, type ServedNode } from '../support/served-node.ts';
import { putVideo, residentBytes, videoSha256 } from '../support/uploads.ts';

const MB = 1024 * 1024;
const NO_DOC_CAPS = { max_documents: null, max_versions_per_doc: null };

let node: ServedNode;
let alice: DocsClient;

beforeAll(async () => {
  node = await startServedNode({ prefix: 'svc-node-uploads-' });
  return () => node.dispose();
});
beforeAll(async () => {
  alice = await addDocsMember(node, { team: 'uploads', domain: 'uploads.test', alias: 'alice' });
});

const assetsDir = (): string => join(node.dataDir, 'assets');
const filesInAssets = (): string[] => (existsSync(assetsDir()) ? readdirSync(assetsDir()) : []);
const databaseBytes = (): number =>
  ['node.db', 'node.db-wal'].reduce((sum, name) => sum + (existsSync(join(node.dataDir, name)) ? statSync(join(node.dataDir, name)).size : 0), 0);

async function startUpload(client: DocsClient = alice): Promise<{ asset_id: string; upload_url: string }> {
  return expectOk(await client.request('POST', '/v1/assets/video/direct-upload', { body: { content_type: 'video/mp4', filename: 'talk.mp4' } }), 201);
}

const assetOf = async (id: string, client: DocsClient = alice) => expectOk(await client.request('GET', `/v1/assets/${id}`));
const usage = async (client: DocsClient = alice): Promise<number> => expectOk(await client.request('GET', '/v1/billing')).usage.asset_bytes;

async function sha256Of(url: string, headers: Record<string, string> = {}): Promise<{ status: number; sha256: string; bytes: number; headers: Headers }> {
  const response = await fetch(url, { headers });
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of response.body!) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { status: response.status, sha256: hash.digest('hex'), bytes, headers: response.headers };
}

describe('parallel uploads stream to disk', () => {
  it('stores three parallel 40 MB uploads with the node growing by less than they hold, the database not at all', { timeout: 120_000 }, async () => {
    const size = 40 * MB;
    const uploads = await Promise.all([startUpload(), startUpload(), startUpload()]);
    const pid = node.process!.child.pid!;
    const dbBefore = databaseBytes();
    const rssBefore = residentBytes(pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, residentBytes(pid))), 10);
    let results;
    try {
      results = await Promise.all(uploads.map((upload) => putVideo(upload.upload_url, { bytes: size })));
    } finally {
      clearInterval(sampler);
    }
    for (const result of results) expect(result, JSON.stringify(result.body)).toMatchObject({ status: 200, body: { status: 'ready', bytes: size } });
    // Buffered whole, the 120 MB would sit in memory at once, twice while concatenated (240 MiB
    // and more). Streamed, what grows is the chunks read off the sockets that V8 has not collected
    // yet, at most its 64 MiB allowance for external memory plus a little, once, whatever the
    // uploads' size or number (six 190 MB uploads: uploads.reliability.ts).
    const growth = rssPeak - rssBefore;
    expect(growth, `RSS grew by ${(growth / MB).toFixed(1)} MiB`).toBeLessThan(96 * MB);
    expect(databaseBytes() - dbBefore).toBeLessThan(2 * MB);
    for (const upload of uploads) {
      const file = join(assetsDir(), upload.asset_id);
      expect(statSync(file).size).toBe(size);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(statSync(assetsDir()).mode & 0o777).toBe(0o700);
    expect(filesInAssets().filter((name) => name.endsWith('.part'))).toEqual([]);
    expect(await usage()).toBe(3 * size);

    // Served back from the file, whole and by range.
    const whole = await sha256Of(`${node.url}/assets/${uploads[0]!.asset_id}`);
    expect(whole).toMatchObject({ status: 200, bytes: size, sha256: videoSha256(size) });
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const tail = await fetch(`${node.url}/assets/${uploads[0]!.asset_id}`, { headers: { range: 'bytes=-5' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${size - 5}-${size - 1}/${size}`);
    const expectedTail = (await fetch(`${node.url}/assets/${uploads[0]!.asset_id}`).then((r) => r.arrayBuffer())).slice(size - 5);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(Buffer.from(expectedTail));
  });
});

describe('caps on what is stored', () => {
  it('refuses a declared length over the per-file cap with a 413 before reading the body', async () => {
    const upload = await startUpload();
    // Only the headers and a little of the body go out: the answer must not wait for the rest.
    const result = await putVideo(upload.upload_url, { bytes: 1 * MB, declaredLength: VIDEO_MAX_BYTES + 1 });
    expect(result.status, JSON.stringify(result.body)).toBe(413);
    expect(result.body.detail).toMatch(/at most 209715200 bytes \(200 MiB\)/);
    expect(result.body.code).toBe('SVC_ERR_ASSET_TOO_LARGE');
    expect((await assetOf(upload.asset_id)).status).toBe('pending_upload');
  });

  it('stops a chunked upload at the team quota with a 402, keeps nothing, and lets the URL be used again', { timeout: 60_000 }, async () => {
    const used = await usage();
    expectOk(await setDocCaps(node, { ...NO_DOC_CAPS, max_asset_bytes: used + 8 * MB }));
    try {
      const upload = await startUpload();
      const before = databaseBytes();
      const refused = await putVideo(upload.upload_url, { bytes: 40 * MB, declareLength: false });
      expect(refused.status, JSON.stringify(refused.body)).toBe(402);
      expect(refused.body.code).toBe('SVC_ERR_STORAGE_QUOTA_EXCEEDED');
      expect(refused.body.detail).toMatchObject({ code: 'storage_quota_exceeded', limit: 'asset_bytes', max: used + 8 * MB, subscriptions_available: false });
      // It was stopped near the quota, not after reading everything.
      expect(refused.sent).toBeLessThan(40 * MB);
      expect(filesInAssets().filter((name) => name.startsWith(upload.asset_id))).toEqual([]);
      expect(databaseBytes() - before).toBeLessThan(MB);
      expect((await assetOf(upload.asset_id)).status).toBe('pending_upload');
      expect(await usage()).toBe(used);

      // Declared over the quota: refused before reading.
      const declared = await putVideo(upload.upload_url, { bytes: MB, declaredLength: 9 * MB });
      expect(declared.status).toBe(402);

      // The same URL takes an upload that fits.
      const fits = await putVideo(upload.upload_url, { bytes: 6 * MB, declareLength: false });
      expect(fits).toMatchObject({ status: 200, body: { status: 'ready', bytes: 6 * MB } });
      expect(await usage()).toBe(used + 6 * MB);
    } finally {
      expectOk(await setDocCaps(node, NO_DOC_CAPS));
    }
  });

  it('counts uploads in progress: two that fit alone but not together cannot both be stored', { timeout: 60_000 }, async () => {
    const used = await usage();
    expectOk(await setDocCaps(node, { ...NO_DOC_CAPS, max_asset_bytes: used + 10 * MB }));
    try {
      const [first, second] = await Promise.all([startUpload(), startUpload()]);
      const results = await Promise.all([first!, second!].map((upload) => putVideo(upload.upload_url, { bytes: 7 * MB, declareLength: false })));
      expect(results.map((result) => result.status).sort()).toEqual([200, 402]);
      expect(await usage()).toBe(used + 7 * MB);
    } finally {
      expectOk(await setDocCaps(node, NO_DOC_CAPS));
    }
  });
});

describe('unfinished uploads', () => {
  it('leaves no partial file when the client drops the connection mid-upload', { timeout: 30_000 }, async () => {
    const upload = await startUpload();
    const cut = await putVideo(upload.upload_url, { bytes: 20 * MB, abortAfter: 5 * MB });
    expect(cut.status).toBe(0);
    const deadline = Date.now() + 10_000;
    while (filesInAssets().some((name) => name.startsWith(upload.asset_id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(filesInAssets().filter((name) => name.startsWith(upload.asset_id))).toEqual([]);
    // The URL is still good until it expires.
    expect((await assetOf(upload.asset_id)).status).toBe('pending_upload');
    expect((await putVideo(upload.upload_url, { bytes: MB })).status).toBe(200);
  });

  it('removes, at start, what a crash left (partial and orphan files) and pending videos whose URL expired', { timeout: 60_000 }, async () => {
    let offsetMs = 0;
    const clock = { now: () => new Date(Date.now() + offsetMs) };
    const t = await startTestNode({ clock });
    try {
      const bob = await addDocsMember(t, { team: 'crashy', domain: 'uploads.test', alias: 'bob' });
      const start = async () =>
        expectOk(await bob.request('POST', '/v1/assets/video/direct-upload', { body: { content_type: 'video/mp4' } }), 201) as {
          asset_id: string;
          upload_url: string;
        };
      const kept = await start();
      expect((await putVideo(kept.upload_url, { bytes: 2 * MB })).status).toBe(200);
      const abandoned = await start();
      const dir = join(t.dataDir, 'assets');
      // What a kill mid-upload, or between the rename and the commit, leaves behind.
      const partial = join(dir, `${abandoned.asset_id}.part`);
      const orphan = join(dir, '0f0f0f0f-0000-4000-8000-000000000000');
      writeFileSync(partial, Buffer.alloc(MB));
      writeFileSync(orphan, Buffer.alloc(MB));
      await t.stop({ keepData: true });

      // Back an hour and more later: the abandoned URL has expired.
      offsetMs = 61 * 60 * 1000;
      const again = await startTestNode({ clock, dataDir: t.dataDir });
      try {
        expect(readdirSync(dir).sort()).toEqual([kept.asset_id]);
        // A fresh envelope in node time, to the restarted node (it listens on a new port).
        const timestamp = clock
          .now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z');
        const get = (path: string) =>
          fetch(`${again.url}${path}`, { headers: bob.member.sign('GET', path, undefined, { aud: again.info.docs_url, timestamp }) });
        expect((await get(`/v1/assets/${abandoned.asset_id}`)).status).toBe(404);
        expect(await (await get(`/v1/assets/${kept.asset_id}`)).json()).toMatchObject({ status: 'ready', bytes: 2 * MB });
        expect((await sha256Of(`${again.url}/assets/${kept.asset_id}`)).sha256).toBe(videoSha256(2 * MB));
      } finally {
        await again.stop();
      }
    } finally {
      t.removeData();
    }
  });
});
