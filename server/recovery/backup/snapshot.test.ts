/**
 * The snapshot a backup takes while the node runs, read by the backup's worker thread over its own
 * connection: another connection (a thread of its own) commits pairs of rows the whole time, and
 * every backup restores to a database that passes SQLite's check and holds whole pairs only; no
 * plaintext file appears meanwhile, in the data folder, the backup folder, the restore's folder,
 * or as an SQLite temporary file.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../store/database.ts';
import { restoreDatabase, writeBackup } from './index.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-backup-snapshot-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Commits two rows per transaction into node_settings until told to stop; answers how many pairs. */
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.sqlite);
const db = new SQLite(workerData.file);
db.pragma("cipher='sqlcipher'");
db.pragma('legacy=4');
db.pragma('key="x\\'' + workerData.key + '\\'"');
db.pragma('busy_timeout=5000');
const insert = db.prepare('INSERT INTO node_settings (key, value) VALUES (?, ?)');
const pair = db.transaction((n) => { insert.run('pair-' + n + '-a', 'x'.repeat(300)); insert.run('pair-' + n + '-b', 'y'.repeat(300)); });
let n = 0;
let stop = false;
parentPort.on('message', () => { stop = true; });
const step = () => {
  for (let i = 0; i < 5; i++) pair(n++);
  if (stop) { db.close(); parentPort.postMessage(n); } else setTimeout(step, 2);
};
parentPort.postMessage('started');
step();
`;

function watchAll(dirs: string[], seen: string[]): FSWatcher[] {
  return dirs.map((dir) => watch(dir, { recursive: true }, (_event, name) => seen.push(join(dir, String(name)))));
}

describe('a backup of a database being written', () => {
  it('is consistent, and no plaintext file appears while it is taken or restored', async () => {
    const key = randomBytes(32);
    const backupKey = randomBytes(32);
    const dataDir = join(root, 'data');
    const file = join(dataDir, 'node.db');
    const backups = join(root, 'backups');
    const restoreDir = join(root, 'restored');
    const db = openDatabase({ file, key });
    const seen: string[] = [];
    for (const dir of [backups, restoreDir]) rmSync(dir, { recursive: true, force: true });
    for (const dir of [backups, restoreDir]) mkdirSync(dir, { recursive: true });
    const watchers = watchAll([dataDir, backups, restoreDir], seen);
    const temporary = watch(tmpdir(), (_event, name) => {
      if (String(name).startsWith('etilqs_')) seen.push(join(tmpdir(), String(name)));
    });

    const writer = new Worker(WRITER, {
      eval: true,
      workerData: { sqlite: createRequire(import.meta.url).resolve('better-sqlite3-multiple-ciphers'), file, key: key.toString('hex') },
    });
    const started = new Promise((resolve) => writer.once('message', resolve));
    await started;
    const ids: string[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        await sleep(60);
        ids.push((await writeBackup({ db, databaseKey: key, dir: backups, backupKey, nodeId: 'n', now: new Date(Date.UTC(2026, 11, 1, 10, i)) })).backup_id);
      }
    } finally {
      const pairs = new Promise<number>((resolve) => writer.on('message', resolve));
      writer.postMessage('stop');
      expect(await pairs).toBeGreaterThan(0);
      await writer.terminate();
    }

    const counts: number[] = [];
    for (const id of ids) {
      const restored = join(restoreDir, `${id}.db`);
      await restoreDatabase({ backupDir: backups, backupKey, file: restored, key, manifest: id });
      const copy = openDatabase({ file: restored, key });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        const a = copy.prepare(`SELECT count(*) FROM node_settings WHERE key LIKE 'pair-%-a'`).pluck().get() as number;
        const b = copy.prepare(`SELECT count(*) FROM node_settings WHERE key LIKE 'pair-%-b'`).pluck().get() as number;
        expect(a).toBe(b);
        counts.push(a);
      } finally {
        closeDatabase(copy);
      }
    }
    // The writer was committing throughout: each backup saw more pairs than the one before.
    expect(counts.every((count, i) => i === 0 || count > counts[i - 1]!)).toBe(true);

    await sleep(100);
    for (const watcher of [...watchers, temporary]) watcher.close();
    closeDatabase(db);
    const unexpected = seen.filter((path) => {
      if (path.startsWith(dataDir)) return !/\/node\.db(-wal|-shm)?$/.test(path);
      if (path.startsWith(backups))
        return !/\/(svc-node-backup\.json|chunks|manifests|tmp|chunks\/[0-9a-f]{64}|manifests\/\d{8}T\d{9}Z\.manifest|tmp\/[0-9a-f-]{36}\.tmp)$/.test(path);
      if (path.startsWith(restoreDir)) return !/\/\d{8}T\d{9}Z\.db(-wal|-shm)?$/.test(path);
      return true;
    });
    expect(unexpected).toEqual([]);
    expect(seen.some((path) => path.startsWith(backups))).toBe(true);
  });
});
