/**
 * The node's id, one row of `node_settings` (key `node_id`): made on the first start and kept for
 * good, since the node's own `.local` namespace is named after it. The only module that reads or
 * writes that key.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from './context.ts';

/** The stored id, made and stored first when the node has none. */
export function nodeIdOf(db: Db): string {
  const stored = db.prepare(`SELECT value FROM node_settings WHERE key = 'node_id'`).pluck().get() as string | undefined;
  if (stored !== undefined) return stored;
  const id = randomUUID();
  db.prepare(`INSERT INTO node_settings (key, value) VALUES ('node_id', ?)`).run(id);
  return id;
}
