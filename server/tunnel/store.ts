/**
 * The tunnel's setting, one row of `node_settings` (key `tunnel`): JSON of the SSH account, the
 * custody key id of the tunnel key, and whether the tunnel should run. The only module that reads
 * or writes that key.
 */
import type { Db } from '../context.ts';
import type { SshTunnelConfig } from './ssh-tunnel.ts';

const SETTING = 'tunnel';

export interface TunnelSetting {
  config: SshTunnelConfig | null;
  key_id: string | null;
  enabled: boolean;
}

/** The stored setting; a node that never configured its tunnel has none, nor a key, and it is off. */
export function readTunnelSetting(db: Db): TunnelSetting {
  const value = db.prepare(`SELECT value FROM node_settings WHERE key = ?`).pluck().get(SETTING) as string | undefined;
  return value === undefined ? { config: null, key_id: null, enabled: false } : (JSON.parse(value) as TunnelSetting);
}

export function saveTunnelSetting(db: Db, setting: TunnelSetting): void {
  db.prepare(`INSERT INTO node_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(
    SETTING,
    JSON.stringify(setting),
  );
}
