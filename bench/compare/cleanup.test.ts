import { describe, expect, it, vi } from 'vitest';
import { Cleanup } from './cleanup.ts';

describe('the cleanup of a comparison', () => {
  it('undoes the newest first, once, and goes on past a step that fails', async () => {
    const done: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const cleanup = new Cleanup();
      cleanup.add('the temp folder', () => void done.push('temp'));
      cleanup.add('the worktree', () => {
        throw new Error('locked');
      });
      cleanup.add('the node', async () => void done.push('node'));
      expect(cleanup.started).toBe(false);
      await Promise.all([cleanup.run(), cleanup.run()]);
      await cleanup.run();
      expect(cleanup.started).toBe(true);
      expect(done).toEqual(['node', 'temp']);
      expect(stderr).toHaveBeenCalledWith('bench:compare: cleaning up the worktree failed: locked\n');
    } finally {
      stderr.mockRestore();
    }
  });
});
