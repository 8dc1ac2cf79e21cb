/**
 * One node per data dir: SQLite has one writer, and two nodes would hand out conflicting owner
 * tokens. The lock is an exclusive SQLite lock on the empty file DIR/node.lock, held by an open
 * `BEGIN EXCLUSIVE` for the life of the node: an fcntl lock (LockFileEx on Windows) that the
 * operating system drops the moment the process dies, however it dies. A pid file checked with
 * kill(pid, 0) could not tell a dead node from an unrelated process that reused its pid, nor a
 * dying one from a live one. The pid in node.json is shown in the refusal, never trusted.
 *
 * SQLite also locks between connections of one process, so a second node started in the same
 * process (tests do) is refused too. Nothing here may open and close a raw descriptor of the file
 * while it is locked: closing any descriptor of a file drops every fcntl lock the process holds
 * on it.
 */
import { rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { readNodeFile } from '../node-file.ts';

const LOCK_FILE = 'node.lock';

/** The file's inode, or null when it does not exist. */
function inode(file: string): number | null {
  try {
    return statSync(file).ino;
  } catch {
    return null;
  }
}

function sqliteCode(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

function anotherNode(dataDir: string, cause: unknown): Error {
  const pid = readNodeFile(dataDir)?.pid;
  const who = typeof pid === 'number' ? `another svc-node (pid ${pid})` : 'another svc-node';
  return new Error(`${who} is running on ${dataDir}`, { cause });
}

/** Takes the data dir's lock or throws naming the node that holds it; returns the release. */
export function acquireNodeLock(dataDir: string): () => void {
  const file = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = inode(file);
    // timeout 0: a held lock is an answer now, not after SQLite's busy wait.
    const db = new SQLite(file, { timeout: 0 });
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      if (sqliteCode(error) === 'SQLITE_BUSY') throw anotherNode(dataDir, error);
      // A pid file from an older svc-node (or any stray bytes): nobody can hold an SQLite lock on
      // it, so it is emptied in place (same inode, so a racing starter still meets our lock).
      if (sqliteCode(error) === 'SQLITE_NOTADB') {
        truncateSync(file, 0);
        continue;
      }
      throw error;
    }
    // A stopping node unlinks the file before it unlocks; a lock won on an unlinked (or replaced)
    // file guards nothing, so the path must still name the file that was locked.
    const after = inode(file);
    if (after !== null && (before === null || before === after)) {
      return () => {
        // Unlinked while still locked (see above).
        try {
          rmSync(file, { force: true });
        } catch {
          // Windows does not unlink an open file: it stays, empty, for the next start.
        }
        db.exec('ROLLBACK');
        db.close();
      };
    }
    db.exec('ROLLBACK');
    db.close();
  }
  throw new Error(`could not take the lock on ${dataDir}: ${LOCK_FILE} kept changing`);
}
