/**
 * The owner's recovery kit: making one inside the node (the passphrase comes over the owner API,
 * the keys never leave this process unsealed) and whether the last one still holds every key, for
 * the app's reminder.
 */
import type { NodeContext } from '../../context.ts';
import { conflict } from '../../errors.ts';
import { nodeIdOf } from '../../node-id-store.ts';
import { makeKit, type MadeKit } from './make.ts';
import { KIT_MAX_BYTES } from './format.ts';
import { RecoveryKitError } from './kit-error.ts';
import { readKitRecord } from './record-store.ts';
import type { RecoveryKitStatus } from '../../../contract/node/recovery-kit.ts';

export interface RecoveryKitOptions {
  /** log2 of scrypt's N for new kits (tests lower it). */
  scryptCost?: number;
}

export class RecoveryKits {
  readonly #ctx: Pick<NodeContext, 'db' | 'custody' | 'clock'>;
  readonly #options: RecoveryKitOptions;

  constructor(ctx: Pick<NodeContext, 'db' | 'custody' | 'clock'>, options: RecoveryKitOptions = {}) {
    this.#ctx = ctx;
    this.#options = options;
  }

  create(passphrase: string): MadeKit {
    const { db, custody, clock } = this.#ctx;
    try {
      return makeKit(db, custody, passphrase, { nodeId: nodeIdOf(db), now: clock.now(), ...this.#options });
    } catch (error) {
      if (error instanceof RecoveryKitError && error.code === 'too_large') {
        throw conflict('SVC_ERR_RECOVERY_KIT_TOO_LARGE', `the node holds more than a recovery kit carries (${KIT_MAX_BYTES} bytes)`);
      }
      throw error;
    }
  }

  /** When the last kit was made, and whether a key was made, rotated out or destroyed since (always, while no kit was ever made). */
  status(): RecoveryKitStatus {
    const { db, custody } = this.#ctx;
    const record = readKitRecord(db);
    return { last_created_at: record?.created_at ?? null, keys_changed_since: record === null || record.keys_digest !== custody.keyStatesDigest() };
  }
}
