/**
 * Video uploads at full size (six parallel 190 MB uploads, buffered whole, once took the node
 * to 2 GiB of memory and its database to 1.2 GB). Against a real `svc-node serve`:
 * - six parallel 190 MB uploads are stored as files: the node's resident memory grows by a
 *   one-time amount that does not depend on the uploads' size or number (UPLOADS_RSS_LIMIT_MIB,
 *   default 128; about 70-100 MiB on a fresh node: socket buffers V8 has not collected yet, up to
 *   its 64 MiB allowance for external memory), the database by nothing, and the bytes are served
 *   back intact;
 * - a second wave of six does not fit the team's default 2 GiB quota: the uploads that would pass
 *   it are refused (402) while they stream, what is stored stays within the quota, and memory
 *   does not grow past the first wave's peak (by more than 16 MiB of noise);
 * - a chunked upload (no Content-Length) past the 200 MiB per-file cap is stopped at the cap
 *   (413) and leaves no file.
 * Prints one summary line.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ASSET_BYTES } from '../../server/surfaces/docs/domain/caps.ts';
import { VIDEO_MAX_BYTES } from '../../server/surfaces/docs/assets/video-uploads.ts';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk } from '../support/expect.ts';
import { startServedNode, type ServedNode } from '../support/served-node.ts';
import { putVideo, residentBytes, videoSha256 } from '../support/uploads.ts';

const MB = 1024 * 1024;
const SIZE = 190 * 1000 * 1000;
const PARALLEL = 6;
const RSS_LIMIT = Number.parseInt(process.env.UPLOADS_RSS_LIMIT_MIB ?? '128', 10) * MB;

let node: ServedNode | null = null;

afterAll(async () => {
  await node?.dispose();
});

const databaseBytes = (dir: string): number =>
  ['node.db', 'node.db-wal'].reduce((sum, name) => sum + (existsSync(join(dir, name)) ? statSync(join(dir, name)).size : 0), 0);

async function startUploads(client: DocsClient, count: number): Promise<{ asset_id: string; upload_url: string }[]> {
  const started = [];
  for (let i = 0; i < count; i++) {
    started.push(expectOk(await client.request('POST', '/v1/assets/video/direct-upload', { body: { content_type: 'video/mp4' } }), 201));
  }
  return started;
}

describe('uploads at full size', () => {
  it('stores six parallel 190 MB uploads in bounded memory, within the quota and the per-file cap', async () => {
    node = await startServedNode({ prefix: 'svc-node-uploads-' });
    const served = node;
    const alice = await addDocsMember(served, { team: 'videos', domain: 'uploads.test', alias: 'alice' });
    const pid = served.process!.child.pid!;
    const assets = join(served.dataDir, 'assets');
    const usage = async (): Promise<number> => expectOk(await alice.request('GET', '/v1/billing')).usage.asset_bytes;

    // Wave one: six in parallel, all stored.
    const first = await startUploads(alice, PARALLEL);
    const dbBefore = databaseBytes(served.dataDir);
    const rssBefore = residentBytes(pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, residentBytes(pid))), 20);
    const started = Date.now();
    let results;
    try {
      results = await Promise.all(first.map((upload) => putVideo(upload.upload_url, { bytes: SIZE })));
    } finally {
      clearInterval(sampler);
    }
    const seconds = (Date.now() - started) / 1000;
    for (const result of results) expect(result, JSON.stringify(result.body)).toMatchObject({ status: 200, body: { status: 'ready', bytes: SIZE } });
    const growth = rssPeak - rssBefore;
    expect(growth, `RSS grew by ${(growth / MB).toFixed(1)} MiB`).toBeLessThan(RSS_LIMIT);
    const dbGrowth = databaseBytes(served.dataDir) - dbBefore;
    expect(dbGrowth).toBeLessThan(2 * MB);
    for (const upload of first) expect(statSync(join(assets, upload.asset_id)).size).toBe(SIZE);
    expect(await usage()).toBe(PARALLEL * SIZE);
    const response = await fetch(`${served.url}/assets/${first[0]!.asset_id}`);
    const hash = createHash('sha256');
    for await (const chunk of response.body!) hash.update(chunk);
    expect(hash.digest('hex')).toBe(videoSha256(SIZE));

    // Wave two: six more would pass the 2 GiB quota; those that do not fit are refused as they stream.
    const second = await startUploads(alice, PARALLEL);
    let secondPeak = 0;
    const secondSampler = setInterval(() => (secondPeak = Math.max(secondPeak, residentBytes(pid))), 20);
    let refusedWave;
    try {
      refusedWave = await Promise.all(second.map((upload) => putVideo(upload.upload_url, { bytes: SIZE, declareLength: false })));
    } finally {
      clearInterval(secondSampler);
    }
    expect(secondPeak - rssPeak, 'the second wave grew the node past the first one').toBeLessThan(16 * MB);
    const statuses = refusedWave.map((result) => result.status);
    for (const status of statuses) expect([200, 402]).toContain(status);
    const stored = statuses.filter((status) => status === 200).length;
    expect(stored).toBe(Math.floor((DEFAULT_MAX_ASSET_BYTES - PARALLEL * SIZE) / SIZE));
    for (const result of refusedWave.filter((r) => r.status === 402))
      expect(result.body.detail).toMatchObject({ code: 'storage_quota_exceeded', max: DEFAULT_MAX_ASSET_BYTES });
    expect(await usage()).toBe((PARALLEL + stored) * SIZE);
    expect(await usage()).toBeLessThanOrEqual(DEFAULT_MAX_ASSET_BYTES);
    expect(readdirSync(assets).filter((name) => name.endsWith('.part'))).toEqual([]);

    // A chunked body past the per-file cap, from another team with room: stopped at the cap.
    const bob = await addDocsMember(served, { team: 'big', domain: 'uploads.test', alias: 'bob' });
    const [huge] = await startUploads(bob, 1);
    const over = await putVideo(huge!.upload_url, { bytes: VIDEO_MAX_BYTES + 8 * MB, declareLength: false });
    expect(over.status, JSON.stringify(over.body)).toBe(413);
    expect(existsSync(join(assets, huge!.asset_id))).toBe(false);
    expect(existsSync(join(assets, `${huge!.asset_id}.part`))).toBe(false);

    console.log(
      `uploads: ${PARALLEL} x ${SIZE / 1e6} MB in ${seconds.toFixed(1)} s, RSS ${(rssBefore / MB).toFixed(0)} -> peak ${(rssPeak / MB).toFixed(0)} MiB ` +
        `(+${(growth / MB).toFixed(1)}), database +${(dbGrowth / 1024).toFixed(0)} KiB; second wave ${stored} stored, ${PARALLEL - stored} refused at the quota, ` +
        `peak ${(secondPeak / MB).toFixed(0)} MiB; ` +
        `chunked ${((VIDEO_MAX_BYTES + 8 * MB) / MB).toFixed(0)} MiB upload refused at the cap`,
    );
  });
});
