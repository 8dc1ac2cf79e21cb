/**
 * Crash safety (never lose acknowledged data): a headless `svc-node serve` under a steady mail,
 * chat and document load, killed with SIGKILL at a random point of every round and restarted on the
 * same data dir and port. After each kill the test opens the crashed database itself (read-only, so
 * the node still has to recover the WAL on its own) and runs `PRAGMA integrity_check`; after each
 * restart it checks that every write acknowledged to a client (a 2xx response) is there exactly
 * once with its content (and in the search index), and that the recipient's event stream replays
 * the unread mail and chat that is pending. Requests in flight when the kill lands may or may not
 * have committed: they are not counted, and a committed one only shows up as an extra
 * (unacknowledged) row.
 *
 * CRASH_ROUNDS (default 20) sets the number of kills; CRASH_SEED replays a run's random timings;
 * CRASH_VERBOSE=1 prints one line per round.
 */
import { createHash, randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { afterAll, describe, expect, it } from 'vitest';
import { Custody } from '../../server/custody/custody.ts';
import { SNAPSHOT_LIMIT } from '../../server/surfaces/core/events/sources.ts';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import type { ApiResponse, RequestOptions } from '../support/node.ts';
import { pool } from '../support/pool.ts';
import { seeded } from '../support/seeded.ts';
import { startServedNode, type ServedNode } from '../support/served-node.ts';
import { connectSse, deadlineIn, type SseFrame } from '../support/sse.ts';

const ROUNDS = Number.parseInt(process.env.CRASH_ROUNDS ?? '20', 10);
const SEED = Number.parseInt(process.env.CRASH_SEED ?? String(Math.floor(Math.random() * 2 ** 31)), 10);
const VERBOSE = process.env.CRASH_VERBOSE === '1';
/** How long each round's load runs before the kill lands. */
const LOAD_MS = { min: 200, max: 1500 };
/** Concurrent client loops of each kind; each has at most one request in flight. */
const LOOPS = { mail: 2, chat: 1, doc: 2 } as const;
/** The most a chat history request returns (HistoryQuery's limit). */
const CHAT_HISTORY_LIMIT = 2000;
const SLUG = 'crash-log';

const random = seeded(SEED);

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// --- The node under test -------------------------------------------------------------------

let node: ServedNode | null = null;
let starts = 0;

/** Starts the node; after the first time, again on the same data dir and port. */
async function start(): Promise<void> {
  if (node === null) node = await startServedNode({ prefix: 'svc-node-crash-' });
  else await node.start();
  starts++;
  expect(node.info).toMatchObject({ core_url: node.url, docs_url: node.url, data_dir: node.dataDir, pid: node.process!.child.pid });
}

const served = (): ServedNode => node!;
const request = (method: string, path: string, options?: RequestOptions): Promise<ApiResponse> => served().request(method, path, options);

/** A call that must succeed (setup and verification). */
async function ok(method: string, path: string, options: RequestOptions = {}): Promise<any> {
  const reply = await request(method, path, options);
  if (reply.status < 200 || reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

// --- Clients -------------------------------------------------------------------------------

interface Clients {
  sender: string;
  recipient: string;
  recipientAlias: string;
  /** The team member that writes the document (its requests name the docs surface's origin). */
  docs: DocsClient;
  chatSession: string | null;
}

async function setUp(): Promise<Clients> {
  await createNodeNamespace(served(), 'crash.test');
  const project = await createProject(served(), 'crash', 'crash.test');
  const sender = await createIdentity(served(), project.api_key, persistent('sender'));
  const recipient = await createIdentity(served(), project.api_key, persistent('recipient'));
  const docs = await addDocsMember(served(), { team: 'crash', domain: 'crash.test', alias: 'writer' });
  const created = await docs.create(SLUG, '# Crash log\n', 'Crash log');
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { sender: sender.api_key, recipient: recipient.api_key, recipientAlias: recipient.alias ?? 'recipient', docs, chatSession: null };
}

// --- Load ----------------------------------------------------------------------------------

interface AckedText {
  id: string;
  body: string;
  round: number;
}
interface AckedVersion {
  n: number;
  body: string;
  round: number;
}

const acked = { mails: [] as AckedText[], chats: [] as AckedText[], versions: [] as AckedVersion[] };
/** Refusals that a crash cannot explain (a 4xx or 5xx while the node was up): none expected. */
const unexpected: string[] = [];
/** Requests that got no complete answer because the kill landed. */
let cutOff = 0;
/** Of those, the writes that had committed anyway (found after the restart). */
const unanswered = { mails: 0, versions: 0 };

/** A write's answer with the text it sent. */
interface Sent extends ApiResponse {
  sent: string;
}

async function loop(running: () => boolean, send: () => Promise<Sent>, record: (reply: Sent) => void, what: string): Promise<void> {
  while (running()) {
    let reply: Sent;
    try {
      reply = await send();
    } catch {
      // No (complete) answer: in flight when the kill landed, or sent after it. Not acknowledged.
      cutOff++;
      continue;
    }
    if (reply.status >= 200 && reply.status < 300) {
      record(reply);
    } else {
      unexpected.push(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
  }
}

/** Runs the load for `ms`, then kills the node with SIGKILL while the loops are still sending. */
async function loadAndKill(clients: Clients, round: number, ms: number): Promise<void> {
  let running = true;
  const isRunning = (): boolean => running;
  let seq = 0;
  const mailLoop = (): Promise<void> =>
    loop(
      isRunning,
      () => {
        const body = `round ${round} mail ${++seq} ${randomUUID()}`;
        return request('POST', '/v1/messages', { token: clients.sender, body: { to_alias: clients.recipientAlias, subject: `round ${round}`, body } }).then(
          (reply) => ({ ...reply, sent: body }),
        );
      },
      (reply) => acked.mails.push({ id: reply.body.message_id, body: reply.sent, round }),
      'mail',
    );
  const chatLoop = (): Promise<void> =>
    loop(
      isRunning,
      () => {
        const body = `round ${round} chat ${++seq} ${randomUUID()}`;
        const sent =
          clients.chatSession === null
            ? request('POST', '/v1/chat/sessions', { token: clients.sender, body: { to_aliases: [clients.recipientAlias], message: body } })
            : request('POST', `/v1/chat/sessions/${clients.chatSession}/messages`, { token: clients.sender, body: { body } });
        return sent.then((reply) => ({ ...reply, sent: body }));
      },
      (reply) => {
        clients.chatSession ??= reply.body.session_id as string;
        acked.chats.push({ id: reply.body.message_id, body: reply.sent, round });
      },
      'chat',
    );
  const docLoop = (): Promise<void> =>
    loop(
      isRunning,
      () => {
        const body = `# Crash log\n\nround ${round} write ${++seq}\nmarker ${randomUUID()}\n`;
        return clients.docs.append(SLUG, body).then((reply) => ({ ...reply, sent: body }));
      },
      (reply) => acked.versions.push({ n: reply.body.current_version, body: reply.sent, round }),
      'document version',
    );

  const loops = [
    ...Array.from({ length: LOOPS.mail }, mailLoop),
    ...Array.from({ length: LOOPS.chat }, chatLoop),
    ...Array.from({ length: LOOPS.doc }, docLoop),
  ];
  await sleep(ms);
  // The signal goes first, then the loops learn to stop: requests are still in flight when it lands.
  const exit = served().stop('SIGKILL');
  running = false;
  const result = await exit;
  expect(result.signal).toBe('SIGKILL');
  await Promise.all(loops);
}

// --- Checks --------------------------------------------------------------------------------

let databaseKey: Buffer | null = null;

async function keyOf(): Promise<Buffer> {
  if (databaseKey === null) {
    const custody = await Custody.open({ dataDir: served().dataDir, backend: 'key-file', warn() {} });
    databaseKey = custody.databaseKey();
    custody.close();
  }
  return databaseKey;
}

const walFile = (): string => join(served().dataDir, 'node.db-wal');
const sizeOf = (file: string): number | null => {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
};

/**
 * The stopped node's database as the crash left it: opened read-only (a read-only connection
 * never checkpoints, so the WAL is still there for the node to recover), integrity and foreign
 * keys checked.
 */
async function inspectDatabase(): Promise<{ walBytes: number | null }> {
  const walBefore = sizeOf(walFile());
  const db = new SQLite(join(served().dataDir, 'node.db'), { readonly: true, fileMustExist: true });
  try {
    db.pragma("cipher='sqlcipher'");
    db.pragma('legacy=4');
    db.pragma(`key="x'${(await keyOf()).toString('hex')}'"`);
    expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    // Every acknowledged write is in the file the crash left, before the node touches it again.
    const mails = new Map(db.prepare('SELECT message_id, body FROM messages').raw().all() as [string, string][]);
    expect(
      acked.mails.filter((m) => mails.get(m.id) !== m.body),
      'acknowledged mail missing from the crashed database',
    ).toEqual([]);
    const chats = new Map(db.prepare('SELECT message_id, body FROM chat_messages').raw().all() as [string, string][]);
    expect(
      acked.chats.filter((m) => chats.get(m.id) !== m.body),
      'acknowledged chat missing from the crashed database',
    ).toEqual([]);
    const versions = new Map(
      db.prepare('SELECT v.version_number, v.body_sha256 FROM document_versions v JOIN documents d USING (document_id) WHERE d.slug = ?').raw().all(SLUG) as [
        number,
        string,
      ][],
    );
    expect(
      acked.versions.filter((v) => versions.get(v.n) !== sha256(v.body)),
      'acknowledged versions missing from the crashed database',
    ).toEqual([]);
    // Each write indexes (documents) or notes for the indexer (mail, chat; migration 0031) in its
    // own transaction: nothing the crash kept is missing from the index and its notes.
    const unindexed = (sql: string) => db.prepare(sql).pluck().get() as number;
    expect(
      unindexed(
        `SELECT count(*) FROM messages WHERE id NOT IN (SELECT rowid FROM search_mail) AND id NOT IN (SELECT id FROM search_pending WHERE kind = 'mail')`,
      ),
      'mail missing from the search index',
    ).toBe(0);
    expect(
      unindexed(
        `SELECT count(*) FROM chat_messages WHERE id NOT IN (SELECT rowid FROM search_chat) AND id NOT IN (SELECT id FROM search_pending WHERE kind = 'chat')`,
      ),
      'chat missing from the search index',
    ).toBe(0);
    expect(
      unindexed(
        `SELECT count(*) FROM document_versions v WHERE NOT EXISTS (SELECT 1 FROM search_document_versions e JOIN search_documents s ON s.rowid = e.entry_id
           WHERE e.document_id = v.document_id AND e.version_number = v.version_number)`,
      ),
      'document versions missing from the search index',
    ).toBe(0);
  } finally {
    db.close();
  }
  const walAfter = sizeOf(walFile());
  // A read-only connection never checkpoints: the WAL is left as it was for the node to recover.
  if (walBefore === null) expect(walAfter ?? 0).toBe(0);
  else expect(walAfter, 'the inspection must leave the WAL for the node to recover').toBe(walBefore);
  return { walBytes: walBefore };
}

/** The recipient's event stream right after a restart: `connected`, then the replayed snapshot. */
async function replay(clients: Clients): Promise<SseFrame[]> {
  const response = await connectSse(`${served().url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(60))}`, { token: clients.recipient });
  expect(response.status).toBe(200);
  const stream = response.stream!;
  try {
    const first = await stream.next(10_000);
    expect(first.event).toBe('connected');
    // The snapshot is written in one go after `connected`; nothing else is sent meanwhile.
    const frames: SseFrame[] = [];
    for (;;) {
      const frame = await stream.maybeNext(750);
      if (frame === null) break;
      frames.push(frame);
    }
    return frames;
  } finally {
    stream.close();
  }
}

/** The recipient's whole inbox, newest first, following the `before` cursor. */
async function inbox(clients: Clients): Promise<{ message_id: string; body: string; read_at: string | null }[]> {
  const all: { message_id: string; body: string; read_at: string | null }[] = [];
  let before: string | null = null;
  for (;;) {
    const page: any = await ok('GET', `/v1/messages/inbox?limit=200${before === null ? '' : `&before=${encodeURIComponent(before)}`}`, {
      token: clients.recipient,
    });
    all.push(...page.messages);
    if (!page.has_more) return all;
    before = page.next_before as string;
  }
}

async function chatHistory(clients: Clients): Promise<{ message_id: string; body: string }[]> {
  if (clients.chatSession === null) return [];
  return (await ok('GET', `/v1/chat/sessions/${clients.chatSession}/messages?limit=${CHAT_HISTORY_LIMIT}`, { token: clients.recipient })).messages;
}

async function versionBody(clients: Clients, n: number): Promise<string> {
  const reply = await clients.docs.request('GET', `/v1/documents/${SLUG}/versions/${n}`);
  if (reply.status !== 200) throw new Error(`version ${n}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.body as string;
}

const ids = (items: { message_id: string }[]): string[] => items.map((item) => item.message_id);

/** Everything acknowledged so far is there once, with its content; the stream replays what is pending. */
async function verify(clients: Clients, round: number): Promise<void> {
  expect(unexpected).toEqual([]);

  // The stream first, before anything else touches the node after the restart.
  const frames = await replay(clients);
  const mailFrames = frames.filter((f) => f.event === 'mail_message').map((f) => f.data.message_id as string);
  const chatFrames = frames.filter((f) => f.event === 'chat_message').map((f) => f.data.message_id as string);
  expect(frames.filter((f) => f.event !== 'mail_message' && f.event !== 'chat_message').map((f) => f.event)).toEqual([]);

  // Mail: every acknowledged message, once, with its body; nothing was read, so all of it is pending.
  const messages = await inbox(clients);
  const inboxIds = ids(messages);
  expect(new Set(inboxIds).size, 'no message appears twice').toBe(inboxIds.length);
  const byId = new Map(messages.map((m) => [m.message_id, m]));
  const lostMail = acked.mails.filter((m) => byId.get(m.id)?.body !== m.body);
  expect(lostMail, `acknowledged mail missing or changed after round ${round}`).toEqual([]);
  expect(messages.every((m) => m.read_at === null)).toBe(true);
  // Extras are writes in flight at a kill that committed without an answer: at most one per loop and kill.
  expect(messages.length - acked.mails.length).toBeLessThanOrEqual(LOOPS.mail * round);
  unanswered.mails = messages.length - acked.mails.length;
  // The replay is the newest SNAPSHOT_LIMIT unread, oldest first, and so holds the newest acknowledged ones.
  expect(mailFrames).toEqual(inboxIds.slice(0, SNAPSHOT_LIMIT).reverse());
  const lastAcked = acked.mails.at(-1);
  if (lastAcked) expect(mailFrames).toContain(lastAcked.id);

  // Chat: the same for the one session; all of it is unread by the recipient.
  const history = await chatHistory(clients);
  const chatIds = ids(history);
  expect(new Set(chatIds).size, 'no chat message appears twice').toBe(chatIds.length);
  const chatById = new Map(history.map((m) => [m.message_id, m]));
  // The history holds the newest CHAT_HISTORY_LIMIT. One loop sends chat, so acknowledgement order
  // is commit order: what is older than the window is a prefix of the acknowledged list, looked up
  // one by one at the end (and checked in the database file after every kill).
  const firstInWindow =
    history.length < CHAT_HISTORY_LIMIT
      ? 0
      : Math.max(
          0,
          acked.chats.findIndex((c) => chatById.has(c.id)),
        );
  const missingChats = acked.chats.slice(firstInWindow).filter((c) => chatById.get(c.id)?.body !== c.body);
  expect(missingChats, `acknowledged chat missing or changed after round ${round}`).toEqual([]);
  expect(chatIds.length - acked.chats.length).toBeLessThanOrEqual(LOOPS.chat * round);
  expect(chatFrames).toEqual(chatIds.slice(-SNAPSHOT_LIMIT));
  const lastChat = acked.chats.at(-1);
  if (lastChat) expect(chatFrames).toContain(lastChat.id);

  // Documents: every acknowledged version, under its number, with its exact body.
  const doc = (await clients.docs.get(SLUG)).body;
  const highest = Math.max(1, ...acked.versions.map((v) => v.n));
  expect(doc.current_version).toBeGreaterThanOrEqual(highest);
  const history2 = (await clients.docs.request('GET', `/v1/documents/${SLUG}/versions`)).body as { version_number: number; body_sha256: string }[];
  expect(history2.map((v) => v.version_number)).toEqual(Array.from({ length: doc.current_version }, (_, i) => doc.current_version - i));
  const shaOf = new Map(history2.map((v) => [v.version_number, v.body_sha256]));
  expect(new Set(acked.versions.map((v) => v.n)).size, 'no version number acknowledged twice').toBe(acked.versions.length);
  const lostVersions = acked.versions.filter((v) => shaOf.get(v.n) !== sha256(v.body));
  expect(lostVersions, `acknowledged versions missing or changed after round ${round}`).toEqual([]);
  expect(doc.current_version - 1 - acked.versions.length).toBeLessThanOrEqual(LOOPS.doc * round);
  unanswered.versions = doc.current_version - 1 - acked.versions.length;
  // The bodies of this round's versions are rebuilt from storage (all of them at the end).
  const fresh = acked.versions.filter((v) => v.round === round);
  const wrongBodies: number[] = [];
  await pool(fresh, 4, async (v) => {
    if ((await versionBody(clients, v.n)) !== v.body) wrongBodies.push(v.n);
  });
  expect(wrongBodies).toEqual([]);
}

// --- The run -------------------------------------------------------------------------------

afterAll(async () => {
  await node?.dispose();
});

describe('crash safety', () => {
  it(`keeps every acknowledged write across ${ROUNDS} SIGKILLs under load`, async () => {
    expect(ROUNDS).toBeGreaterThanOrEqual(1);
    const began = performance.now();
    await start();
    const clients = await setUp();

    for (let round = 1; round <= ROUNDS; round++) {
      const ms = Math.round(LOAD_MS.min + random() * (LOAD_MS.max - LOAD_MS.min));
      const before = { mails: acked.mails.length, chats: acked.chats.length, versions: acked.versions.length };
      await loadAndKill(clients, round, ms);
      const { walBytes } = await inspectDatabase();
      // The node lock and node.json of the killed process must not stop the restart.
      await start();
      await verify(clients, round);
      if (VERBOSE) {
        console.log(
          `round ${round}: load ${ms} ms, acknowledged +${acked.mails.length - before.mails} mail, +${acked.chats.length - before.chats} chat, ` +
            `+${acked.versions.length - before.versions} versions; WAL left by the kill: ${String(walBytes)} bytes`,
        );
      }
    }

    // Every acknowledged version's body, rebuilt from storage after all the crashes.
    const wrongBodies: number[] = [];
    await pool(acked.versions, 8, async (v) => {
      if ((await versionBody(clients, v.n)) !== v.body) wrongBodies.push(v.n);
    });
    expect(wrongBodies).toEqual([]);
    // Acknowledged chat older than the history window, by id.
    const window = new Set(ids(await chatHistory(clients)));
    const missingChats: string[] = [];
    await pool(
      acked.chats.filter((c) => !window.has(c.id)),
      8,
      async (c) => {
        const found = await ok('GET', `/v1/chat/sessions/${clients.chatSession}/messages?message_id=${c.id}`, { token: clients.recipient });
        if (found.messages[0]?.body !== c.body) missingChats.push(c.id);
      },
    );
    expect(missingChats).toEqual([]);

    // A clean stop at the end; the database it leaves is whole too.
    const stopped = await served().stop('SIGTERM');
    expect(stopped.code).toBe(0);
    await inspectDatabase();

    expect(starts).toBe(ROUNDS + 1);
    console.log(
      `crash safety: ${ROUNDS} rounds (seed ${SEED}), ${starts} starts, acknowledged ${acked.mails.length} mails, ${acked.chats.length} chat messages, ` +
        `${acked.versions.length} document versions; ${cutOff} requests cut off by kills (committed anyway: ${unanswered.mails} mails, ${unanswered.versions} versions); ` +
        `lost: 0; ${((performance.now() - began) / 1000).toFixed(1)} s`,
    );
  });
});
