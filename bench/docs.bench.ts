/**
 * The document surface's benchmarks, over real HTTP with signed team requests:
 * - append latency: a 1 MB document that already has 1,000 versions (seeded through the API), then
 *   200 timed appends with small edits, p50/p99; target p99 ≤ 20 ms. The append needs only the
 *   current body (kept on the document row), never the history. Headers are signed before timing.
 * - storage: a 100 KB document edited 1,000 times with small changes. Bytes on disk per version,
 *   measured as the growth of the (checkpointed) database file and as the sum of the stored
 *   payloads, against the 100 KB a full copy per version would cost.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTeamHeaders, type TeamHeaders } from '../server/auth/team-envelope-client.ts';
import { privateKeyFromSeed, signBytes } from '../server/crypto/ed25519.ts';
import { systemClock } from '../server/clock.ts';
import type { NodeContext } from '../server/context.ts';
import { Custody } from '../server/custody/custody.ts';
import { AppEvents } from '../server/teams/app-events.ts';
import { EventBus } from '../server/events/bus.ts';
import { startNode } from '../server/index.ts';
import { closeDatabase, openDatabase } from '../server/store/database.ts';
import { DocsBilling } from '../server/surfaces/docs/billing/service.ts';
import { Documents } from '../server/surfaces/docs/documents/service.ts';
import { openNodeDatabase } from '../test/support/database.ts';
import { testKey, type TestKey } from '../test/support/keys.ts';
import { report, summarize } from './measure.ts';
import { startWorkerServer } from './server-worker.ts';

const SEED_VERSIONS = Number(process.env.BENCH_DOC_VERSIONS ?? 1000);
const APPENDS = Number(process.env.BENCH_DOC_APPENDS ?? 200);
const STORAGE_EDITS = Number(process.env.BENCH_DOC_EDITS ?? 1000);
const MARKDOWN = 'text/markdown; charset=utf-8';

interface Writer {
  sign(method: string, path: string, body?: string): TeamHeaders;
  send(method: string, path: string, headers: TeamHeaders, body?: string, contentType?: string): Promise<Response>;
}

async function ownerPost<T>(url: string, token: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function certify(url: string, token: string, name: string, key: TestKey): Promise<{ teamId: string; certificateB64: string }> {
  const { team_id } = await ownerPost<{ team_id: string }>(url, token, '/v1/node/teams', { name, domain: 'bench.test' });
  const { certificate_b64 } = await ownerPost<{ certificate_b64: string }>(url, token, `/v1/node/teams/${encodeURIComponent(team_id)}/members`, {
    did_key: key.didKey,
    alias: `${name}-member`,
  });
  return { teamId: team_id, certificateB64: certificate_b64 };
}

function writer(url: string, teamId: string, certificateB64: string, key: TestKey): Writer {
  const privateKey = privateKeyFromSeed(key.seed);
  return {
    sign: (method, path, body) =>
      buildTeamHeaders({ method, path, body, aud: url, teamId, certificateB64, didKey: key.didKey, sign: (b) => signBytes(privateKey, b) }),
    async send(method, path, headers, body, contentType = 'application/json') {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': contentType },
        ...(body === undefined ? {} : { body }),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      return response;
    },
  };
}

/** ASCII Markdown of about `bytes` bytes: numbered paragraphs. */
function document(bytes: number): string {
  const lines: string[] = ['# Benchmark document', ''];
  let size = 22;
  for (let i = 0; size < bytes; i++) {
    const line = `Paragraph ${i}: the quick brown fox jumps over the lazy dog while the team reviews the plan. `;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}

/** A small edit: one word replaced somewhere in the middle, a few bytes inserted. */
function edit(body: string, i: number): string {
  const at = Math.floor((((i * 7919) % 997) / 997) * (body.length - 40)) + 20;
  return `${body.slice(0, at)}[edit ${i}]${body.slice(at + 5)}`;
}

async function create(w: Writer, slug: string, body: string): Promise<void> {
  const json = JSON.stringify({ slug, title: slug, body });
  await w.send('POST', '/v1/documents', w.sign('POST', '/v1/documents', json), json);
}

async function append(w: Writer, slug: string, body: string): Promise<void> {
  const path = `/v1/documents/${slug}/versions`;
  await w.send('POST', path, w.sign('POST', path, body), body, MARKDOWN);
}

async function appendLatency(): Promise<void> {
  const node = await startWorkerServer('node');
  try {
    const key = testKey();
    const { teamId, certificateB64 } = await certify(node.url, node.ownerToken, 'append', key);
    const w = writer(node.url, teamId, certificateB64, key);
    let body = document(1024 * 1024);
    await create(w, 'big', body);
    const seedStarted = performance.now();
    for (let i = 2; i <= SEED_VERSIONS; i++) {
      body = edit(body, i);
      await append(w, 'big', body);
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const samples: number[] = [];
    const path = '/v1/documents/big/versions';
    for (let i = 0; i < APPENDS; i++) {
      body = edit(body, SEED_VERSIONS + 1 + i);
      const headers = w.sign('POST', path, body);
      const started = performance.now();
      await w.send('POST', path, headers, body, MARKDOWN);
      samples.push(performance.now() - started);
    }
    report('docs-append', {
      document_bytes: Buffer.byteLength(body),
      existing_versions: SEED_VERSIONS,
      seeded_through: 'api',
      seed_seconds: Math.round(seedSeconds * 10) / 10,
      appends: APPENDS,
      latency: summarize(samples),
      target_p99_ms: 20,
      note: 'end to end over HTTP: 1 MB request upload, envelope sha256, UTF-8 check, delta, 1 MB DocumentResponse',
    });
  } finally {
    await node.stop();
  }
}

async function storage(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-bench-docs-'));
  const dbFile = join(dataDir, 'node.db');
  const start = () => startNode({ dataDir, port: 0, uiDir: null, custody: { backend: 'key-file' }, warn: () => {} });
  try {
    const key = testKey();
    let node = await start();
    const { teamId, certificateB64 } = await certify(node.info.core_url, node.ownerToken, 'storage', key);
    let body = document(100 * 1024);
    await create(writer(node.info.core_url, teamId, certificateB64, key), 'hundred-kb', body);
    await node.close(); // checkpoints the WAL into the file
    const before = statSync(dbFile).size;

    node = await start();
    const w = writer(node.info.core_url, teamId, certificateB64, key);
    for (let i = 2; i <= STORAGE_EDITS + 1; i++) {
      body = edit(body, i);
      await append(w, 'hundred-kb', body);
    }
    await node.close();
    const after = statSync(dbFile).size;

    const { db, close } = await openNodeDatabase(dataDir);
    const stored = db
      .prepare(
        `SELECT count(*) AS versions, sum(kind = 'snapshot') AS snapshots, sum(length(payload)) AS payload_bytes,
                sum(CASE WHEN kind = 'delta' THEN length(payload) ELSE 0 END) AS delta_bytes,
                sum(CASE WHEN kind = 'snapshot' THEN length(payload) ELSE 0 END) AS snapshot_bytes
         FROM document_versions v JOIN documents d USING (document_id) WHERE d.slug = 'hundred-kb'`,
      )
      .get() as { versions: number; snapshots: number; payload_bytes: number; delta_bytes: number; snapshot_bytes: number };
    close();
    const fullCopy = Buffer.byteLength(body);
    const appended = stored.versions - 1;
    const round = (x: number) => Math.round(x);
    report('docs-storage', {
      document_bytes: fullCopy,
      edits: appended,
      versions: stored.versions,
      snapshots: stored.snapshots,
      db_file_growth_bytes: after - before,
      db_bytes_per_version: round((after - before) / appended),
      stored_payload_bytes_per_version: round(stored.payload_bytes / stored.versions),
      delta_payload_bytes_per_delta: round(stored.delta_bytes / (stored.versions - stored.snapshots)),
      snapshot_payload_bytes_per_snapshot: round(stored.snapshot_bytes / stored.snapshots),
      full_copy_bytes_per_version: fullCopy,
      ratio_db_vs_full_copy: Math.round(((after - before) / appended / fullCopy) * 10000) / 10000,
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The same append measured at the service (no HTTP, no client): what the server itself spends,
 * seeded directly through the service. Separates the storage design from transport costs on a
 * small shared machine.
 */
async function serviceAppendLatency(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-bench-docs-'));
  const custody = await Custody.open({ dataDir, backend: 'key-file', warn() {} });
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  try {
    const ctx = { db, clock: systemClock, bus: new EventBus() } as unknown as NodeContext;
    const documents = new Documents(ctx, new DocsBilling(db), new AppEvents(ctx));
    const author = {
      member: {
        team_id: 't',
        certificate_id: 'c',
        alias: 'bench',
        did_key: 'did:key:zBench',
        did_aw: null,
        address: null,
        lifetime: 'persistent' as const,
        scopes: [],
      },
    };
    let body = document(1024 * 1024);
    documents.create('t', { slug: 'big', title: 'big', body: Buffer.from(body), source: 'api' }, author);
    for (let i = 2; i <= SEED_VERSIONS; i++) {
      body = edit(body, i);
      documents.append('t', 'big', Buffer.from(body), 'api', author);
    }
    const samples: number[] = [];
    for (let i = 0; i < APPENDS; i++) {
      body = edit(body, SEED_VERSIONS + 1 + i);
      const bytes = Buffer.from(body);
      const started = performance.now();
      documents.append('t', 'big', bytes, 'api', author);
      samples.push(performance.now() - started);
    }
    report('docs-append-service', {
      document_bytes: Buffer.byteLength(body),
      existing_versions: SEED_VERSIONS,
      seeded_through: 'service',
      appends: APPENDS,
      latency: summarize(samples),
      target_p99_ms: 20,
    });
  } finally {
    closeDatabase(db);
    custody.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  await serviceAppendLatency();
  await appendLatency();
  await storage();
}
