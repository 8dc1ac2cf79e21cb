/**
 * Aliases handed out when an ephemeral identity does not ask for one: classic names first,
 * then numbered ones, always unique among the project's live identities.
 */
import type { Db } from '../../../context.ts';
import { conflict } from '../../../errors.ts';

const CLASSIC = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj', 'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'zoe'];

export function aliasTaken(db: Db, projectId: string, alias: string): boolean {
  return db.prepare(`SELECT 1 FROM agents WHERE project_id = ? AND alias = ? AND status <> 'deleted'`).get(projectId, alias) !== undefined;
}

/** The first free alias of `alice … zoe`, then `alice-02 …`. */
export function allocateAlias(db: Db, projectId: string): string {
  for (const name of CLASSIC) if (!aliasTaken(db, projectId, name)) return name;
  for (let n = 2; n < 100; n++) {
    for (const name of CLASSIC) {
      const candidate = `${name}-${String(n).padStart(2, '0')}`;
      if (!aliasTaken(db, projectId, candidate)) return candidate;
    }
  }
  throw conflict('No free alias left in this project');
}

/** `base`, or `base-2`, `base-3` … : the alias of a replacement identity. */
export function successorAlias(db: Db, projectId: string, base: string): string {
  for (let n = 2; n < 1000; n++) {
    const candidate = `${base}-${n}`.slice(0, 64);
    if (!aliasTaken(db, projectId, candidate)) return candidate;
  }
  throw conflict('No free alias left in this project');
}
