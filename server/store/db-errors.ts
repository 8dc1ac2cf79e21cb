/**
 * A write that breaks a table constraint is the client's conflict, never a 500: the services that
 * insert rows with unique keys run their statements through here.
 */
import type { ErrorCodeWithStatus } from '../../contract/errors.ts';
import { conflict } from '../errors.ts';

/** True for SQLite's constraint failures (UNIQUE, PRIMARY KEY, CHECK, FOREIGN KEY, NOT NULL). */
export function isConstraintError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}

/** Runs `write`; a constraint failure becomes a 409 with `code` and `detail`. */
export function conflictOnConstraint<T>(code: ErrorCodeWithStatus<409>, detail: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (isConstraintError(error)) throw conflict(code, detail);
    throw error;
  }
}
