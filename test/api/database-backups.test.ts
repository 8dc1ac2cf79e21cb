/**
 * Backups of a running node's database through the owner API and the command line: a node with
 * 30,000 mails (written into its store while it was stopped, as deliveries write them) backs up,
 * receives 1,000 more mails over HTTP, backs up again writing only the chunks they touched; each backup restores (restoreDatabase, under the node's backup key) to a new database
 * with the mail it had; no file of the folder holds a message's text; bad folders are refused;
 * the schedule runs on the node's clock.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackupResult, BackupStatus, RunningBackup } from '../../contract/node/backups.ts';
import { Custody } from '../../server/custody/custody.ts';
import { restoreDatabase } from '../../server/recovery/backup/index.ts';
import { closeDatabase, openDatabase } from '../../server/store/database.ts';
import { SearchIndexer } from '../../server/search/indexer.ts';
import type { AgentRow } from '../../server/surfaces/core/identities/store/agents.ts';
import { insertMailRow } from '../../server/surfaces/core/mail/store/messages.ts';
import { NODE_BIN, REPO_ROOT, runCli } from '../support/cli.ts';
import { connectSse, deadlineIn } from '../support/sse.ts';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { mailRow } from '../support/mail-rows.ts';
import { createIdentity, createNodeNamespace, createProject } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-db-backups-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const BODY = 'meet me by the lighthouse at seven';
const HOUR = 60 * 60 * 1000;
const STORED = 30_000;
/** A paragraph of prose: with it each stored mail's signed payload is about a kilobyte, as people's mail is. */
const PROSE = 'The tide came in over the flats before noon, and the boats waited at the pier for the wind to turn. '.repeat(10);

/** Every file under `dir`. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((path) => join(dir, path))
    .filter((path) => statSync(path).isFile());

describe('backups of a running node', () => {
  let t: TestNode;
  let offset = 0;
  let stopped = false;
  let alice: { api_key: string };
  let bob: { alias: string };
  const backups = join(root, 'backups');

  beforeAll(async () => {
    const dataDir = join(root, 'data');
    const setup = await startTestNode({ dataDir });
    try {
      await createNodeNamespace(setup, 'backup.example');
      const project = await createProject(setup, 'backups', 'backup.example');
      alice = await createIdentity(setup, project.api_key, { lifetime: 'persistent', name: 'alice' });
      bob = await createIdentity(setup, project.api_key, { lifetime: 'persistent', name: 'bob' });
    } finally {
      await setup.stop({ keepData: true });
    }
    // The mail of a node in use, written as deliveries write it and indexed for search.
    const { db, close } = await openNodeDatabase(dataDir);
    try {
      const agent = (alias: string) => db.prepare(`SELECT * FROM agents WHERE alias = ?`).get(alias) as AgentRow;
      const [from, to] = [agent('alice'), agent('bob')];
      db.transaction(() => {
        for (let i = 0; i < STORED; i++) {
          const [subject, body] = [`stored ${i}`, `${BODY} (stored ${i})`];
          insertMailRow(db, mailRow(from, to, { message_id: randomUUID(), subject, body, signed_payload: JSON.stringify({ subject, body, more: PROSE }) }));
        }
      })();
      new SearchIndexer(db).runToEnd();
    } finally {
      close();
    }
    t = await startTestNode({ dataDir, clock: { now: () => new Date(Date.now() + offset) }, backupScheduleCheckMs: 25 });
    return async () => {
      if (!stopped) await t.stop();
    };
  });

  /** `count` mails from alice to bob, a few at a time, over HTTP as an agent sends them. */
  async function send(count: number, tag: string): Promise<void> {
    const next = { i: 0 };
    const worker = async () => {
      for (let i = next.i++; i < count; i = next.i++) {
        expectOk(
          await t.request('POST', '/v1/messages', {
            token: alice.api_key,
            body: { to_alias: bob.alias, subject: `${tag} ${i}`, body: `${BODY} (${tag} ${i})` },
          }),
        );
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  }

  let first: BackupResult;
  let second: BackupResult;

  it('backs up, and after 1,000 more mails writes only the chunks they touched', async () => {
    first = expectOk(await t.owner('POST', '/v1/node/backups', { to: backups }));
    expect(first.chunks_written).toBe(first.chunks);
    expect(first.bytes_written).toBeGreaterThan(first.bytes);
    expect(statSync(backups).mode & 0o777).toBe(0o700);

    await send(1000, 'second');
    second = expectOk(await t.owner('POST', '/v1/node/backups', { to: backups }));
    expect(second.chunks).toBeGreaterThanOrEqual(first.chunks);
    // The new mails' rows, the indexes that grow at their end, the search index's merged segments
    // and the index of random message ids change; the older mails' chunks do not (here about 30 of
    // 85 chunks are written again, a third of the bytes).
    expect(second.chunks_written).toBeLessThan(first.chunks_written / 2);
    expect(second).toMatchObject({ kept: 2, removed: 0 });

    expect(expectOk(await t.owner('GET', '/v1/node/backups'))).toEqual({
      last_backup_at: second.created_at,
      last_backup_to: backups,
      schedule: null,
      running: null,
    });
  }, 60_000);

  it('shows the backup being written, chunk by chunk, and nudges the owner feed as it moves on', async () => {
    const folder = join(root, 'watched');
    const feed = (await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(30))}`, { token: t.node.ownerToken })).stream!;
    expect((await feed.next()).event).toBe('connected');
    const answered = { yet: false };
    const writing = t.owner('POST', '/v1/node/backups', { to: folder }).finally(() => (answered.yet = true));
    const seen: RunningBackup[] = [];
    while (!answered.yet) {
      const running = (expectOk(await t.owner('GET', '/v1/node/backups')) as BackupStatus).running;
      if (running !== null) seen.push(running);
      await sleep(2);
    }
    const written = expectOk(await writing) as BackupResult;
    expect(seen.length).toBeGreaterThan(0);
    for (const running of seen) {
      expect(running).toMatchObject({ to: folder, started_at: expect.any(String) });
      expect(running.done).toBeLessThanOrEqual(running.total);
    }
    // The node answered while its pages were sealed: it said how far it was.
    const chunks = seen.filter((running) => running.phase === 'chunks' && running.done > 0);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((running) => running.total === written.chunks)).toBe(true);
    expect(expectOk(await t.owner('GET', '/v1/node/backups'))).toMatchObject({ running: null, last_backup_to: folder });

    // Nudged when it started, as it moved on (a few times a second at most), and when it ended.
    const nudges = () => feed.frames.filter((frame) => frame.event === 'backups_changed').length;
    for (let i = 0; i < 200 && nudges() < 3; i++) await sleep(10);
    feed.close();
    expect(nudges()).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('cancels the backup being written: no backup is added to its folder', async () => {
    const folder = join(root, 'cancelled');
    const writing = t.owner('POST', '/v1/node/backups', { to: folder });
    let running: RunningBackup | null = null;
    for (let i = 0; i < 2000 && running === null; i++) {
      running = (expectOk(await t.owner('GET', '/v1/node/backups')) as BackupStatus).running;
      if (running === null) await sleep(2);
    }
    expect(running).toMatchObject({ to: folder });

    const after = expectOk(await t.owner('DELETE', '/v1/node/backups/running')) as BackupStatus;
    expect(after).toMatchObject({ running: null, last_backup_to: join(root, 'watched') });
    expectRefusal(await writing, 409, /cancelled/, 'SVC_ERR_BACKUP_CANCELLED');
    expect(readdirSync(join(folder, 'manifests'))).toEqual([]);
    expectRefusal(await t.owner('DELETE', '/v1/node/backups/running'), 404, /no backup is being written/, 'SVC_ERR_BACKUP_NOT_RUNNING');
    // The next backup into that folder is whole.
    expect(expectOk(await t.owner('POST', '/v1/node/backups', { to: folder }))).toMatchObject({ kept: 1 });
  }, 60_000);

  it('leaves no message text, and no database header, in any file of the folder', () => {
    for (const file of filesUnder(backups)) {
      const bytes = readFileSync(file);
      expect(bytes.includes(BODY), file).toBe(false);
      expect(bytes.includes('SQLite format 3'), file).toBe(false);
    }
  });

  it('refuses a relative path, a file, and another node’s folder', async () => {
    expectRefusal(await t.owner('POST', '/v1/node/backups', { to: 'backups' }), 400, /absolute/, 'SVC_ERR_BACKUP_FOLDER_RELATIVE');
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    expectRefusal(await t.owner('POST', '/v1/node/backups', { to: file }), 409, /not a directory/, 'SVC_ERR_BACKUP_FOLDER_NOT_DIRECTORY');
    const foreign = join(root, 'foreign');
    const other = await startTestNode();
    try {
      expectOk(await other.owner('POST', '/v1/node/backups', { to: foreign }));
    } finally {
      await other.stop();
    }
    expectRefusal(await t.owner('POST', '/v1/node/backups', { to: foreign }), 409, /another backup key/, 'SVC_ERR_BACKUP_FOLDER_FOREIGN');
    expectRefusal(await t.owner('PUT', '/v1/node/backups/schedule', { to: 'relative', every_hours: 1 }), 400, /absolute/, 'SVC_ERR_BACKUP_FOLDER_RELATIVE');
  });

  it('runs the schedule on the node’s clock, and stops it', async () => {
    const scheduled = join(root, 'scheduled');
    const manifests = () => readdirSync(join(scheduled, 'manifests')).length;
    const until = async (check: () => boolean) => {
      for (let i = 0; i < 400 && !check(); i++) await sleep(25);
      expect(check()).toBe(true);
    };
    expect(expectOk(await t.owner('PUT', '/v1/node/backups/schedule', { to: scheduled, every_hours: 6 })).schedule).toEqual({ to: scheduled, every_hours: 6 });
    // Due at once (no backup went there), then not again until six hours have passed on the node's clock.
    await until(() => statSync(scheduled, { throwIfNoEntry: false }) !== undefined && manifests() === 1);
    await sleep(150);
    expect(manifests()).toBe(1);
    offset += 6 * HOUR;
    await until(() => manifests() === 2);
    expect(expectOk(await t.owner('GET', '/v1/node/backups')).last_backup_to).toBe(scheduled);

    expect(expectOk(await t.owner('PUT', '/v1/node/backups/schedule', { to: scheduled, every_hours: 0 })).schedule).toBeNull();
    offset += 6 * HOUR;
    await sleep(150);
    expect(manifests()).toBe(2);
  });

  it('backs up from the command line, one JSON object on stdout', async () => {
    const result = await runCli(['backup', '--to', backups, '--data', t.dataDir, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ chunks: expect.any(Number), chunks_written: expect.any(Number), kept: 3 });
    const refused = await runCli(['backup', '--to', join(root, 'a-file'), '--data', t.dataDir, '--json']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/not a directory/);
  });

  it('cancels the backup from the command line with Ctrl-C: the node adds nothing to the folder', async () => {
    const folder = join(root, 'interrupted');
    const command = spawn(NODE_BIN, [join(REPO_ROOT, 'bin/svc-node.js'), 'backup', '--to', folder, '--data', t.dataDir], {
      env: { ...process.env, SVC_NODE_CUSTODY: 'key-file' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    command.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = once(command, 'close') as Promise<[number | null]>;
    let running: RunningBackup | null = null;
    for (let i = 0; i < 4000 && running === null; i++) {
      running = (expectOk(await t.owner('GET', '/v1/node/backups')) as BackupStatus).running;
      if (running === null) await sleep(2);
    }
    expect(running).toMatchObject({ to: folder });
    command.kill('SIGINT');
    const [code] = await exited;
    expect(code).not.toBe(0);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/cancelled/);
    expect(readdirSync(join(folder, 'manifests'))).toEqual([]);
    expect((expectOk(await t.owner('GET', '/v1/node/backups')) as BackupStatus).running).toBeNull();
  }, 60_000);

  it('restores each backup, under the node’s backup key, with the mail it had', async () => {
    await t.stop({ keepData: true });
    stopped = true;
    const custody = await Custody.open({ dataDir: t.dataDir, backend: 'key-file', warn() {} });
    const db = openDatabase({ file: join(t.dataDir, 'node.db'), key: custody.databaseKey() });
    custody.attach(db);
    const backupKey = custody.backupKey();
    closeDatabase(db);
    custody.close();

    const counts: Record<string, number> = {};
    for (const backup of [first, second]) {
      const key = randomBytes(32);
      const file = join(root, `restored-${backup.backup_id}`, 'node.db');
      expect(await restoreDatabase({ backupDir: backups, backupKey, file, key, manifest: backup.backup_id })).toMatchObject({ backup_id: backup.backup_id });
      const restored = openDatabase({ file, key });
      try {
        // The stored mail as it was written; the mail sent over HTTP sealed, with what the node opened of it.
        counts[backup.backup_id] = restored
          .prepare(`SELECT count(*) FROM messages WHERE body LIKE @text OR opened_body LIKE @text`)
          .pluck()
          .get({ text: `${BODY}%` }) as number;
      } finally {
        closeDatabase(restored);
      }
    }
    expect(counts).toEqual({ [first.backup_id]: STORED, [second.backup_id]: STORED + 1000 });
  });
});
