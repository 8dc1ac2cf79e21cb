/**
 * Custody's other secrets (the backup key): made once and kept across restarts, stored only
 * wrapped, adoptable from a kit, and refused when its wrapped form was changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Database } from '../store/database.ts';
import { Custody } from './custody.ts';

let root: string;
let dataDir: string;
let custody: Custody;
let db: Database;

async function start(dir = dataDir): Promise<void> {
  custody = await Custody.open({ dataDir: dir, backend: 'key-file', env: {}, warn: () => {}, scryptCost: 10 });
  db = openDatabase({ file: join(dir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
}

function stop(): void {
  custody.close();
  closeDatabase(db);
}

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
  dataDir = join(root, 'data');
  await start();
});

afterEach(() => {
  custody.close();
  if (db.open) db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the backup key', () => {
  it('is 32 random bytes, made on first use and the same on every later call and after a restart', async () => {
    const first = custody.backupKey();
    expect(first).toHaveLength(32);
    expect(first.equals(Buffer.alloc(32))).toBe(false);
    expect(custody.backupKey().equals(first)).toBe(true);
    stop();
    await start();
    expect(custody.backupKey().equals(first)).toBe(true);
  });

  it('is stored only wrapped', () => {
    const key = custody.backupKey();
    const row = db.prepare("SELECT wrapped FROM custody_secrets WHERE name = 'backup'").get() as { wrapped: Buffer };
    expect(row.wrapped.includes(key)).toBe(false);
    expect(row.wrapped.length).toBeGreaterThan(key.length);
  });

  it("is another node's own: a second node makes a different one", async () => {
    const ours = custody.backupKey();
    stop();
    await start(join(root, 'other'));
    expect(custody.backupKey().equals(ours)).toBe(false);
  });

  it("is replaced by a kit's key when adopted, and kept so across a restart", async () => {
    custody.backupKey();
    const kits = Buffer.alloc(32, 7);
    custody.adoptBackupKey(kits);
    expect(custody.backupKey().equals(kits)).toBe(true);
    stop();
    await start();
    expect(custody.backupKey().equals(kits)).toBe(true);
    expect(() => custody.adoptBackupKey(Buffer.alloc(16))).toThrow(RangeError);
  });

  it('refuses a wrapped key changed in the database, rather than hand out another key', () => {
    custody.backupKey();
    db.prepare("UPDATE custody_secrets SET wrapped = zeroblob(60) WHERE name = 'backup'").run();
    expect(() => custody.backupKey()).toThrow(/does not unwrap/);
  });
});
