/**
 * DIR/master.key (mode 0600): the headless default. The secret is only as safe as the file's
 * permissions, so every open says so.
 */
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CustodyError } from '../custody-error.ts';
import { STATE_FILE, writeFileAtomic } from '../state-file.ts';
import type { CustodyBackend, Warn } from '../types.ts';

export const KEY_FILE = 'master.key';

export interface KeyFileOptions {
  dataDir: string;
  warn: Warn;
}

export function keyFileBackend({ dataDir, warn }: KeyFileOptions): CustodyBackend {
  const file = join(dataDir, KEY_FILE);
  const announce = () =>
    warn(
      `svc-node: custody secrets are protected only by the file permissions of ${file}; ` +
        'for a new data dir choose --custody passphrase (with SVC_NODE_PASSPHRASE) or --custody keyring',
    );

  return {
    name: 'key-file',

    async load() {
      announce();
      let secret: Buffer;
      try {
        secret = readFileSync(file);
      } catch (error) {
        throw new CustodyError('secret_missing', `${STATE_FILE} says the master secret is in ${file}, but it cannot be read; restore it from a backup`, {
          cause: error,
        });
      }
      if (secret.length !== 32) throw new CustodyError('state_invalid', `${file} is not a 32-byte master secret`);
      if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
        chmodSync(file, 0o600);
        warn(`svc-node: ${file} was readable by other users; its mode is now 0600`);
      }
      return { secret };
    },

    async store(secret) {
      if (existsSync(file)) {
        throw new CustodyError(
          'secret_exists',
          `${file} exists but ${join(dataDir, STATE_FILE)} does not; restore ${STATE_FILE}, ` +
            `or move ${KEY_FILE} away to start over (data encrypted under it will not open)`,
        );
      }
      writeFileAtomic(file, secret);
      announce();
      return { key_file: KEY_FILE };
    },
  };
}
