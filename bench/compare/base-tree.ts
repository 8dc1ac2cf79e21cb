/**
 * The base commit as a tree of its own: a detached git worktree in a temp folder, sharing this
 * tree's node_modules (a symlink), so the base runs on exactly the dependencies the head runs on
 * and a comparison measures the code, not an install.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Cleanup } from './cleanup.ts';

/** A revision git cannot resolve to a commit in this repository. */
export class BaseRevisionError extends Error {
  override name = 'BaseRevisionError';
}

const git = (cwd: string, args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The full hash of `rev`'s commit. */
export function resolveCommit(root: string, rev: string): string {
  try {
    return git(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
  } catch {
    throw new BaseRevisionError(`--base ${rev}: not a commit of this repository`);
  }
}

/** The working tree being measured: its commit, and whether it carries changes not committed yet. */
export function describeHead(root: string): { commit: string; dirty: boolean } {
  return { commit: git(root, ['rev-parse', 'HEAD']), dirty: git(root, ['status', '--porcelain', '--untracked-files=no']) !== '' };
}

/**
 * Checks `commit` out at `dir` (which must not exist yet) with this tree's node_modules. The
 * cleanup step is added before git starts, so an interrupted checkout is removed too.
 */
export function addBaseTree(root: string, commit: string, dir: string, cleanup: Cleanup): void {
  cleanup.add(`the worktree ${dir}`, () => removeBaseTree(root, dir));
  git(root, ['worktree', 'add', '--detach', '--quiet', dir, commit]);
  symlinkSync(realpathSync(join(root, 'node_modules')), join(dir, 'node_modules'));
}

/** git's own removal, which also forgets the worktree; when that fails, the folder goes and git prunes its record. */
function removeBaseTree(root: string, dir: string): void {
  try {
    git(root, ['worktree', 'remove', '--force', dir]);
  } catch {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    git(root, ['worktree', 'prune']);
  }
}
