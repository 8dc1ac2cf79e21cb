/**
 * The documents' uploaded files in a backup: every ready file of the assets folder is backed up
 * beside the database (a file still arriving, `.part`, and anything not named as an asset left
 * out) and restored byte for byte; a file already backed up is not written again, and the
 * retention rule keeps its chunks; a file's chunk changed by one byte refuses the restore, which
 * then writes neither the database nor any file. The backup's worker thread reads the files after
 * the pages, and tells each file done.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Database } from '../../store/database.ts';
import { CHUNK_BYTES } from './chunks.ts';
import { BackupTamperedError } from './errors.ts';
import { BackupFolder } from './folder.ts';
import { restoreDatabase, writeBackup } from './index.ts';
import { backupKeys } from './keys.ts';
import { readManifest, type BackupProgress } from './write-backup.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-backup-assets-'));
const backupKey = randomBytes(32);
const databaseKey = randomBytes(32);
const assets = join(root, 'data', 'assets');
const backups = join(root, 'backups');
const VIDEO = 'a6f0c3f2-4b1e-4c8e-9a55-0e2f4b7d9c11';
const CLIP = 'c0ffee00-1111-4222-8333-944455556666';
const files: Record<string, Buffer> = {
  // Two and a half chunks: three pieces, the last one short.
  [VIDEO]: randomBytes(Math.floor(CHUNK_BYTES * 2.5)),
  [CLIP]: randomBytes(1000),
};
let db: Database;

beforeAll(() => {
  db = openDatabase({ file: join(root, 'data', 'node.db'), key: databaseKey });
  mkdirSync(assets, { recursive: true });
  for (const [id, bytes] of Object.entries(files)) writeFileSync(join(assets, id), bytes);
  writeFileSync(join(assets, `${CLIP}.part`), randomBytes(50));
  writeFileSync(join(assets, '.hidden'), 'not an asset');
  mkdirSync(join(assets, 'a-folder'));
});
afterAll(() => {
  closeDatabase(db);
  rmSync(root, { recursive: true, force: true });
});

const progress: BackupProgress[] = [];
const backUp = (at: string) =>
  writeBackup({ db, databaseKey, dir: backups, backupKey, nodeId: 'node-1', now: new Date(at), assetsDir: assets, onProgress: (now) => progress.push(now) });
const restoreInto = (name: string) => {
  const dir = join(root, name);
  mkdirSync(dir);
  return { dir, done: restoreDatabase({ backupDir: backups, backupKey, file: join(dir, 'node.db'), key: databaseKey, assetsDir: join(dir, 'assets') }) };
};

describe('the documents’ files in a backup', () => {
  it('backs up every ready file and restores each byte for byte; a file backed up before is not written again', async () => {
    const first = await backUp('2026-12-01T10:00:00Z');
    // After the pages, the files, one by one.
    expect(progress.filter((now) => now.phase === 'files')).toEqual([
      { phase: 'files', done: 0, total: 0 },
      { phase: 'files', done: 1, total: 2 },
      { phase: 'files', done: 2, total: 2 },
    ]);
    expect(progress.findLastIndex((now) => now.phase === 'chunks')).toBeLessThan(progress.findIndex((now) => now.phase === 'files'));
    const manifest = await readManifest(new BackupFolder(backups), backupKeys(backupKey), first.backup_id);
    expect(manifest?.assets?.map((asset) => [asset.id, asset.size, asset.chunks.length])).toEqual([
      [VIDEO, files[VIDEO]!.length, 3],
      [CLIP, 1000, 1],
    ]);
    const second = await backUp('2026-12-01T11:00:00Z');
    // Nothing changed: the second backup wrote at most the database's few changing chunks, none of the files'.
    expect(second.chunks).toBe(first.chunks);
    expect(second.chunks_written).toBeLessThan(first.chunks_written - 3);

    const { dir, done } = restoreInto('restored');
    await done;
    expect(readdirSync(join(dir, 'assets')).sort()).toEqual([VIDEO, CLIP].sort());
    for (const [id, bytes] of Object.entries(files)) expect(readFileSync(join(dir, 'assets', id)).equals(bytes)).toBe(true);
  });

  it('keeps the files’ chunks through the retention rule', async () => {
    // A year later: every earlier backup but the newest of its month goes, and the chunks only they named.
    await backUp('2027-12-02T10:00:00Z');
    const { dir, done } = restoreInto('a-year-later');
    await done;
    expect(readFileSync(join(dir, 'assets', VIDEO)).equals(files[VIDEO]!)).toBe(true);
  });

  it('refuses a file whose chunk changed by one byte, writing neither the database nor any file', async () => {
    const folder = new BackupFolder(backups);
    const keys = backupKeys(backupKey);
    const ids = await folder.backupIds();
    const manifest = await readManifest(folder, keys, ids.at(-1)!);
    const chunk = folder.chunkPath(manifest!.assets!.find((asset) => asset.id === CLIP)!.chunks[0]!);
    const box = readFileSync(chunk);
    box[box.length - 1]! ^= 1;
    writeFileSync(chunk, box);
    const { dir, done } = restoreInto('refused');
    await expect(done).rejects.toBeInstanceOf(BackupTamperedError);
    expect(existsSync(join(dir, 'node.db'))).toBe(false);
    expect(existsSync(join(dir, 'assets')) ? readdirSync(join(dir, 'assets')) : []).toEqual([]);
  });
});
