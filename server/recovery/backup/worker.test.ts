/**
 * A backup written by its worker thread, of a real encrypted database of a few tens of MB: the
 * calling thread's timers keep firing meanwhile (the longest gap between them far below what
 * reading the same database on that thread takes); the backup tells where it is, phase by phase
 * and chunk by chunk; and a backup cancelled half-way rejects with a BackupCancelledError, adds
 * no manifest, leaves the earlier backup restorable, and the next backup's retention removes the
 * chunks it had written.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../context.ts';
import { closeDatabase, openDatabase } from '../../store/database.ts';
import { BackupCancelledError } from './errors.ts';
import { BackupFolder } from './folder.ts';
import { restoreDatabase, writeBackup, type BackupResult } from './index.ts';
import { backupKeys } from './keys.ts';
import { openImageReader } from './snapshot-store.ts';
import { readManifest, type BackupProgress } from './write-backup.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-backup-worker-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const databaseKey = randomBytes(32);
const backupKey = randomBytes(32);
let db: Db;
let serial = 0;

beforeAll(() => {
  db = openDatabase({ file: join(root, 'data', 'node.db'), key: databaseKey });
  return () => closeDatabase(db);
});

/** About `mb` MB of rows no two alike (so no two chunks share a name), made by SQLite itself: no garbage for this thread's collector. */
function addMegabytes(mb: number): void {
  const rows = mb * 256;
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO node_settings (key, value) SELECT 'filler-' || (? + i), hex(randomblob(1536)) FROM n`,
  ).run(rows, serial);
  serial += rows;
}

/** The longest wait between two ticks of a 5 ms timer while `work` runs. */
async function longestGap<T>(work: () => Promise<T>): Promise<{ gap: number; result: T }> {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 5);
  try {
    const result = await work();
    gap = Math.max(gap, performance.now() - last);
    return { gap, result };
  } finally {
    clearInterval(timer);
  }
}

/** The names of every chunk the folder's manifests name. */
async function namedChunks(dir: string): Promise<Set<string>> {
  const folder = new BackupFolder(dir);
  const keys = backupKeys(backupKey);
  const named = new Set<string>();
  for (const id of await folder.backupIds()) for (const chunk of (await readManifest(folder, keys, id))!.chunks) named.add(chunk.name);
  return named;
}

describe('a backup in its worker thread', () => {
  it('leaves the calling thread free: its timers keep firing while the pages are read and sealed', async () => {
    addMegabytes(48);
    const dir = join(root, 'responsive');
    // What a backup held this thread for when it read the pages here: serialize() of the same
    // database over a connection that has not read it yet, as the node's reads a database larger
    // than its page cache.
    const reader = openImageReader(db.name, databaseKey);
    const started = performance.now();
    const image = reader.serialize();
    const readHere = performance.now() - started;
    reader.close();
    image.fill(0);
    expect(image.length).toBeGreaterThan(48 * 1024 * 1024);

    const { gap, result } = await longestGap(() => writeBackup({ db, databaseKey, dir, backupKey, nodeId: 'n', now: new Date('2026-12-03T10:00:00.000Z') }));
    expect(result.bytes).toBe(image.length);
    expect(result.chunks_written).toBe(result.chunks);
    // Reading alone held this thread `readHere`; the whole backup in the worker never held it a quarter of that.
    expect(gap * 4).toBeLessThan(readHere);
  });

  it('tells where it is: reading, then each chunk of the total, then finishing', async () => {
    const seen: BackupProgress[] = [];
    const result = await writeBackup({
      db,
      databaseKey,
      dir: join(root, 'progress'),
      backupKey,
      nodeId: 'n',
      now: new Date('2026-12-03T11:00:00.000Z'),
      onProgress: (progress) => seen.push(progress),
    });
    expect(seen[0]).toEqual({ phase: 'reading', done: 0, total: 0 });
    expect(seen.at(-1)).toEqual({ phase: 'finishing', done: 0, total: 0 });
    const chunks = seen.filter((progress) => progress.phase === 'chunks' && progress.total > 0);
    expect(chunks.map((progress) => progress.done)).toEqual(Array.from({ length: result.chunks }, (_, i) => i + 1));
    expect(chunks.every((progress) => progress.total === result.chunks)).toBe(true);
    expect(seen.map((progress) => progress.phase)).toEqual(['reading', 'chunks', ...chunks.map(() => 'chunks' as const), 'finishing']);
  });

  it('cancelled half-way: no manifest added, the earlier backup restores, and the next backup removes what it wrote', async () => {
    const dir = join(root, 'cancelled');
    const first = await writeBackup({ db, databaseKey, dir, backupKey, nodeId: 'n', now: new Date('2026-12-04T10:00:00.000Z') });
    addMegabytes(20);

    const cancel = new AbortController();
    let chunksSeen = 0;
    const cancelled = writeBackup({
      db,
      databaseKey,
      dir,
      backupKey,
      nodeId: 'n',
      now: new Date('2026-12-04T11:00:00.000Z'),
      signal: cancel.signal,
      onProgress: ({ phase, done, total }) => {
        if (phase !== 'chunks' || done === 0) return;
        chunksSeen = done;
        // Near the end, past the chunks the new rows changed, so some were written.
        if (done === total - 2) cancel.abort();
      },
    });
    await expect(cancelled).rejects.toBeInstanceOf(BackupCancelledError);
    expect(chunksSeen).toBeGreaterThan(0);
    expect(await new BackupFolder(dir).backupIds()).toEqual([first.backup_id]);
    // The chunks it wrote before it stopped are there, named by no manifest.
    const named = await namedChunks(dir);
    expect(readdirSync(join(dir, 'chunks')).filter((name) => !named.has(name)).length).toBeGreaterThan(0);

    const restored = join(root, 'restored', 'node.db');
    await expect(restoreDatabase({ backupDir: dir, backupKey, file: restored, key: randomBytes(32) })).resolves.toMatchObject({ backup_id: first.backup_id });

    const next: BackupResult = await writeBackup({ db, databaseKey, dir, backupKey, nodeId: 'n', now: new Date('2026-12-04T12:00:00.000Z') });
    expect(next.kept).toBe(2);
    expect(readdirSync(join(dir, 'chunks')).sort()).toEqual([...(await namedChunks(dir))].sort());
  });

  it('cancelled before it began: rejects at once and writes nothing', async () => {
    const dir = join(root, 'never');
    const cancel = new AbortController();
    cancel.abort();
    await expect(writeBackup({ db, databaseKey, dir, backupKey, nodeId: 'n', now: new Date(), signal: cancel.signal })).rejects.toBeInstanceOf(
      BackupCancelledError,
    );
    expect(readdirSync(join(dir, 'chunks'))).toEqual([]);
    expect(readdirSync(join(dir, 'manifests'))).toEqual([]);
  });
});
