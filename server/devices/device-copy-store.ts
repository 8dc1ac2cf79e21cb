/**
 * What a joined device leaves out of the copy of the linking device's database it starts from:
 * what belongs to the device that made it, not to the identities both devices hold.
 *
 * - The delivery of what the linking device sent to other nodes: its outbox rows stay (they are
 *   the sender's copy of what went there), marked as sent by that device, which alone delivers a
 *   message it queued (its later delivery reaches this copy through the sync).
 * - Browser sessions and the day-long identity keys they hold (the kit leaves them out too), the
 *   replay cache, and the link codes.
 * - This computer's settings among `node_settings`: the tunnel (one SSH account and port serve one
 *   machine), and the backup schedule and its last run (a folder path on another computer; two
 *   devices pruning one folder could delete each other's chunks mid-backup).
 *
 * Each table's own module owns its rows; this is the one place that empties them, and
 * device-copy-store.test.ts holds the list to the tables and settings keys the node has.
 */
import type { Database } from '../store/database.ts';

/** The `node_settings` keys that belong to one computer. */
export const DEVICE_SETTINGS = ['tunnel', 'backup_schedule', 'backup_last'] as const;

/** The tables emptied in a joined device's copy, children before their parents. */
export const DEVICE_TABLES = ['owner_session_keys', 'owner_sessions', 'replay_signatures', 'device_link_codes'] as const;

/** Empties what the joined device does not take over (inside the caller's transaction). */
export function leaveOutOtherDevicesState(db: Database, linkerDeviceId: string): void {
  if (!db.inTransaction) throw new Error('leaveOutOtherDevicesState runs inside the join transaction');
  const sessionKeys = db.prepare('SELECT api_key_id FROM owner_session_keys').pluck().all() as string[];
  db.prepare('UPDATE federation_outbox SET sent_by_device = ? WHERE sent_by_device IS NULL').run(linkerDeviceId);
  for (const table of DEVICE_TABLES) db.prepare(`DELETE FROM "${table}"`).run();
  const dropKey = db.prepare('DELETE FROM api_keys WHERE api_key_id = ?');
  for (const id of sessionKeys) dropKey.run(id);
  const dropSetting = db.prepare('DELETE FROM node_settings WHERE key = ?');
  for (const key of DEVICE_SETTINGS) dropSetting.run(key);
}

/** How many identities the copy holds (what a join reports). */
export function identityCount(db: Database): number {
  return db.prepare('SELECT count(*) FROM agents').pluck().get() as number;
}
