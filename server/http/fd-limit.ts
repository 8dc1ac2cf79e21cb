/**
 * The process's soft limit on open file descriptors (RLIMIT_NOFILE), which every socket, the
 * database and each outbound fetch draw from. Node has no API for it (it raises the soft limit to
 * the hard one at start, so the figure read here is that raised one): Linux shows it in
 * /proc/self/limits; other POSIX systems answer `ulimit -n` in a child shell, which inherits it.
 * Windows has no such per-process limit: null.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let cached: number | null | undefined;

/** The soft descriptor limit; Infinity when unlimited, null when it cannot be read. */
export function openFileLimit(): number | null {
  if (cached === undefined) cached = readLimit();
  return cached;
}

function readLimit(): number | null {
  try {
    if (process.platform === 'win32') return null;
    if (process.platform === 'linux') {
      const line = readFileSync('/proc/self/limits', 'utf8')
        .split('\n')
        .find((l) => l.startsWith('Max open files'));
      return parseLimit(line?.split(/\s{2,}/)[1]);
    }
    const shell = spawnSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2_000 });
    return parseLimit(shell.stdout);
  } catch {
    return null;
  }
}

/** `unlimited` or a positive count, as both sources print it. */
export function parseLimit(text: string | undefined): number | null {
  const value = text?.trim();
  if (value === 'unlimited') return Infinity;
  return value !== undefined && /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : null;
}
