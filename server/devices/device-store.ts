/**
 * The `devices` table (migration 0050-devices.sql): the person's devices that hold this node's
 * identities, this one among them. The only module that reads or writes it.
 */
import type { Database } from '../store/database.ts';

export interface DeviceRow {
  device_id: string;
  name: string;
  /** The device's signing key, as a did:key. */
  sign_key: string;
  /** The device's raw X25519 public key. */
  box_key: Buffer;
  url: string | null;
  linked_at: string;
  last_seen_at: string | null;
  revoked_at: string | null;
}

export class DeviceStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  all(): DeviceRow[] {
    return this.#db.prepare('SELECT * FROM devices ORDER BY linked_at, device_id').all() as DeviceRow[];
  }

  get(deviceId: string): DeviceRow | undefined {
    return this.#db.prepare('SELECT * FROM devices WHERE device_id = ?').get(deviceId) as DeviceRow | undefined;
  }

  bySignKey(signKey: string): DeviceRow | undefined {
    return this.#db.prepare('SELECT * FROM devices WHERE sign_key = ?').get(signKey) as DeviceRow | undefined;
  }

  insert(row: DeviceRow): void {
    this.#db
      .prepare(
        'INSERT INTO devices (device_id, name, sign_key, box_key, url, linked_at, last_seen_at, revoked_at) ' +
          'VALUES (@device_id, @name, @sign_key, @box_key, @url, @linked_at, @last_seen_at, @revoked_at)',
      )
      .run(row);
  }

  /** Takes a device off the list: only one whose join failed before it held anything. */
  remove(deviceId: string): void {
    this.#db.prepare('DELETE FROM devices WHERE device_id = ?').run(deviceId);
  }

  /** Marks a device revoked at `at`; false when it was already (or does not exist). */
  revoke(deviceId: string, at: string): boolean {
    return this.#db.prepare('UPDATE devices SET revoked_at = ? WHERE device_id = ? AND revoked_at IS NULL').run(at, deviceId).changes === 1;
  }

  /** When a device was last heard from; written at most once a minute per device, so requests do not each write. */
  seen(deviceId: string, at: string): void {
    this.#db
      .prepare(
        `UPDATE devices SET last_seen_at = ? WHERE device_id = ? AND (last_seen_at IS NULL OR last_seen_at < strftime('%Y-%m-%dT%H:%M:%fZ', ?, '-60 seconds'))`,
      )
      .run(at, deviceId, at);
  }

  /** Where a device answers (the URL a device joined it at). */
  setUrl(deviceId: string, url: string): void {
    this.#db.prepare('UPDATE devices SET url = ? WHERE device_id = ?').run(url, deviceId);
  }
}
