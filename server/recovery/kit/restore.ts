/**
 * `svc-node kit restore`: a new data dir made from a recovery kit alone. The kit is opened first,
 * so a wrong passphrase or a changed kit writes nothing; the data dir is built in a temporary
 * sibling and renamed into place only once it is whole, so a failure leaves nothing either.
 *
 * On it: custody with a NEW secret (the headless backend as `serve` would choose it), the
 * database (a fresh one, or the newest backup of the same node read with the kit's backup key,
 * `backup`) migrated, then the steps in one transaction: installKeys (every key under its original
 * key id, wrapped under the new secret; the kit's backup key adopted), installState (the kit's
 * rows, skipped when the database came from a backup), dropping the keys a backup names that the
 * kit does not hold (made after the kit: their material is gone with the lost node), and
 * recordRestoredKit (the kit this node now holds every key of).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Custody } from '../../custody/custody.ts';
import { wipeKeyMaterial, type KeyMaterial } from '../../custody/key-material.ts';
import { chooseBackend } from '../../custody/select.ts';
import { STATE_FILE } from '../../custody/state-file.ts';
import type { Warn } from '../../custody/types.ts';
import { closeDatabase, openDatabase, type Database } from '../../store/database.ts';
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

/** Why `dataDir` cannot become a restored node, or null when it can (absent, or an empty folder). */
export function occupiedReason(dataDir: string): string | null {
  if (!existsSync(dataDir)) return null;
  let entries: string[];
  try {
    entries = readdirSync(dataDir);
  } catch {
    return `${dataDir} exists and is not a folder`;
  }
  if (entries.includes(STATE_FILE) || entries.includes('node.db')) return `${dataDir} already holds an svc-node; restore into a new folder`;
  if (entries.length > 0) return `${dataDir} is not empty; restore into a new folder`;
  return null;
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

export class RestoreRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefused';
  }
}

export async function restoreKit(options: RestoreKitOptions): Promise<RestoredNode> {
  const dataDir = resolve(options.dataDir);
  const occupied = occupiedReason(dataDir);
  if (occupied !== null) throw new RestoreRefused(occupied);
  const env = options.env ?? process.env;
  const backend = chooseBackend({ env });
  // Nothing is written before the kit opens.
  const kit = openRecoveryKit(options.kit, options.passphrase);
  let backupId: string | undefined;
  let keysLost = 0;
  const temp = join(dirname(dataDir), `.${basename(dataDir)}.restoring-${randomBytes(6).toString('hex')}`);
  let custody: Custody | null = null;
  let db: Database | null = null;
  try {
    mkdirSync(dirname(dataDir), { recursive: true, mode: 0o700 });
    custody = await Custody.open({ dataDir: temp, backend, env, ...(options.warn ? { warn: options.warn } : {}) });
    if (options.backup !== undefined) backupId = await fromBackup(options.backup, temp, custody, kit);
    db = openDatabase({ file: join(temp, 'node.db'), key: custody.databaseKey() });
    custody.attach(db);
    const opened = custody;
    const database = db;
    database.transaction(() => {
      installKeys(opened, kit.contents.keys);
      if (options.backup === undefined) installState(database, kit);
      else {
        keysLost = dropKeysNotIn(opened, kit.contents.keys);
        // The backup's database holds the lost device's own secret, wrapped under its custody secret: this node is a new device.
        opened.replaceDeviceSecret();
      }
      recordRestoredKit(database, opened, kit);
    })();
    closeDatabase(db);
    db = null;
    custody.close();
    custody = null;
    const late = occupiedReason(dataDir);
    if (late !== null) throw new RestoreRefused(late);
    if (existsSync(dataDir)) rmdirSync(dataDir);
    renameSync(temp, dataDir);
  } catch (error) {
    if (db !== null) closeDatabase(db);
    custody?.close();
    rmSync(temp, { recursive: true, force: true });
    throw error;
  } finally {
    wipeKeyMaterial(kit.contents.keys);
  }
  const keys =
    kit.contents.keys.signing.filter((key) => key.destroyed_at === null).length +
    kit.contents.keys.encryption.filter((key) => key.destroyed_at === null).length;
  const restored = { data_dir: dataDir, node_id: kit.header.node_id, identities: countIdentities(kit.contents.tables), keys };
  return backupId === undefined ? restored : { ...restored, backup_id: backupId, keys_lost: keysLost };
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
