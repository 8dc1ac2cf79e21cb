/** The tunnel setting on a real encrypted database: off and unconfigured until saved, then as saved. */
import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '../../test/support/store-database.ts';
import { readTunnelSetting, saveTunnelSetting } from './store.ts';

const db = useStoreDatabase();

describe('the tunnel setting', () => {
  it('is off, without account or key, until saved; then it reads back as saved, the last save winning', () => {
    expect(readTunnelSetting(db())).toEqual({ config: null, key_id: null, enabled: false });
    saveTunnelSetting(db(), { config: null, key_id: 'key-1', enabled: false });
    const config = { host: 'ssh.example.com', username: 'node', remote_port: 8443 };
    saveTunnelSetting(db(), { config, key_id: 'key-1', enabled: true });
    expect(readTunnelSetting(db())).toEqual({ config, key_id: 'key-1', enabled: true });
  });
});
