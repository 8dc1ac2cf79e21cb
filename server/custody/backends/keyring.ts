/**
 * The OS keyring through @napi-rs/keyring (Secret Service, Keychain, Credential Manager). The
 * master secret is one entry; its account name is random and recorded in custody.json.
 */
import { randomBytes } from 'node:crypto';
import { CustodyError } from '../custody-error.ts';
import type { CustodyBackend, CustodyState } from '../types.ts';

/** The slice of @napi-rs/keyring's Entry custody uses; tests pass an in-memory one. */
export interface KeyringLike {
  getPassword(): string | null;
  setPassword(password: string): void;
  deletePassword(): boolean;
}

export type KeyringFactory = (service: string, account: string) => KeyringLike | Promise<KeyringLike>;

export const KEYRING_SERVICE = 'svc-node';

/** Loaded lazily so nodes on other backends never load the native module. */
export const systemKeyring: KeyringFactory = async (service, account) => {
  const { Entry } = await import('@napi-rs/keyring');
  // Pinned to Secret Service on Linux: the fallback kernel keyring forgets everything at reboot.
  return new Entry(service, account, { linux: { store: 'secret-service' } });
};

export interface KeyringOptions {
  dataDir: string;
  keyring?: KeyringFactory;
}

export function keyringBackend({ dataDir, keyring = systemKeyring }: KeyringOptions): CustodyBackend {
  return {
    name: 'keyring',

    async load(state: CustodyState) {
      const { keyring_service: service, keyring_account: account } = state;
      if (typeof service !== 'string' || typeof account !== 'string') {
        throw new CustodyError('state_invalid', `the keyring fields of ${dataDir}/custody.json are damaged`);
      }
      const hint = 'unlock the OS keyring and start again';
      const entry = await attempt(`open the entry ${service}/${account}`, hint, () => keyring(service, account));
      const value = await attempt(`read the entry ${service}/${account}`, hint, () => entry.getPassword());
      if (value === null) {
        throw new CustodyError('secret_missing', `the OS keyring has no entry ${service}/${account}, which holds the custody secret of ${dataDir}`);
      }
      const secret = Buffer.from(value, 'base64');
      if (secret.length !== 32) {
        throw new CustodyError('state_invalid', `the keyring entry ${service}/${account} is not a custody secret`);
      }
      return { secret };
    },

    async store(secret) {
      const account = `master-${randomBytes(8).toString('hex')}`;
      const value = Buffer.from(secret).toString('base64');
      const hint =
        'a headless Linux machine needs a D-Bus session with an unlocked Secret Service; ' + 'otherwise choose --custody passphrase or --custody key-file';
      const entry = await attempt('create an entry', hint, () => keyring(KEYRING_SERVICE, account));
      await attempt('store the custody secret', hint, () => entry.setPassword(value));
      const readBack = await attempt('read the custody secret back', hint, () => entry.getPassword());
      if (readBack !== value) {
        throw new CustodyError('keyring_unavailable', `the OS keyring did not keep the custody secret; ${hint}`);
      }
      return { keyring_service: KEYRING_SERVICE, keyring_account: account };
    },
  };
}

async function attempt<T>(what: string, hint: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CustodyError('keyring_unavailable', `the OS keyring could not ${what} (${reason}); ${hint}`, {
      cause: error,
    });
  }
}
