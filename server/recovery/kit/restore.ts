/**
 * `svc-node kit restore`: a new data dir made from a recovery kit alone. The kit is opened first,
 * so a wrong passphrase or a changed kit writes nothing; the data dir is built in a temporary
 * sibling and renamed into place only once it is whole, so a failure leaves nothing either
 * (../new-data-dir.ts).
 *
 * On it: custody with a NEW secret (the headless backend as `serve` would choose it), the
 * database (a fresh one, or the newest backup of the same node read with the kit's backup key,
 * `backup`) migrated, then the steps in one transaction: installKeys (every key under its original
 * key id, wrapped under the new secret; the kit's backup key adopted), installState (the kit's
 * rows, skipped when the database came from a backup), dropping the keys a backup names that the
 * kit does not hold (made after the kit: their material is gone with the lost node), and
 * recordRestoredKit (the kit this node now holds every key of).
 */
import { join, resolve } from 'node:path';
import { Custody } from '../../custody/custody.ts';
import { wipeKeyMaterial, type KeyMaterial } from '../../custody/key-material.ts';
import type { Warn } from '../../custody/types.ts';
import type { Database } from '../../store/database.ts';
import { buildDataDir, freeDataDir, RestoreRefused } from '../new-data-dir.ts';
import { listMigrations, migrationsDir } from '../../store/migrate.ts';
import { restoreDatabase } from '../backup/index.ts';
import { openKit, type KitHeader } from './format.ts';
import { RecoveryKitError } from './kit-error.ts';
import { decodePayload, type KitContents } from './payload.ts';
import { saveKitRecord } from './record-store.ts';
import { countIdentities, insertKitTables } from './state-store.ts';

export interface OpenedKit {
  header: KitHeader;
  contents: KitContents;
}

/** Opens a kit and reads what it holds; refuses one made by a newer svc-node. The caller wipes `contents.keys` (wipeKeyMaterial). */
export function openRecoveryKit(text: string, passphrase: string): OpenedKit {
  const { header, payload } = openKit(text, passphrase);
  let contents: KitContents;
  try {
    contents = decodePayload(payload);
  } finally {
    payload.fill(0);
  }
  const known = listMigrations(migrationsDir()).at(-1)?.version ?? 0;
  if (contents.nodeId !== header.node_id || contents.schemaVersion > known) {
    wipeKeyMaterial(contents.keys);
    if (contents.schemaVersion > known) {
      throw new RecoveryKitError(
        'unsupported',
        `the recovery kit was made by a newer svc-node (schema ${contents.schemaVersion}; this one knows ${known}): restore it with that version`,
      );
    }
    throw new RecoveryKitError('not_a_kit', 'the recovery kit is damaged: its header and what it holds name different nodes');
  }
  return { header, contents };
}

/** Every key of a kit (or a device's keys bundle) into custody under its original key id, and its backup key as this node's. */
export function installKeys(custody: Custody, keys: KeyMaterial): void {
  for (const key of keys.signing) custody.installSigningKey(key);
  for (const key of keys.encryption) custody.installEncryptionKey(key);
  custody.adoptBackupKey(keys.backupKey);
}

/** The kit's state rows into a fresh database (inside the caller's transaction). */
export function installState(db: Database, kit: OpenedKit): void {
  insertKitTables(db, kit.contents.tables);
}

/** Records the kit as this node's last one: it holds every key the node now has. */
export function recordRestoredKit(db: Database, custody: Custody, kit: OpenedKit): void {
  saveKitRecord(db, { kit_id: kit.header.kit_id, created_at: kit.header.created_at, keys_digest: custody.keyStatesDigest() });
}

export interface RestoreKitOptions {
  /** The kit file's text. */
  kit: string;
  passphrase: string;
  /** The new data dir: absent, or an empty folder. */
  dataDir: string;
  /**
   * A backup folder of the same node (`svc-node backup --to`): the database, with its history, is
   * read from its newest backup (or the one `id` names) with the kit's backup key, instead of made
   * from the kit's rows; its keys are replaced by the kit's, wrapped under the new secret.
   */
  backup?: { dir: string; id?: string };
  /** Where SVC_NODE_CUSTODY / SVC_NODE_PASSPHRASE are read (the backend `serve` would choose); process.env by default. */
  env?: Record<string, string | undefined>;
  warn?: Warn;
}

export interface RestoredNode {
  data_dir: string;
  node_id: string;
  identities: number;
  keys: number;
  /** With a backup: the backup the history came from, and the keys it named that the kit did not hold (made after it), now destroyed. */
  backup_id?: string;
  keys_lost?: number;
}

export async function restoreKit(options: RestoreKitOptions): Promise<RestoredNode> {
  const dataDir = freeDataDir(options.dataDir);
  // Nothing is written before the kit opens.
  const kit = openRecoveryKit(options.kit, options.passphrase);
  let backupId: string | undefined;
  let keysLost = 0;
  try {
    await buildDataDir({
      dataDir,
      env: options.env ?? process.env,
      warn: options.warn,
      prepare: async (temp, custody) => {
        if (options.backup !== undefined) backupId = await fromBackup(options.backup, temp, custody, kit);
      },
      install: (custody, db) => {
        installKeys(custody, kit.contents.keys);
        if (options.backup === undefined) installState(db, kit);
        else {
          keysLost = dropKeysNotIn(custody, kit.contents.keys);
          // The backup's database holds the lost device's own secret, wrapped under its custody secret: this node is a new device.
          custody.replaceDeviceSecret();
        }
        recordRestoredKit(db, custody, kit);
      },
    });
  } finally {
    wipeKeyMaterial(kit.contents.keys);
  }
  const restored = { data_dir: dataDir, node_id: kit.header.node_id, identities: countIdentities(kit.contents.tables), keys: heldKeys(kit.contents.keys) };
  return backupId === undefined ? restored : { ...restored, backup_id: backupId, keys_lost: keysLost };
}

/** How many keys `keys` holds the material of (destroyed ones are rows without it). */
export function heldKeys(keys: KeyMaterial): number {
  return keys.signing.filter((key) => key.destroyed_at === null).length + keys.encryption.filter((key) => key.destroyed_at === null).length;
}

/** The backup's database as `node.db` of `dataDir`, under the new custody secret's key; refused when it is another node's. */
async function fromBackup(backup: { dir: string; id?: string }, dataDir: string, custody: Custody, kit: OpenedKit): Promise<string> {
  const restored = await restoreDatabase({
    backupDir: resolve(backup.dir),
    backupKey: kit.contents.keys.backupKey,
    file: join(dataDir, 'node.db'),
    key: custody.databaseKey(),
    assetsDir: join(dataDir, 'assets'),
    ...(backup.id === undefined ? {} : { manifest: backup.id }),
  });
  if (restored.node_id !== kit.header.node_id) {
    throw new RestoreRefused(`the backup in ${backup.dir} is of node ${restored.node_id}, not of this kit's node ${kit.header.node_id}`);
  }
  return restored.backup_id;
}

/**
 * Keys the backup's database holds that the kit does not (made after the kit, on the lost node):
 * their material was wrapped under that node's secret and is gone with it, so they are marked
 * destroyed, as they are, and every later kit holds every key again. Returns how many.
 */
export function dropKeysNotIn(custody: Custody, keys: KeyMaterial): number {
  const inKit = new Set([...keys.signing, ...keys.encryption].map((key) => key.key_id));
  const held = custody.heldKeyIds();
  const signing = held.signing.filter((keyId) => !inKit.has(keyId));
  const encryption = held.encryption.filter((keyId) => !inKit.has(keyId));
  for (const keyId of signing) custody.destroyKey(keyId);
  for (const keyId of encryption) custody.destroyEncryptionKey(keyId);
  return signing.length + encryption.length;
}
