/**
 * What a user sees of a command, asserted the same way by every CLI test.
 */
import { expect } from 'vitest';
import { lines, type CliResult } from './cli.ts';

/** The JSON a `--json` command printed as its only stdout line. */
export function jsonOutput(result: CliResult): any {
  expect(result.code, result.stderr).toBe(0);
  const out = lines(result.stdout);
  expect(out).toHaveLength(1);
  return JSON.parse(out[0] as string);
}

/** A failed command: non-zero exit, nothing on stdout, exactly one line on stderr. */
export function expectOneLineFailure(result: CliResult, message: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.code).not.toBeNull();
  expect(result.stdout).toBe('');
  const err = lines(result.stderr);
  expect(err, result.stderr).toHaveLength(1);
  expect(err[0]).toMatch(message);
}
