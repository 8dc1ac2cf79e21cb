/**
 * The default data dir is the OS app-data folder Electron would use for an app named svc-node,
 * so the desktop app and `svc-node serve` find the same node.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultDataDir(env: Record<string, string | undefined> = process.env, platform = process.platform): string {
  if (env.SVC_NODE_DATA) return env.SVC_NODE_DATA;
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'svc-node');
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'svc-node');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'svc-node');
}
