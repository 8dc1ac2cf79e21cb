/**
 * Linked devices (BENCH_ONLY=devices), over real HTTP on loopback, both devices' nodes and the
 * clients in this process (the linking device's CPU and the joining one's take turns: a join is
 * one step after the other, so they seldom run at once).
 *
 * - device-link: node A holds BENCH_DEVICE_MAILS mails (half end-to-end encrypted between two
 *   identities whose keys the node holds, half plaintext to a self-custodial identity that
 *   publishes no key), sent through the API, and BENCH_DEVICE_DOCS team documents of
 *   BENCH_DEVICE_VERSIONS versions each. The owner makes a link code; `joinDevice` (what
 *   `svc-node device join` runs) is timed from the code until it returns, then the joined node is
 *   started and read until its inboxes hold every mail, counted page by page. Beside it, in the
 *   same run, the baseline linking is built on: `svc-node backup` and a restore of it
 *   (writeBackup + restoreDatabase) of the same database, on this disk, with no HTTP.
 *   Target: linked and holding everything ≤ 60 s at 10,000 mails and 100 documents.
 * - device-live: A and the joined J both running, J's sync loop on its default long poll (20 s).
 *   BENCH_DEVICE_LIVE mails are sent on A, one at a time; each is timed from the send's answer
 *   until J's event stream for the recipient shows it (`mail_message`). Then the other way: each
 *   of those mails acknowledged on J, timed from the ack's answer until A's owner feed says the
 *   mail changed (`mail_changed`), A's inbox then checked to hold every ack. A random pause of
 *   0 to 2 × BENCH_DEVICE_GAP_MS (default 100 ms) between changes, so a change finds J's long
 *   poll waiting, or just answered and not yet asked again. Apart, BENCH_DEVICE_AFTER_IDLE
 *   (default 3) mails each sent after 20-25 s without a change, once the long poll has waited
 *   out its 20 s and been asked again. Target: p99 ≤ 2 s.
 *
 * Every report carries the machine's load average when it was printed.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_MAIL_PAGE } from '../contract/core/mail.ts';
import { joinDevice } from '../server/devices/join.ts';
import { startNode, type RunningNode } from '../server/index.ts';
import { restoreDatabase, writeBackup } from '../server/recovery/backup/index.ts';
import { openNodeDatabase } from '../test/support/database.ts';
import { addDocsMember } from '../test/support/docs.ts';
import { requestJson, type NodeEndpoint } from '../test/support/node.ts';
import { genesisEntry, selfKey } from '../test/support/self-signer.ts';
import { connectSse, deadlineIn, type SseClient } from '../test/support/sse.ts';
import { startBenchNode, type BenchNode } from './fixtures.ts';
import { MailArrivals } from './mail-arrivals.ts';
import { report, summarize } from './measure.ts';

const MAILS = Number(process.env.BENCH_DEVICE_MAILS ?? 10_000);
const DOCS = Number(process.env.BENCH_DEVICE_DOCS ?? 100);
const VERSIONS = Number(process.env.BENCH_DEVICE_VERSIONS ?? 3);
const LIVE = Number(process.env.BENCH_DEVICE_LIVE ?? 200);
// A pause of up to twice this between changes, so a change meets J's long poll at any point.
const GAP_MS = Number(process.env.BENCH_DEVICE_GAP_MS ?? 100);
// Mails sent after J's long poll has waited out its 20 s and been asked again.
const AFTER_IDLE = Number(process.env.BENCH_DEVICE_AFTER_IDLE ?? 3);
const LONG_POLL_MS = 20_000;
const CLIENTS = 8;
const LIVE_TIMEOUT_MS = 30_000;
const TARGET_LINK_S = 60;
const TARGET_LIVE_P99_MS = 2000;
const BODY = 'The tide came in over the flats before noon, and the boats waited at the pier for the wind to turn. '.repeat(3);

interface Identity {
  agent_id: string;
  api_key: string;
  alias: string;
}

const seconds = (ms: number): number => Math.round(ms) / 1000;

/** One request; anything but a 2xx fails the run, so a refusal is never timed as a success. */
async function call<T>(url: string, method: 'GET' | 'POST', path: string, token: string | null, body?: unknown): Promise<T> {
  const response = await requestJson<T>(url, method, path, { ...(token === null ? {} : { token }), ...(body === undefined ? {} : { body }) });
  if (response.status < 200 || response.status > 299) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** The node as the test helpers address one (the documents' team members need its origins). */
function endpoint(node: RunningNode): NodeEndpoint {
  const url = node.info.core_url;
  return {
    url,
    info: node.info,
    request: (method, path, options) => requestJson(url, method, path, options),
    owner: (method, path, body) => requestJson(url, method, path, { token: node.ownerToken, ...(body === undefined ? {} : { body }) }),
  };
}

/** A self-custodial identity that publishes no encryption key: mail to it is plaintext. */
async function keyless(bench: BenchNode, name: string): Promise<Identity> {
  const key = selfKey();
  const head = genesisEntry(key);
  await call(bench.url, 'POST', '/v1/did', null, { ...head.payload, proof: head.signature });
  return call<Identity>(bench.url, 'POST', '/v1/workspaces/init', bench.projectKey, {
    lifetime: 'persistent',
    name,
    custody: 'self',
    did: key.didKey,
    public_key: key.publicKey.toString('base64'),
  });
}

/** `count` sends from `CLIENTS` concurrent clients. */
async function sendAll(url: string, sender: Identity, count: number, body: (i: number) => Record<string, unknown>): Promise<void> {
  let next = 0;
  const client = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) await call(url, 'POST', '/v1/messages', sender.api_key, body(i));
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
}

/** How many mails the identity's inbox holds, read page by page as a client reads it. */
async function inboxCount(url: string, reader: Identity): Promise<number> {
  let count = 0;
  for (let before: string | null = null; ;) {
    const query: string = `/v1/messages/inbox?limit=${MAX_MAIL_PAGE}${before === null ? '' : `&before=${encodeURIComponent(before)}`}`;
    const page: { messages: unknown[]; has_more: boolean; next_before: string | null } = await call(url, 'GET', query, reader.api_key);
    count += page.messages.length;
    if (!page.has_more) return count;
    before = page.next_before;
  }
}

/** The bytes of every file under `dir`. */
function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}

interface Seeded {
  alice: Identity;
  bob: Identity;
  sender: Identity;
}

/** A's mail and documents, through the API. */
async function seed(a: BenchNode): Promise<Seeded & { seconds: number }> {
  const started = performance.now();
  const sender = await a.identity('sender');
  const alice = await a.identity('alice');
  const bob = await keyless(a, 'bob');
  const sealed = Math.ceil(MAILS / 2);
  await sendAll(a.url, sender, sealed, (i) => ({ to_alias: alice.alias, subject: `sealed ${i}`, body: BODY }));
  await sendAll(a.url, sender, MAILS - sealed, (i) => ({ to_alias: bob.alias, subject: `plain ${i}`, body: BODY, content_mode: 'legacy_plaintext_v1' }));
  const docs = await addDocsMember(endpoint(a.node), { team: 'crew', domain: 'bench.test' });
  for (let d = 0; d < DOCS; d++) {
    const slug = `doc-${d}`;
    const created = await docs.create(slug, `# Document ${d}\n\n${BODY}`);
    if (created.status !== 201) throw new Error(`create ${slug}: ${created.status} ${JSON.stringify(created.body)}`);
    for (let v = 1; v < VERSIONS; v++) {
      const appended = await docs.append(slug, `# Document ${d}\n\n${BODY}\n\nRevision ${v}.`);
      if (appended.status !== 201) throw new Error(`append ${slug}: ${appended.status} ${JSON.stringify(appended.body)}`);
    }
  }
  return { sender, alice, bob, seconds: seconds(performance.now() - started) };
}

/** `svc-node backup` and a restore of it, of A's database as it is now, timed apart. */
async function backupAndRestore(
  dataDir: string,
  work: string,
): Promise<{ backup_ms: number; restore_ms: number; total_ms: number; chunks: number; database_bytes: number }> {
  const { db, close } = await openNodeDatabase(dataDir);
  const backupKey = new Uint8Array(32).fill(7);
  const dir = join(work, 'backups');
  try {
    const started = performance.now();
    const written = await writeBackup({ db, dir, backupKey, nodeId: 'bench', now: new Date(), assetsDir: join(dataDir, 'assets') });
    const backedUp = performance.now();
    await restoreDatabase({
      backupDir: dir,
      backupKey,
      file: join(work, 'restored', 'node.db'),
      key: new Uint8Array(32).fill(9),
      assetsDir: join(work, 'restored', 'assets'),
    });
    const restored = performance.now();
    return {
      backup_ms: Math.round(backedUp - started),
      restore_ms: Math.round(restored - backedUp),
      total_ms: Math.round(restored - started),
      chunks: written.chunks,
      database_bytes: written.bytes,
    };
  } finally {
    close();
  }
}

const startJoined = (dataDir: string): Promise<RunningNode> => startNode({ dataDir, port: 0, uiDir: null, custody: { backend: 'key-file' }, warn: () => {} });

/** Linking J to A, until J, started, reads every mail A holds; the backup-and-restore baseline beside it. */
async function link(a: BenchNode, seeded: Seeded & { seconds: number }, jDir: string, work: string): Promise<RunningNode> {
  const baseline = await backupAndRestore(a.dataDir, work);
  const { code, url } = await call<{ code: string; url: string }>(a.url, 'POST', '/v1/node/devices/link', a.node.ownerToken);
  let firstPart = 0;
  let lastPart = 0;
  // Until the first part arrives only the linking device works (the joiner awaits its answer);
  // from there on, mostly the joiner.
  const linkerStalls = monitorEventLoopDelay({ resolution: 10 });
  const joinerStalls = monitorEventLoopDelay({ resolution: 10 });
  linkerStalls.enable();
  const started = performance.now();
  const joined = await joinDevice({
    url,
    code,
    dataDir: jDir,
    name: 'bench laptop',
    env: { SVC_NODE_CUSTODY: 'key-file' },
    warn: () => {},
    onProgress: () => {
      lastPart = performance.now();
      if (firstPart === 0) {
        firstPart = lastPart;
        linkerStalls.disable();
        joinerStalls.enable();
      }
    },
  });
  const joinedAt = performance.now();
  joinerStalls.disable();
  const j = await startJoined(jDir);
  const startedAt = performance.now();
  const [alice, bob] = [await inboxCount(j.info.core_url, seeded.alice), await inboxCount(j.info.core_url, seeded.bob)];
  const readAt = performance.now();
  if (alice + bob !== MAILS) throw new Error(`the joined node holds ${alice + bob} of ${MAILS} mails`);
  const total = readAt - started;
  report('device-link', {
    mails: MAILS,
    documents: DOCS,
    versions_each: VERSIONS,
    seed_seconds: seeded.seconds,
    join_ms: Math.round(joinedAt - started),
    // Until the first part of the snapshot arrived: the join's answer, A writing the snapshot first.
    until_first_part_ms: Math.round(firstPart - started),
    fetch_ms: Math.round(lastPart - firstPart),
    // The restore into a new data dir, the keys installed, the rename.
    after_fetch_ms: Math.round(joinedAt - lastPart),
    // The longest the event loop (one process) was held before the first part (A writing the
    // snapshot), and after it (the fetch and restore).
    longest_stall_ms: { linker: Math.round(linkerStalls.max / 1e6), joiner: Math.round(joinerStalls.max / 1e6) },
    start_ms: Math.round(startedAt - joinedAt),
    read_all_ms: Math.round(readAt - startedAt),
    inbox_counts: { sealed: alice, plaintext: bob },
    total_s: seconds(total),
    target_s: TARGET_LINK_S,
    // The sealed bytes fetched over HTTP.
    snapshot: { chunks: joined.chunks, bytes: joined.bytes },
    data_dir_bytes: dirBytes(jDir),
    baseline_backup_restore: baseline,
    ratio_join_to_baseline: Math.round(((joinedAt - started) / baseline.total_ms) * 100) / 100,
    load_average: loadavg().map((x) => Math.round(x * 100) / 100),
  });
  return j;
}

/** The next frame of `stream` that `matches`, or a failure after `timeoutMs`. */
async function frameWhere(stream: SseClient, matches: (event: string, data: Record<string, unknown>) => boolean, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const frame = await stream.maybeNext(Math.max(0, deadline - performance.now()));
    if (frame === null) throw new Error(`no matching frame within ${timeoutMs} ms${stream.ended ? ' (the stream ended)' : ''}`);
    if (matches(frame.event, frame.data as Record<string, unknown>)) return frame.receivedAt;
  }
}

const percentiles = (samples: number[]) => {
  const sorted = [...samples].sort((x, y) => x - y);
  const at = (q: number): number => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  return { ...summarize(samples), p95_ms: at(0.95), max_ms: at(1) };
};

/** New mail on A showing on J, and acks on J showing on A, one at a time. */
async function live(a: BenchNode, j: RunningNode, { sender, alice }: Seeded): Promise<void> {
  const jUrl = j.info.core_url;
  const arrivals = await MailArrivals.open(jUrl, [alice]);
  const ids: string[] = [];
  const toJ: number[] = [];
  const afterIdle: number[] = [];
  const sendOne = async (subject: string): Promise<number> => {
    const { message_id } = await call<{ message_id: string }>(a.url, 'POST', '/v1/messages', sender.api_key, { to_alias: alice.alias, subject, body: BODY });
    const sent = performance.now();
    const latency = (await arrivals.waitFor(message_id, LIVE_TIMEOUT_MS)) - sent;
    ids.push(message_id);
    return latency;
  };
  try {
    for (let i = 0; i < LIVE; i++) {
      toJ.push(await sendOne(`live ${i}`));
      await sleep(Math.random() * 2 * GAP_MS);
    }
    for (let i = 0; i < AFTER_IDLE; i++) {
      await sleep(LONG_POLL_MS + Math.random() * 5000);
      afterIdle.push(await sendOne(`after idle ${i}`));
    }
  } finally {
    await arrivals.close();
  }

  const feed = await connectSse(`${a.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(290))}`, { token: a.node.ownerToken });
  if (!feed.stream) throw new Error(`owner feed refused: ${feed.status} ${JSON.stringify(feed.body)}`);
  const stream = feed.stream;
  const toA: number[] = [];
  try {
    for (const id of ids) {
      await call(jUrl, 'POST', `/v1/messages/${id}/ack`, alice.api_key);
      const acked = performance.now();
      toA.push((await frameWhere(stream, (event, data) => event === 'mail_changed' && data.message_id === id, LIVE_TIMEOUT_MS)) - acked);
      await sleep(Math.random() * 2 * GAP_MS);
    }
  } finally {
    stream.close();
  }
  // The feed says a mail changed; A's inbox says it is read.
  const unread = await call<{ messages: { message_id: string }[] }>(a.url, 'GET', `/v1/messages/inbox?limit=${MAX_MAIL_PAGE}&unread_only=true`, alice.api_key);
  const stillUnread = unread.messages.filter((m) => ids.includes(m.message_id)).length;
  if (stillUnread > 0) throw new Error(`${stillUnread} of the acks made on J are not on A`);

  report('device-live', {
    sends: LIVE,
    mail_a_to_j: percentiles(toJ),
    mail_a_to_j_after_idle_ms: afterIdle.map((ms) => Math.round(ms * 10) / 10),
    ack_j_to_a: percentiles(toA),
    target_p99_ms: TARGET_LIVE_P99_MS,
    load_average: loadavg().map((x) => Math.round(x * 100) / 100),
  });
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-devices-'));
  const a = await startBenchNode();
  let j: RunningNode | null = null;
  try {
    const seeded = await seed(a);
    j = await link(a, seeded, join(work, 'laptop'), work);
    await live(a, j, seeded);
  } finally {
    await j?.close();
    await a.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
