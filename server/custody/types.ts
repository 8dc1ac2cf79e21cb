/**
 * The backend contract: a backend protects one random 32-byte master secret per data dir and
 * describes how in backend-specific fields of custody.json. Everything else custody holds is
 * derived from or wrapped under that secret.
 */
export type BackendName = 'safe-storage' | 'keyring' | 'passphrase' | 'key-file';

export const BACKEND_NAMES: readonly BackendName[] = ['safe-storage', 'keyring', 'passphrase', 'key-file'];

export type BackendFields = Record<string, string | number | boolean | null>;

/** DIR/custody.json. */
export type CustodyState = BackendFields & {
  v: 1;
  backend: BackendName;
  created_at: string;
};

export interface LoadedSecret {
  secret: Buffer;
  /** New backend fields to persist (e.g. safeStorage asked for re-encryption). */
  restate?: BackendFields;
}

export interface CustodyBackend {
  readonly name: BackendName;
  /** Recovers the master secret described by `state`; throws a CustodyError when it cannot. */
  load(state: CustodyState): Promise<LoadedSecret>;
  /** Protects a fresh master secret; never overwrites one that exists. */
  store(secret: Uint8Array): Promise<BackendFields>;
}

export type Warn = (message: string) => void;
