/**
 * The record of a finished "Set up your node", one row of `node_settings` (key `setup`): JSON of
 * the identity, project and domain it made. The only module that reads or writes that key.
 */
import type { Db } from '../../../context.ts';

const SETTING = 'setup';

export interface SetupRecord {
  agent_id: string;
  project_id: string;
  domain: string;
}

export function findSetupRecord(db: Db): SetupRecord | undefined {
  const value = db.prepare(`SELECT value FROM node_settings WHERE key = ?`).pluck().get(SETTING) as string | undefined;
  return value === undefined ? undefined : (JSON.parse(value) as SetupRecord);
}

/** Setup happens once: a second record is refused by the table's key. */
export function insertSetupRecord(db: Db, record: SetupRecord): void {
  db.prepare(`INSERT INTO node_settings (key, value) VALUES (?, ?)`).run(SETTING, JSON.stringify(record));
}
