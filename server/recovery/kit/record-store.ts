/**
 * The record of the last recovery kit, one row of `node_settings` (key `recovery_kit`): JSON of
 * its id, when it was made, and the digest of the key states it holds (custody's
 * keyStatesDigest), so the app can remind the owner to make one again once keys change. The only
 * module that reads or writes that key.
 */
import type { Database } from '../../store/database.ts';

const SETTING = 'recovery_kit';

export interface KitRecord {
  kit_id: string;
  created_at: string;
  keys_digest: string;
}

export function readKitRecord(db: Database): KitRecord | null {
  const value = db.prepare(`SELECT value FROM node_settings WHERE key = ?`).pluck().get(SETTING) as string | undefined;
  return value === undefined ? null : (JSON.parse(value) as KitRecord);
}

export function saveKitRecord(db: Database, record: KitRecord): void {
  db.prepare(`INSERT INTO node_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(
    SETTING,
    JSON.stringify(record),
  );
}
