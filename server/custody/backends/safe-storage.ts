/**
 * Electron's safeStorage (desktop only). main/ passes the real module in, so this file never
 * imports 'electron'. The OS store safeStorage picked (gnome_libsecret, kwallet6, ...) is
 * recorded: a different store next time cannot decrypt, and basic_text is a hard-coded password.
 */
import { CustodyError } from '../custody-error.ts';
import type { CustodyBackend, CustodyState } from '../types.ts';

export interface SafeStorageLike {
  isAsyncEncryptionAvailable(): Promise<boolean>;
  encryptStringAsync(plainText: string): Promise<Buffer>;
  decryptStringAsync(encrypted: Buffer): Promise<{ result: string; shouldReEncrypt: boolean }>;
  /** Linux only in Electron. */
  getSelectedStorageBackend?(): string;
}

export interface SafeStorageOptions {
  dataDir: string;
  safeStorage: SafeStorageLike;
  /** The user's explicit consent to basic_text; remembered in custody.json once given. */
  allowPlaintextFallback?: boolean;
}

const PLAINTEXT = 'basic_text';

// getSelectedStorageBackend() names -> Chromium's --password-store values.
const PASSWORD_STORE_FLAG: Record<string, string> = {
  basic_text: 'basic',
  gnome_libsecret: 'gnome-libsecret',
  kwallet: 'kwallet',
  kwallet5: 'kwallet5',
  kwallet6: 'kwallet6',
};

export function safeStorageBackend({ dataDir, safeStorage, allowPlaintextFallback = false }: SafeStorageOptions): CustodyBackend {
  const osBackend = (): string | null => safeStorage.getSelectedStorageBackend?.() ?? null;

  const ensureAvailable = async () => {
    if (!(await safeStorage.isAsyncEncryptionAvailable())) {
      throw new CustodyError('safe_storage_unavailable', 'Electron safeStorage cannot encrypt on this system');
    }
  };

  const refusePlaintext = () =>
    new CustodyError(
      'plaintext_refused',
      'Electron safeStorage found no OS secret store (basic_text: a hard-coded password); ' +
        'unlock or install a keyring (gnome-keyring, KWallet), or explicitly allow the plaintext fallback',
    );

  return {
    name: 'safe-storage',

    async load(state: CustodyState) {
      if (typeof state.ciphertext !== 'string') {
        throw new CustodyError('state_invalid', `the safe-storage fields of ${dataDir}/custody.json are damaged`);
      }
      const recorded = state.os_backend ?? null;
      const current = osBackend();
      if (recorded !== current) {
        const flag = typeof recorded === 'string' ? PASSWORD_STORE_FLAG[recorded] : undefined;
        throw new CustodyError(
          'os_backend_mismatch',
          `the custody secret of ${dataDir} was encrypted with safeStorage's "${String(recorded)}" store, ` +
            `but this session uses "${String(current)}"` +
            (flag ? `; start the app with --password-store=${flag}` : ''),
        );
      }
      if (current === PLAINTEXT && state.plaintext_fallback !== true && !allowPlaintextFallback) throw refusePlaintext();
      await ensureAvailable();

      let decrypted: { result: string; shouldReEncrypt: boolean };
      try {
        decrypted = await safeStorage.decryptStringAsync(Buffer.from(state.ciphertext, 'base64'));
      } catch (error) {
        throw new CustodyError('safe_storage_unavailable', `Electron safeStorage could not decrypt the custody secret of ${dataDir}`, {
          cause: error,
        });
      }
      const secret = Buffer.from(decrypted.result, 'base64');
      if (secret.length !== 32) throw new CustodyError('state_invalid', `safeStorage returned no custody secret for ${dataDir}`);
      if (!decrypted.shouldReEncrypt) return { secret };
      // The OS key rotated: store a ciphertext under the new one.
      const ciphertext = await safeStorage.encryptStringAsync(decrypted.result);
      return { secret, restate: { ciphertext: ciphertext.toString('base64') } };
    },

    async store(secret) {
      await ensureAvailable();
      const current = osBackend();
      if (current === 'unknown') {
        throw new CustodyError('safe_storage_unavailable', 'Electron safeStorage has not selected a store yet (open custody after app ready)');
      }
      if (current === PLAINTEXT && !allowPlaintextFallback) throw refusePlaintext();
      const ciphertext = await safeStorage.encryptStringAsync(Buffer.from(secret).toString('base64'));
      return {
        os_backend: current,
        ciphertext: ciphertext.toString('base64'),
        plaintext_fallback: current === PLAINTEXT,
      };
    },
  };
}
