/**
 * DIR/custody.json: which backend protects the master secret, and its fields. Written
 * atomically (temp + rename) with mode 0600, so a crash leaves the old file or the new one.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CustodyError } from './custody-error.ts';
import { BACKEND_NAMES, type CustodyState } from './types.ts';

export const STATE_FILE = 'custody.json';

export function statePath(dataDir: string): string {
  return join(dataDir, STATE_FILE);
}

export function readState(dataDir: string): CustodyState | null {
  const file = statePath(dataDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CustodyError('state_invalid', `${file} is not valid JSON; restore it from a backup`);
  }
  // Any JSON value parses: one that is not an object has no version, like an object without one.
  const state = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Partial<CustodyState>;
  if (state.v !== 1) {
    throw new CustodyError('state_invalid', `${file} has version ${String(state.v)}, which this svc-node does not read`);
  }
  if (!BACKEND_NAMES.includes(state.backend as never)) {
    throw new CustodyError('state_invalid', `${file} names an unknown custody backend ${JSON.stringify(state.backend)}`);
  }
  return state as CustodyState;
}

export function writeState(dataDir: string, state: CustodyState): void {
  writeFileAtomic(statePath(dataDir), `${JSON.stringify(state, null, 2)}\n`);
}

export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dirname(file));
}

// Makes the rename itself durable; not every platform lets a directory be opened.
function syncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // best effort
  }
}
