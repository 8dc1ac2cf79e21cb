/**
 * Backups of a node's database (BENCH_ONLY=backup): a full backup of a database of
 * BENCH_BACKUP_MB megabytes of mail (default 64; 1024 for the 1 GB case, which takes minutes and
 * a gigabyte of memory), then an incremental one after 1,000 new mails, then reading the newest
 * back into a new database. Mail is written into the store as deliveries write it, and indexed
 * for search, on a real encrypted database; the backup folder is a real one on this disk.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { restoreDatabase, writeBackup, type BackupResult } from '../server/recovery/backup/index.ts';
import { SearchIndexer } from '../server/search/indexer.ts';
import { closeDatabase, openDatabase, type Database } from '../server/store/database.ts';
import { insertMailRow } from '../server/surfaces/core/mail/store/messages.ts';
import { mailRow } from '../test/support/mail-rows.ts';
import { addIdentity } from '../test/support/store-database.ts';
import { report } from './measure.ts';

const TARGET_MB = Number(process.env.BENCH_BACKUP_MB ?? 64);
const NEW_MAILS = 1000;
const PROSE = 'The tide came in over the flats before noon, and the boats waited at the pier for the wind to turn. '.repeat(10);

function addMail(db: Database, count: number): void {
  const [from, to] = [addIdentity(db, { alias: `s-${randomUUID().slice(0, 8)}` }), addIdentity(db, { alias: `r-${randomUUID().slice(0, 8)}` })];
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const [subject, body] = [`note ${i}`, `mail ${i}: ${randomUUID()}`];
      insertMailRow(db, mailRow(from, to, { message_id: randomUUID(), subject, body, signed_payload: JSON.stringify({ subject, body, more: PROSE }) }));
    }
  })();
  new SearchIndexer(db).runToEnd();
}

const size = (db: Database): number => (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);

/** The backup's time, and the longest the event loop (which serves every request) was held meanwhile. */
async function timed(fn: () => Promise<BackupResult>): Promise<BackupResult & { ms: number; longest_stall_ms: number }> {
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  const start = performance.now();
  const result = await fn();
  const ms = Math.round(performance.now() - start);
  stalls.disable();
  return { ...result, ms, longest_stall_ms: Math.round(stalls.max / 1e6) };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-backup-'));
  const databaseKey = randomBytes(32);
  const db = openDatabase({ file: join(dir, 'data', 'node.db'), key: databaseKey });
  try {
    while (size(db) < TARGET_MB * 1024 * 1024) addMail(db, 10_000);
    const backupKey = randomBytes(32);
    const backups = join(dir, 'backups');
    // With the database key, as the node backs up: the worker thread reads the pages over its own connection.
    const backUp = () => writeBackup({ db, databaseKey, dir: backups, backupKey, nodeId: 'bench', now: new Date() });
    const full = await timed(backUp);
    addMail(db, NEW_MAILS);
    const incremental = await timed(backUp);
    const start = performance.now();
    await restoreDatabase({ backupDir: backups, backupKey, file: join(dir, 'restored', 'node.db'), key: randomBytes(32) });
    const restoreMs = Math.round(performance.now() - start);
    const summary = ({ ms, longest_stall_ms, chunks, chunks_written, bytes, bytes_written }: Awaited<ReturnType<typeof timed>>) => ({
      ms,
      longest_stall_ms,
      chunks,
      chunks_written,
      bytes,
      bytes_written,
    });
    report('backup', {
      database_mb: Math.round(full.bytes / (1024 * 1024)),
      full: summary(full),
      after_new_mails: NEW_MAILS,
      incremental: summary(incremental),
      restore_ms: restoreMs,
    });
  } finally {
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}
