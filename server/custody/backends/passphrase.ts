/**
 * A passphrase from SVC_NODE_PASSPHRASE: scrypt (random salt, cost recorded) derives a key that
 * wraps the master secret with AES-256-GCM. Nothing on disk opens without the passphrase.
 */
import { randomBytes } from 'node:crypto';
import { isAcceptableScrypt, open, scryptKey, scryptParams, seal } from '../aead.ts';
import { CustodyError } from '../custody-error.ts';
import type { CustodyBackend, CustodyState } from '../types.ts';

export const PASSPHRASE_ENV = 'SVC_NODE_PASSPHRASE';
const AAD = Buffer.from('svc-node master secret v1');

export interface PassphraseOptions {
  dataDir: string;
  env: Record<string, string | undefined>;
  /** log2 of scrypt's N for a new secret; an existing one keeps its recorded cost. */
  scryptCost?: number;
}

export function passphraseBackend({ dataDir, env, scryptCost }: PassphraseOptions): CustodyBackend {
  const passphrase = (): string => {
    const value = env[PASSPHRASE_ENV];
    if (!value) {
      throw new CustodyError('passphrase_missing', `${PASSPHRASE_ENV} is not set; the passphrase custody backend of ${dataDir} needs it`);
    }
    return value;
  };

  return {
    name: 'passphrase',

    async load(state: CustodyState) {
      const params = { N: state.N, r: state.r, p: state.p };
      if (state.kdf !== 'scrypt' || !isAcceptableScrypt(params) || typeof state.salt !== 'string' || typeof state.wrapped !== 'string') {
        throw new CustodyError('state_invalid', `the passphrase fields of ${dataDir}/custody.json are damaged`);
      }
      const key = scryptKey(passphrase(), Buffer.from(state.salt, 'base64'), params);
      const secret = open(key, Buffer.from(state.wrapped, 'base64'), AAD);
      if (secret === null) {
        throw new CustodyError('wrong_passphrase', `${PASSPHRASE_ENV} does not unlock the custody secret of ${dataDir}`);
      }
      return { secret };
    },

    async store(secret) {
      const params = scryptParams(scryptCost);
      const salt = randomBytes(16);
      const wrapped = seal(scryptKey(passphrase(), salt, params), secret, AAD);
      return { kdf: 'scrypt', ...params, salt: salt.toString('base64'), wrapped: wrapped.toString('base64') };
    },
  };
}
