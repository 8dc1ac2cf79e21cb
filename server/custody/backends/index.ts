/** Builds the backend a data dir asked for, from what the caller can provide. */
import { CustodyError } from '../custody-error.ts';
import type { BackendName, CustodyBackend, Warn } from '../types.ts';
import { keyFileBackend } from './key-file.ts';
import { type KeyringFactory, keyringBackend } from './keyring.ts';
import { passphraseBackend } from './passphrase.ts';
import { type SafeStorageLike, safeStorageBackend } from './safe-storage.ts';

export interface BackendDeps {
  dataDir: string;
  env: Record<string, string | undefined>;
  warn: Warn;
  keyring?: KeyringFactory;
  safeStorage?: SafeStorageLike;
  allowPlaintextFallback?: boolean;
  scryptCost?: number;
}

export function createBackend(name: BackendName, deps: BackendDeps): CustodyBackend {
  switch (name) {
    case 'key-file':
      return keyFileBackend(deps);
    case 'passphrase':
      return passphraseBackend(deps);
    case 'keyring':
      return keyringBackend(deps);
    case 'safe-storage':
      if (!deps.safeStorage) {
        throw new CustodyError('safe_storage_unavailable', 'the safe-storage backend exists only in the desktop app');
      }
      return safeStorageBackend({ ...deps, safeStorage: deps.safeStorage });
    default:
      throw new Error(`unknown custody backend ${JSON.stringify(name satisfies never)}`);
  }
}
