/**
 * Making a recovery kit inside the node: custody hands its keys to this process's sealer, the
 * state rows are read in the same transaction (so keys and rows agree), and everything is sealed
 * under the owner's passphrase at once; the material is wiped as soon as it is sealed.
 */
import { randomBytes } from 'node:crypto';
import type { Custody } from '../../custody/custody.ts';
import { wipeKeyMaterial } from '../../custody/key-material.ts';
import type { Database } from '../../store/database.ts';
import { sealKit } from './format.ts';
import { encodePayload, type KitContents } from './payload.ts';
import { saveKitRecord } from './record-store.ts';
import { schemaVersion } from '../../store/migrate.ts';
import { countIdentities, readKitTables } from './state-store.ts';

export interface MadeKit {
  /** The kit file's text. */
  kit: string;
  kit_id: string;
  node_id: string;
  created_at: string;
  /** Identities whose rows the kit holds. */
  identities: number;
  /** Keys whose material the kit holds (destroyed keys are recorded without any, and not counted). */
  keys: number;
}

export interface MakeKitOptions {
  nodeId: string;
  now: Date;
  /** log2 of scrypt's N (tests lower it); the kit's default otherwise. */
  scryptCost?: number;
}

export function makeKit(db: Database, custody: Custody, passphrase: string, options: MakeKitOptions): MadeKit {
  const kitId = `kit_${randomBytes(16).toString('hex')}`;
  const createdAt = options.now.toISOString();
  const { contents, keysDigest } = db.transaction(() => ({
    contents: { schemaVersion: schemaVersion(db), nodeId: options.nodeId, keys: custody.recoveryKeys(), tables: readKitTables(db) } satisfies KitContents,
    keysDigest: custody.keyStatesDigest(),
  }))();
  let payload: Buffer | null = null;
  try {
    payload = encodePayload(contents);
    const kit = sealKit(payload, passphrase, {
      kitId,
      nodeId: options.nodeId,
      createdAt,
      ...(options.scryptCost === undefined ? {} : { scryptCost: options.scryptCost }),
    });
    saveKitRecord(db, { kit_id: kitId, created_at: createdAt, keys_digest: keysDigest });
    const keys = contents.keys.signing.filter((key) => key.seed !== null).length + contents.keys.encryption.filter((key) => key.private_key !== null).length;
    return { kit, kit_id: kitId, node_id: options.nodeId, created_at: createdAt, identities: countIdentities(contents.tables), keys };
  } finally {
    payload?.fill(0);
    wipeKeyMaterial(contents.keys);
  }
}
