import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OwnerSessions } from '../auth/owner-sessions.ts';
import { systemClock } from '../clock.ts';
import type { FederatedMessage } from '../../contract/core/federation.ts';
import { dueDomains, insertOutboxRow } from '../federation/outbox-store.ts';
import { TABLE_CLASSES } from '../recovery/kit/state-store.ts';
import { closeDatabase, openDatabase, type Database } from '../store/database.ts';
import { readBackupSchedule, readLastBackup, saveBackupSchedule, saveLastBackup } from '../surfaces/node/database-backups/store.ts';
import { readTunnelSetting, saveTunnelSetting } from '../tunnel/store.ts';
import { DEVICE_TABLES, leaveOutOtherDevicesState } from './device-copy-store.ts';

let dir: string;
let db: Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-device-copy-'));
  db = openDatabase({ file: join(dir, 'node.db'), key: randomBytes(32) });
});

afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

const message = (id: string) => ({ message_id: id, kind: 'mail', to: 'b.test/bob' }) as unknown as FederatedMessage;

describe("what a joined device leaves out of the other device's database", () => {
  it("is that device's deliveries, sessions and settings; its sends stay, as the sender's copy", () => {
    const now = new Date().toISOString();
    // The outbox's rows name an identity; this test has none, so the reference is not checked here.
    db.pragma('foreign_keys = OFF');
    insertOutboxRow(db, 'agent-1', 'b.test', message('queued-1'), now);
    insertOutboxRow(db, 'agent-1', 'b.test', message('delivered-1'), now);
    // The queued one was due on the linking device.
    expect(dueDomains(db, '9999-01-01T00:00:00.000Z')).toEqual(['b.test']);
    db.prepare(`UPDATE federation_outbox SET status = 'delivered' WHERE message_id = 'delivered-1'`).run();
    db.pragma('foreign_keys = ON');
    saveTunnelSetting(db, { config: null, key_id: 'k', enabled: true });
    saveBackupSchedule(db, { to: '/media/usb', every_hours: 24 });
    saveLastBackup(db, { at: now, to: '/media/usb' });
    new OwnerSessions(db, systemClock, () => {}).create('a browser');

    db.transaction(() => leaveOutOtherDevicesState(db, 'dev_linker'))();

    // Kept as the sender's copy, and delivered by the device that sent them, not this one.
    expect(db.prepare('SELECT message_id, sent_by_device FROM federation_outbox ORDER BY message_id').all()).toEqual([
      { message_id: 'delivered-1', sent_by_device: 'dev_linker' },
      { message_id: 'queued-1', sent_by_device: 'dev_linker' },
    ]);
    expect(dueDomains(db, '9999-01-01T00:00:00.000Z')).toEqual([]);
    expect(readTunnelSetting(db)).toEqual({ config: null, key_id: null, enabled: false });
    expect(readBackupSchedule(db)).toBeNull();
    expect(readLastBackup(db)).toBeNull();
    expect(db.prepare('SELECT count(*) FROM owner_sessions').pluck().get()).toBe(0);
  });

  it('empties only tables that are each copy’s own', () => {
    for (const table of DEVICE_TABLES) expect(TABLE_CLASSES[table], table).toBe('local');
  });
});
