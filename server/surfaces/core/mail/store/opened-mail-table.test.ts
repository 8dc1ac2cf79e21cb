/**
 * The table of what the node opened of encrypted mail (mail_plaintext) after migration 0044: the
 * rows of a database made before it are kept, a row stays unique per message and reader, and rows
 * of the size a sealed mail keeps share pages instead of taking an overflow page each.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, migrationsDir } from '../../../../store/migrate.ts';

const ROWID_MIGRATION = 44;

let dir: string;
let db: SQLite.Database;

/** Migrates the database with the shipped migrations up to `version`. */
function migrateTo(version: number): void {
  const shipped = migrationsDir();
  const files = join(dir, `migrations-${version}`);
  mkdirSync(files);
  for (const file of readdirSync(shipped)) if (Number(file.slice(0, 4)) <= version) copyFileSync(join(shipped, file), join(files, file));
  migrate(db, files);
}

/** A row as the node keeps one (a repeat changes nothing). */
function keep(messageId: string, agentId: string, body: string): void {
  db.prepare(
    `INSERT OR IGNORE INTO mail_plaintext (message_id, agent_id, subject, body, signature, signed_payload) VALUES (?, ?, 'subject', ?, 'sig', 'payload')`,
  ).run(messageId, agentId, body);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-opened-mail-'));
  db = new SQLite(join(dir, 'plain.db'));
  // The rows below name identities this test does not make.
  db.pragma('foreign_keys=OFF');
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mail_plaintext after migration 0044', () => {
  it('keeps the rows stored before it, one per message and reader', () => {
    migrateTo(ROWID_MIGRATION - 1);
    keep('m1', 'a1', 'first');
    keep('m1', 'a2', 'first');
    migrateTo(ROWID_MIGRATION);
    keep('m1', 'a1', 'again');
    keep('m2', 'a1', 'second');
    expect(db.prepare('SELECT message_id, agent_id, body FROM mail_plaintext ORDER BY message_id, agent_id').all()).toEqual([
      { message_id: 'm1', agent_id: 'a1', body: 'first' },
      { message_id: 'm1', agent_id: 'a2', body: 'first' },
      { message_id: 'm2', agent_id: 'a1', body: 'second' },
    ]);
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'mail_plaintext'").pluck().get()).not.toMatch(/WITHOUT ROWID/i);
    // The search view reads the table again after it was made anew.
    expect(db.prepare('SELECT count(*) FROM search_mail_rows').pluck().get()).toBe(0);
  });

  it('keeps rows of about 1 KB several to a page rather than one overflow page each', () => {
    migrateTo(ROWID_MIGRATION);
    const rows = 200;
    for (let i = 0; i < rows; i++) keep(`message-${i}`, 'reader', 'x'.repeat(1000));
    const pages = db.prepare("SELECT count(*) FROM dbstat WHERE name = 'mail_plaintext'").pluck().get() as number;
    expect(pages).toBeLessThan(rows / 2);
  });
});
