/**
 * Backups of a real encrypted node database into a real folder, and reading them back: the first
 * backup writes every chunk, the next only what changed; each backup restores as a new SQLCipher
 * database with the rows it had; a changed byte, a swapped chunk, a changed manifest or another
 * key is refused with nothing written; no file of the folder holds plaintext.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailRow } from '../../../test/support/mail-rows.ts';
import { addIdentity } from '../../../test/support/store-database.ts';
import type { Db } from '../../context.ts';
import { closeDatabase, openDatabase } from '../../store/database.ts';
import { SearchIndexer } from '../../search/indexer.ts';
import { insertMailRow } from '../../surfaces/core/mail/store/messages.ts';
import {
  BackupFolderError,
  BackupKeyMismatchError,
  BackupNotFoundError,
  BackupTamperedError,
  BackupTooLargeError,
  RestoreTargetExistsError,
} from './errors.ts';
import { BackupFolder } from './folder.ts';
import { listBackups, restoreDatabase, writeBackup, type BackupResult } from './index.ts';
import { backupKeys } from './keys.ts';
import { readManifest } from './write-backup.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-backup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const BODY = 'the walrus sings at dawn';
/** With it each mail's signed payload is about a kilobyte, as people's mail is. */
const PROSE = 'The tide came in over the flats before noon, and the boats waited at the pier for the wind to turn. '.repeat(10);
const databaseKey = randomBytes(32);
const backupKey = randomBytes(32);
const backups = join(root, 'backups');

let db: Db;
beforeAll(() => {
  db = openDatabase({ file: join(root, 'data', 'node.db'), key: databaseKey });
  return () => closeDatabase(db);
});

/** `count` mails of about a kilobyte each, as deliveries write them. */
function addMail(count: number): void {
  const sender = addIdentity(db, { alias: `s-${randomUUID().slice(0, 8)}` });
  const recipient = addIdentity(db, { alias: `r-${randomUUID().slice(0, 8)}` });
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const [subject, body] = [`note ${i}`, `${BODY} #${i}`];
      insertMailRow(
        db,
        mailRow(sender, recipient, { message_id: randomUUID(), subject, body, signed_payload: JSON.stringify({ subject, body, more: PROSE }) }),
      );
    }
  })();
  new SearchIndexer(db).runToEnd();
}

const SCHEMA = 'SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name';

/** The restored database's mail: its rows, what its search index finds, and whether its schema is the original's. */
const restoredMail = (file: string, key: Uint8Array): { rows: number; found: number; sameSchema: boolean } => {
  const restored = openDatabase({ file, key });
  try {
    return {
      rows: restored.prepare('SELECT count(*) FROM messages').pluck().get() as number,
      found: restored.prepare(`SELECT count(*) FROM search_mail WHERE search_mail MATCH 'walrus'`).pluck().get() as number,
      sameSchema: JSON.stringify(restored.prepare(SCHEMA).all()) === JSON.stringify(db.prepare(SCHEMA).all()),
    };
  } finally {
    closeDatabase(restored);
  }
};

/** Every file under `dir`, with its path relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((path) => statSync(join(dir, path)).isFile());
}

describe('an encrypted, incremental backup', () => {
  let first: BackupResult;
  let second: BackupResult;

  beforeAll(async () => {
    addMail(30_000);
    first = await writeBackup({ db, databaseKey, dir: backups, backupKey, nodeId: 'node-1', now: new Date('2026-12-01T10:00:00.000Z') });
    addMail(1000);
    second = await writeBackup({ db, databaseKey, dir: backups, backupKey, nodeId: 'node-1', now: new Date('2026-12-01T11:00:00.000Z') });
  });

  it('writes every chunk the first time, and after 1,000 new mails only the chunks they touched', () => {
    expect(first).toMatchObject({ backup_id: '20261201T100000000Z', created_at: '2026-12-01T10:00:00.000Z', kept: 1, removed: 0 });
    expect(first.chunks_written).toBe(first.chunks);
    expect(first.bytes % 4096).toBe(0);
    expect(second.bytes).toBeGreaterThan(first.bytes);
    // The mails' rows and the time-ordered indexes change at their ends, the index of random
    // message ids all over itself; the rest of the database keeps its chunks.
    expect(second.chunks_written).toBeLessThan(first.chunks_written / 2);
    expect(second.bytes_written).toBeLessThan(second.bytes * 0.4);
    expect(second).toMatchObject({ kept: 2, removed: 0 });
    expect(readdirSync(join(backups, 'manifests')).sort()).toEqual(['20261201T100000000Z.manifest', '20261201T110000000Z.manifest']);
  });

  it('restores each backup as a new encrypted database with the rows it had', async () => {
    const key = randomBytes(32);
    const older = join(root, 'restored-1', 'node.db');
    const newer = join(root, 'restored-2', 'node.db');
    const restoredOld = await restoreDatabase({ backupDir: backups, backupKey, file: older, key, manifest: first.backup_id });
    const restoredNew = await restoreDatabase({ backupDir: backups, backupKey, file: newer, key });
    expect(restoredOld).toMatchObject({ backup_id: first.backup_id, node_id: 'node-1', created_at: first.created_at, bytes: first.bytes });
    expect(restoredOld.schema_version).toBeGreaterThanOrEqual(46);
    expect(restoredNew.backup_id).toBe(second.backup_id);
    expect(restoredMail(older, key)).toEqual({ rows: 30_000, found: 30_000, sameSchema: true });
    expect(restoredMail(newer, key)).toEqual({ rows: 31_000, found: 31_000, sameSchema: true });
    // Encrypted under the new key: no SQLite header, no mail text.
    for (const file of [older, newer]) {
      const bytes = readFileSync(file);
      expect(bytes.includes('SQLite format 3')).toBe(false);
      expect(bytes.includes(BODY)).toBe(false);
    }
    expect(await listBackups({ backupDir: backups, backupKey })).toEqual([
      expect.objectContaining({ backup_id: first.backup_id, chunks: first.chunks }),
      expect.objectContaining({ backup_id: second.backup_id, chunks: second.chunks }),
    ]);
  });

  it('leaves no plaintext in any file of the folder, and names that reveal nothing', () => {
    const files = filesUnder(backups);
    expect(files.length).toBeGreaterThan(second.chunks);
    for (const file of files) {
      const bytes = readFileSync(join(backups, file));
      expect(bytes.includes(BODY), file).toBe(false);
      expect(bytes.includes('SQLite format 3'), file).toBe(false);
      expect(bytes.includes('node-1'), file).toBe(false);
    }
    expect(files.filter((file) => file.startsWith('chunks')).every((file) => /^chunks\/[0-9a-f]{64}$/.test(file))).toBe(true);
    expect(readdirSync(join(backups, 'tmp'))).toEqual([]);
  });

  it('refuses a chunk changed by one byte, a chunk swapped for another, and a changed manifest, writing nothing', async () => {
    const manifest = await readManifest(new BackupFolder(backups), backupKeys(backupKey), second.backup_id);
    const newestChunks = manifest?.chunks.map((chunk) => chunk.name) ?? [];
    expect(newestChunks.length).toBe(second.chunks);
    const cases: [string, (dir: string) => void][] = [
      [
        'a changed byte',
        (dir) => {
          const chunk = join(dir, 'chunks', newestChunks[0]!);
          const bytes = readFileSync(chunk);
          bytes[bytes.length >> 1]! ^= 1;
          writeFileSync(chunk, bytes);
        },
      ],
      [
        'a swapped chunk',
        (dir) => {
          const [a, b] = newestChunks;
          writeFileSync(join(dir, 'chunks', a!), readFileSync(join(dir, 'chunks', b!)));
        },
      ],
      [
        'a changed manifest',
        (dir) => {
          const manifest = join(dir, 'manifests', `${second.backup_id}.manifest`);
          const bytes = readFileSync(manifest);
          bytes[20]! ^= 0x80;
          writeFileSync(manifest, bytes);
        },
      ],
      [
        'a manifest renamed',
        (dir) => {
          const manifests = join(dir, 'manifests');
          rmSync(join(manifests, `${second.backup_id}.manifest`));
          cpSync(join(manifests, `${first.backup_id}.manifest`), join(manifests, `${second.backup_id}.manifest`));
        },
      ],
    ];
    for (const [what, tamper] of cases) {
      const copy = join(root, `tampered-${randomUUID()}`);
      cpSync(backups, copy, { recursive: true });
      tamper(copy);
      const file = join(root, `from-tampered-${randomUUID()}`, 'node.db');
      await expect(restoreDatabase({ backupDir: copy, backupKey, file, key: randomBytes(32) }), what).rejects.toBeInstanceOf(BackupTamperedError);
      expect(existsSync(file), what).toBe(false);
    }
  });

  it('refuses another backup key, to read or to write, and an existing target file', async () => {
    const file = join(root, 'wrong-key', 'node.db');
    await expect(restoreDatabase({ backupDir: backups, backupKey: randomBytes(32), file, key: randomBytes(32) })).rejects.toBeInstanceOf(
      BackupKeyMismatchError,
    );
    expect(existsSync(file)).toBe(false);
    await expect(writeBackup({ db, dir: backups, backupKey: randomBytes(32), nodeId: 'node-2', now: new Date() })).rejects.toBeInstanceOf(
      BackupKeyMismatchError,
    );
    await expect(restoreDatabase({ backupDir: backups, backupKey, file: join(root, 'data', 'node.db'), key: randomBytes(32) })).rejects.toBeInstanceOf(
      RestoreTargetExistsError,
    );
    await expect(restoreDatabase({ backupDir: backups, backupKey, file, key: randomBytes(32), manifest: '20200101T000000000Z' })).rejects.toBeInstanceOf(
      BackupNotFoundError,
    );
    await expect(restoreDatabase({ backupDir: join(root, 'empty'), backupKey, file, key: randomBytes(32) })).rejects.toBeInstanceOf(BackupNotFoundError);
  });
});

describe('the backup folder', () => {
  it('loses what an interrupted backup left: its temporary files, and a chunk cut short is written again', async () => {
    const dir = join(root, 'interrupted');
    await writeBackup({ db, dir, backupKey, nodeId: 'n', now: new Date('2026-12-02T10:00:00.000Z') });
    writeFileSync(join(dir, 'tmp', `${randomUUID()}.tmp`), 'half a chunk');
    const chunk = join(dir, 'chunks', readdirSync(join(dir, 'chunks'))[0]!);
    writeFileSync(chunk, readFileSync(chunk).subarray(0, 100));
    const again = await writeBackup({ db, dir, backupKey, nodeId: 'n', now: new Date('2026-12-02T11:00:00.000Z') });
    // Nothing changed in the database between the two: the one chunk written is the one cut short.
    expect(again.chunks_written).toBe(1);
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
    const file = join(root, 'from-interrupted', 'node.db');
    await restoreDatabase({ backupDir: dir, backupKey, file, key: randomBytes(32) });
    expect(existsSync(file)).toBe(true);
  });

  it('is an absolute path to a directory, made 0700 when absent; a database too large to hold in memory is refused', async () => {
    await expect(writeBackup({ db, dir: 'relative/backups', backupKey, nodeId: 'n', now: new Date() })).rejects.toMatchObject({ reason: 'relative' });
    const file = join(root, 'a-file');
    writeFileSync(file, 'not a folder');
    const refusal = writeBackup({ db, dir: file, backupKey, nodeId: 'n', now: new Date() });
    await expect(refusal).rejects.toBeInstanceOf(BackupFolderError);
    await expect(refusal).rejects.toMatchObject({ reason: 'not_directory' });
    await expect(
      writeBackup({ db, databaseKey, dir: join(root, 'small'), backupKey, nodeId: 'n', now: new Date(), maxImageBytes: 4096 }),
    ).rejects.toBeInstanceOf(BackupTooLargeError);
    const made = join(root, 'made', 'here');
    await writeBackup({ db, dir: made, backupKey, nodeId: 'n', now: new Date() });
    expect(statSync(made).mode & 0o777).toBe(0o700);
  });
});
