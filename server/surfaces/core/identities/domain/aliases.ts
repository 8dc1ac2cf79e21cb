/**
 * Aliases handed out when an identity does not ask for one: classic names first, then numbered
 * ones, always unique among the project's live identities (`taken` answers that).
 */
import { conflict } from '../../../../errors.ts';

const CLASSIC = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'mallory',
  'niaj',
  'olivia',
  'peggy',
  'rupert',
  'sybil',
  'trent',
  'victor',
  'walter',
  'zoe',
];

/** The first free alias of `alice … zoe`, then `alice-02 …`. */
export function allocateAlias(taken: (alias: string) => boolean): string {
  for (const name of CLASSIC) if (!taken(name)) return name;
  for (let n = 2; n < 100; n++) {
    for (const name of CLASSIC) {
      const candidate = `${name}-${String(n).padStart(2, '0')}`;
      if (!taken(candidate)) return candidate;
    }
  }
  throw conflict('SVC_ERR_ALIAS_EXHAUSTED', 'No free alias left in this project');
}

/** `base-2`, `base-3` … (at most 64 characters): the alias of a replacement identity. */
export function successorAlias(base: string, taken: (alias: string) => boolean): string {
  for (let n = 2; n < 1000; n++) {
    const candidate = `${base}-${n}`.slice(0, 64);
    if (!taken(candidate)) return candidate;
  }
  throw conflict('SVC_ERR_ALIAS_EXHAUSTED', 'No free alias left in this project');
}
