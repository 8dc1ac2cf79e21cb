/** The health check's one question to the database: does it answer. */
import type { Db } from '../../../context.ts';

export function databaseAnswers(db: Db): boolean {
  try {
    return db.prepare(`SELECT 1`).pluck().get() === 1;
  } catch {
    return false;
  }
}
