/**
 * One node per data dir: SQLite has one writer, and two nodes would hand out conflicting
 * owner tokens. A lock file holds the pid; a lock left by a dead process is taken over.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLockPid(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) ? pid : null;
  } catch {
    return null;
  }
}

export function acquireNodeLock(dataDir: string): () => void {
  const file = join(dataDir, 'node.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      // Only our own lock is removed: a successor may already hold the file.
      return () => {
        if (readLockPid(file) === process.pid) rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = readLockPid(file);
      if (pid !== null && pid !== process.pid && alive(pid)) {
        throw new Error(`another svc-node (pid ${pid}) is running on ${dataDir}`, { cause: error });
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take the lock on ${dataDir}`);
}
