/**
 * The SQL functions the linked devices' change triggers call (server/devices/sync/capture-store.ts),
 * defined on every connection the node opens so a trigger never meets a connection without them:
 * here as "capture nothing", which is what a connection that is not the running node's wants (a
 * restore, a join, a tool). The running node's sync defines them again on its own connection,
 * with its device id and clock.
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';

/** Whether a change made now is one of this device's own, to be captured (1) or not (0). */
export const CAPTURE_FUNCTION = 'svc_sync_capture';
/** This device's id. */
export const DEVICE_FUNCTION = 'svc_sync_device';
/** The next number among this device's changes. */
export const SEQ_FUNCTION = 'svc_sync_seq';
/** The next Lamport time. */
export const TICK_FUNCTION = 'svc_sync_tick';

export function defineSyncDefaults(db: SQLite.Database): void {
  db.function(CAPTURE_FUNCTION, { deterministic: false }, () => 0);
  db.function(DEVICE_FUNCTION, { deterministic: false }, () => '');
  db.function(SEQ_FUNCTION, { deterministic: false }, () => 0);
  db.function(TICK_FUNCTION, { deterministic: false }, () => 0);
}
