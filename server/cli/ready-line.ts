/**
 * The one line `svc-node serve` prints on stdout once it listens (a command contract: scripts,
 * tests and the two-commit benchmark wait for it): `svc-node ready {...}` with the node's info.
 */
import type { ReadyInfo } from '../node-file.ts';

export const READY_PREFIX = 'svc-node ready ';

export function readyLine(info: ReadyInfo): string {
  return `${READY_PREFIX}${JSON.stringify(info)}\n`;
}

/** The info of the ready line in `stdout` so far (whole lines only), or null while it has not been printed. */
export function readReadyLine(stdout: string): ReadyInfo | null {
  const whole = stdout.slice(0, stdout.lastIndexOf('\n') + 1);
  const line = whole.split('\n').find((l) => l.startsWith(READY_PREFIX));
  return line === undefined ? null : (JSON.parse(line.slice(READY_PREFIX.length)) as ReadyInfo);
}
