/**
 * Custody: the only holder of private keys (DESIGN §6). It keeps the data dir's master secret
 * (protected by one backend), derives the database key from it, and keeps signing seeds wrapped
 * in the database, and X25519 encryption keys wrapped the same way. Keys sign and agree here; no
 * method returns a seed or a private key object, with two exceptions inside this same process. The
 * one loan: `sealBeside` hands a signing key to the seal worker thread for the one seal it signs
 * (seal-pool.ts), so an end-to-end encrypted send's signatures are made off the thread that serves
 * every request. And the recovery kit: `recoveryKeys` hands every key to the kit's sealer, which
 * seals them under the owner's passphrase at once (server/recovery/kit/), and `installSigningKey` /
 * `installEncryptionKey` take them back in on the restored node, wrapped under its own secret.
 */
import { mkdirSync } from 'node:fs';
import { randomBytes, type KeyObject } from 'node:crypto';
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from '../crypto/ed25519.ts';
import type { E2eeEnvelope } from '../crypto/e2ee/envelope.ts';
import { sealPool } from '../crypto/e2ee/seal-pool.ts';
import type { SealRequest } from '../crypto/e2ee/seal-envelope.ts';
import { agreementFromPrivateKey, generateX25519KeyPair, x25519PublicKey, type X25519Agreement } from '../crypto/e2ee/x25519.ts';
import { conflict, notFound } from '../errors.ts';
import type { Database } from '../store/database.ts';
import { deriveKey, open, seal } from './aead.ts';
import { createBackend } from './backends/index.ts';
import type { KeyringFactory } from './backends/keyring.ts';
import type { SafeStorageLike } from './backends/safe-storage.ts';
import { DeviceKeys, newDeviceSecret } from './device-key.ts';
import { didKeyOfSeed, openEncryptionKeysBackup, openKeyBackup, sealEncryptionKeysBackup, sealKeyBackup } from './backup.ts';
import { CustodyError } from './custody-error.ts';
import { type EncryptionKeyRow, EncryptionKeyTable } from './encryption-key-store.ts';
import { type EncryptionKeyMaterial, type KeyMaterial, type KeyState, keyStatesDigest, type SigningKeyMaterial, wipeKeyMaterial } from './key-material.ts';
import { type KeyPurpose, type KeyRow, KeyTable } from './key-store.ts';
import { type SecretName, type SecretRow, SecretTable } from './secret-store.ts';
import { openMasterSecret } from './master.ts';
import type { BackendName, Warn } from './types.ts';

export type { KeyPurpose } from './key-store.ts';
export type { EncryptionKeyMaterial, KeyMaterial, SigningKeyMaterial } from './key-material.ts';

export interface CustodyOptions {
  dataDir: string;
  backend: BackendName;
  /** Where SVC_NODE_PASSPHRASE is read; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Replaces @napi-rs/keyring (tests). */
  keyring?: KeyringFactory;
  /** Electron's safeStorage, passed in by main/. */
  safeStorage?: SafeStorageLike;
  allowPlaintextFallback?: boolean;
  /** Receives one-line warnings (the key-file announcement); defaults to console.warn. */
  warn?: Warn;
  /** log2 of scrypt's N for new passphrase wraps and backups (default 15). */
  scryptCost?: number;
}

export interface SigningKey {
  keyId: string;
  didKey: string;
  publicKey: Buffer;
}

const DATABASE_KEY_INFO = 'svc-node database key v1';
const KEY_WRAP_INFO = 'svc-node key wrap v1';
// Its own wrap key from the same master secret: a wrapped X25519 key can never be unwrapped as a
// signing seed (or the other way round) even if a row were copied between the tables.
const ENCRYPTION_KEY_WRAP_INFO = 'svc-node encryption key wrap v1';
// And its own for the other secrets (the backup key), for the same reason.
const SECRET_WRAP_INFO = 'svc-node secret wrap v1';

export interface EncryptionKey {
  keyId: string;
  /** The raw 32-byte X25519 public key. */
  publicKey: Buffer;
}

export class Custody {
  readonly dataDir: string;
  readonly backend: BackendName;
  readonly #master: Buffer;
  readonly #wrapKey: Buffer;
  readonly #encryptionWrapKey: Buffer;
  readonly #secretWrapKey: Buffer;
  readonly #scryptCost: number | undefined;
  readonly #keys = new Map<string, KeyObject>();
  readonly #agreements = new Map<string, X25519Agreement>();
  /** Each key's did:key, which never changes for its id (a destroyed key keeps it): every seal asks. */
  readonly #didKeys = new Map<string, string>();
  #device: DeviceKeys | null = null;
  #table: KeyTable | null = null;
  #encryptionTable: EncryptionKeyTable | null = null;
  #secretTable: SecretTable | null = null;
  #closed = false;

  private constructor(dataDir: string, backend: BackendName, master: Buffer, scryptCost: number | undefined) {
    this.dataDir = dataDir;
    this.backend = backend;
    this.#master = master;
    this.#wrapKey = deriveKey(master, KEY_WRAP_INFO);
    this.#encryptionWrapKey = deriveKey(master, ENCRYPTION_KEY_WRAP_INFO);
    this.#secretWrapKey = deriveKey(master, SECRET_WRAP_INFO);
    this.#scryptCost = scryptCost;
  }

  static async open(options: CustodyOptions): Promise<Custody> {
    const { dataDir, backend: name, env = process.env, warn = (m: string) => console.warn(m) } = options;
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const backend = createBackend(name, { ...options, env, warn });
    const master = await openMasterSecret(dataDir, backend);
    return new Custody(dataDir, name, master, options.scryptCost);
  }

  /** The SQLCipher key: the one derived secret that leaves custody, because SQLite needs it. */
  databaseKey(): Buffer {
    this.#assertOpen();
    return deriveKey(this.#master, DATABASE_KEY_INFO);
  }

  /** Binds the signing-key store to the database opened with databaseKey(). */
  attach(db: Database): void {
    this.#assertOpen();
    this.#table = new KeyTable(db);
    this.#encryptionTable = new EncryptionKeyTable(db);
    this.#secretTable = new SecretTable(db);
    this.#keys.clear();
    this.#agreements.clear();
    this.#didKeys.clear();
    this.#device = null;
  }

  createSigningKey(purpose: KeyPurpose): SigningKey {
    const seed = randomBytes(32);
    try {
      return this.#insert(seed, purpose);
    } finally {
      seed.fill(0);
    }
  }

  sign(keyId: string, message: Uint8Array): Buffer {
    return signBytes(this.#privateKey(keyId), message);
  }

  /**
   * `request` sealed and signed with `keyId` in the seal worker, and `alsoSign` signed there with
   * the same key (the plaintext signature a send makes beside its envelope); null when the worker
   * did not (the caller seals and signs on its own thread). Throws as `sign` does for a key that
   * cannot sign.
   */
  async sealBeside(keyId: string, request: SealRequest, alsoSign: Buffer): Promise<{ envelope: E2eeEnvelope; alsoSignature: Buffer } | null> {
    const did = this.didKey(keyId);
    if (did !== request.sender.did.trim()) throw new Error('the signing key does not belong to the sender did');
    const made = await sealPool.seal(request, { key: this.#privateKey(keyId), did, alsoSign });
    return made?.alsoSignature === undefined ? null : { envelope: made.envelope, alsoSignature: made.alsoSignature };
  }

  /** Works for destroyed keys too: a public key stays meaningful in history. */
  didKey(keyId: string): string {
    let didKey = this.#didKeys.get(keyId);
    if (didKey === undefined) {
      didKey = this.#row(keyId).did_key;
      this.#didKeys.set(keyId, didKey);
    }
    return didKey;
  }

  publicKey(keyId: string): Buffer {
    return Buffer.from(publicKeyFromDidKey(this.didKey(keyId))!);
  }

  /** `hasKey`, answered from memory for a key that signed since it was last checked: the check a send makes before it takes a signature made a moment before. */
  canSign(keyId: string): boolean {
    return this.#keys.has(keyId) || this.hasKey(keyId);
  }

  /** True while the key can sign. */
  hasKey(keyId: string): boolean {
    const row = this.#tableOrThrow().get(keyId);
    return row !== undefined && row.destroyed_at === null;
  }

  /** Wipes the wrapped seed; the row stays so the key id still explains itself. Idempotent. */
  destroyKey(keyId: string): void {
    this.#row(keyId);
    this.#keys.delete(keyId);
    this.#tableOrThrow().destroy(keyId, new Date().toISOString());
  }

  /** A passphrase-sealed backup of one key (backup.ts), for the user to keep elsewhere. */
  exportKey(keyId: string, passphrase: string): string {
    const seed = this.#unwrap(this.#liveRow(keyId));
    try {
      return sealKeyBackup(seed, passphrase, this.#scryptCost);
    } finally {
      seed.fill(0);
    }
  }

  /** Takes a key back from a backup; a key already held (alive) keeps its key id. */
  importKey(blob: string, passphrase: string, purpose: KeyPurpose): string {
    const { seed, didKey } = openKeyBackup(blob, passphrase);
    try {
      return this.#tableOrThrow().findLive(didKey)?.key_id ?? this.#insert(seed, purpose).keyId;
    } finally {
      seed.fill(0);
    }
  }

  /** A fresh X25519 encryption key (end-to-end encryption); only its public half leaves custody. */
  createEncryptionKey(): EncryptionKey {
    const { privateKey } = generateX25519KeyPair();
    try {
      return this.importEncryptionKey(privateKey);
    } finally {
      privateKey.fill(0);
    }
  }

  /** Takes in a raw X25519 private key (a restored backup); the caller wipes its copy. */
  importEncryptionKey(privateKey: Uint8Array): EncryptionKey {
    const publicKey = x25519PublicKey(privateKey);
    const keyId = `ekey_${randomBytes(16).toString('hex')}`;
    this.#encryptionTableOrThrow().insert({
      key_id: keyId,
      public_key: publicKey,
      wrapped_private: seal(this.#encryptionWrapKey, privateKey, Buffer.from(keyId)),
      backend: this.backend,
      created_at: new Date().toISOString(),
    });
    return { keyId, publicKey };
  }

  /** Works for archived and destroyed keys too: a public key stays meaningful in history. */
  encryptionPublicKey(keyId: string): Buffer {
    return Buffer.from(this.#encryptionRow(keyId).public_key);
  }

  /**
   * The key's Diffie-Hellman, as the crypto core's X25519Agreement, so HPKE can open a key wrap
   * while the private key stays here. Archived keys agree too: old messages stay readable.
   */
  encryptionAgreement(keyId: string): X25519Agreement {
    const cached = this.#agreements.get(keyId);
    if (cached) return cached;
    const row = this.#encryptionRow(keyId);
    if (row.destroyed_at !== null) {
      throw conflict('SVC_ERR_ENCRYPTION_KEY_DESTROYED', `encryption key ${keyId} was destroyed at ${row.destroyed_at}`);
    }
    const privateKey = this.#unwrapEncryptionKey(row);
    try {
      const agreement = agreementFromPrivateKey(privateKey);
      this.#agreements.set(keyId, agreement);
      return agreement;
    } finally {
      privateKey.fill(0);
    }
  }

  agree(keyId: string, peerPublicKey: Uint8Array): Buffer {
    return this.encryptionAgreement(keyId).agree(peerPublicKey);
  }

  /** A passphrase-sealed backup of encryption keys (backup.ts), in the order given; archived ones too. */
  exportEncryptionKeys(keyIds: string[], passphrase: string): string {
    const privateKeys: Buffer[] = [];
    try {
      for (const keyId of keyIds) {
        const row = this.#encryptionRow(keyId);
        if (row.destroyed_at !== null) throw conflict('SVC_ERR_ENCRYPTION_KEY_DESTROYED', `encryption key ${keyId} was destroyed at ${row.destroyed_at}`);
        privateKeys.push(this.#unwrapEncryptionKey(row));
      }
      return sealEncryptionKeysBackup(privateKeys, passphrase, this.#scryptCost);
    } finally {
      for (const privateKey of privateKeys) privateKey.fill(0);
    }
  }

  /** Takes encryption keys back from a backup, each under a new key id, in the backup's order. */
  importEncryptionKeys(blob: string, passphrase: string): EncryptionKey[] {
    const privateKeys = openEncryptionKeysBackup(blob, passphrase);
    try {
      return privateKeys.map((privateKey) => this.importEncryptionKey(privateKey));
    } finally {
      for (const privateKey of privateKeys) privateKey.fill(0);
    }
  }

  /** Marks a rotated-out key: it is no longer published, but it still agrees. Idempotent. */
  archiveEncryptionKey(keyId: string): void {
    this.#encryptionRow(keyId);
    this.#encryptionTableOrThrow().archive(keyId, new Date().toISOString());
  }

  /** Wipes the wrapped private key; what was sealed to it is unreadable afterwards. Idempotent. */
  destroyEncryptionKey(keyId: string): void {
    this.#encryptionRow(keyId);
    this.#agreements.delete(keyId);
    this.#encryptionTableOrThrow().destroy(keyId, new Date().toISOString());
  }

  /**
   * The 32-byte key that seals this node's encrypted backups, made on first use. It leaves
   * custody only to the backup writer and reader of this process and, sealed under the
   * passphrase, in the recovery kit: whoever restores from the kit reads the backups with it.
   */
  backupKey(): Buffer {
    return this.#secret('backup');
  }

  /** Takes a kit's backup key as this node's, so a restored node reads and extends the same backups. */
  adoptBackupKey(key: Uint8Array): void {
    if (key.length !== 32) throw new RangeError('a backup key is 32 bytes');
    this.#secretTableOrThrow().put(this.#wrapSecret('backup', Buffer.from(key)));
  }

  /**
   * This device's own keys (device-key.ts), made on first use: the signing key its requests to
   * the person's other devices carry, and the X25519 key a joining device is sent the identities'
   * keys under. Neither ever leaves custody, and a recovery kit does not carry them: a node made
   * from a kit is a new device.
   */
  deviceKeys(): { signKey: string; boxKey: Buffer } {
    const keys = this.#deviceKeys();
    return { signKey: keys.signKey, boxKey: Buffer.from(keys.boxKey) };
  }

  /** Signs a request to another device with this device's key. */
  deviceSign(message: Uint8Array): Buffer {
    return this.#deviceKeys().sign(message);
  }

  /** This device's X25519 agreement, to open what another device sealed to it. */
  deviceAgreement(): X25519Agreement {
    return this.#deviceKeys().agreement;
  }

  /**
   * Takes `secret` as this device's (a device that joined made it before its custody existed),
   * or a new one when none is given: a database from a backup or another device holds that
   * device's secret, wrapped under a custody secret this node does not have.
   */
  replaceDeviceSecret(secret: Uint8Array = newDeviceSecret()): void {
    if (secret.length !== 32) throw new RangeError('a device secret is 32 bytes');
    this.#secretTableOrThrow().put(this.#wrapSecret('device', Buffer.from(secret)));
    this.#device = null;
  }

  /**
   * Every key custody holds with its material (destroyed ones as rows without it) and the backup
   * key: the one step that takes keys out of custody, for the recovery kit's sealer in this
   * process, which seals them under the owner's passphrase and wipes them (wipeKeyMaterial).
   */
  recoveryKeys(): KeyMaterial {
    const material: KeyMaterial = { signing: [], encryption: [], backupKey: this.backupKey() };
    try {
      for (const row of this.#tableOrThrow().all()) {
        const { key_id, purpose, did_key, created_at, destroyed_at } = row;
        material.signing.push({ key_id, purpose, did_key, created_at, destroyed_at, seed: destroyed_at === null ? this.#unwrap(row) : null });
      }
      for (const row of this.#encryptionTableOrThrow().all()) {
        const { key_id, created_at, archived_at, destroyed_at } = row;
        const private_key = destroyed_at === null ? this.#unwrapEncryptionKey(row) : null;
        material.encryption.push({ key_id, public_key: Buffer.from(row.public_key), created_at, archived_at, destroyed_at, private_key });
      }
      return material;
    } catch (error) {
      wipeKeyMaterial(material);
      throw error;
    }
  }

  /** The ids of every key custody holds material for (not destroyed), signing and encryption. */
  heldKeyIds(): { signing: string[]; encryption: string[] } {
    return {
      signing: this.#tableOrThrow()
        .all()
        .filter((row) => row.destroyed_at === null)
        .map((row) => row.key_id),
      encryption: this.#encryptionTableOrThrow()
        .all()
        .filter((row) => row.destroyed_at === null)
        .map((row) => row.key_id),
    };
  }

  /** A digest of every key's id and state (key-material.ts): it changes exactly when a key is made, archived or destroyed. */
  keyStatesDigest(): string {
    const states: KeyState[] = [
      ...this.#tableOrThrow()
        .all()
        .map((row): KeyState => ({ kind: 'signing', key_id: row.key_id, archived: false, destroyed: row.destroyed_at !== null })),
      ...this.#encryptionTableOrThrow()
        .all()
        .map((row): KeyState => ({ kind: 'encryption', key_id: row.key_id, archived: row.archived_at !== null, destroyed: row.destroyed_at !== null })),
    ];
    return keyStatesDigest(states);
  }

  /**
   * Takes a signing key from a recovery kit under its ORIGINAL key id (every row that names it
   * keeps working), wrapped under this node's secret; a row of the same id is replaced, so a
   * database from a backup, whose rows were wrapped under the lost node's secret, is rewrapped too.
   * The caller wipes the seed.
   */
  installSigningKey(key: SigningKeyMaterial): void {
    const { key_id, purpose, did_key, created_at, destroyed_at, seed } = key;
    if ((destroyed_at === null) !== (seed !== null)) throw new RangeError(`signing key ${key_id}: a held key has a seed, a destroyed one none`);
    if (seed !== null && (seed.length !== 32 || didKeyOfSeed(seed) !== did_key))
      throw new RangeError(`signing key ${key_id}: the seed is not the key of ${did_key}`);
    const wrapped_seed = seed === null ? null : seal(this.#wrapKey, seed, Buffer.from(key_id));
    this.#tableOrThrow().put({ key_id, purpose, did_key, wrapped_seed, backend: this.backend, created_at, destroyed_at });
    this.#keys.delete(key_id);
    this.#didKeys.delete(key_id);
  }

  /** Takes an encryption key from a recovery kit under its original key id, as installSigningKey does a signing key. */
  installEncryptionKey(key: EncryptionKeyMaterial): void {
    const { key_id, public_key, created_at, archived_at, destroyed_at, private_key } = key;
    if ((destroyed_at === null) !== (private_key !== null)) {
      throw new RangeError(`encryption key ${key_id}: a held key has a private key, a destroyed one none`);
    }
    if (public_key.length !== 32) throw new RangeError(`encryption key ${key_id}: a public key is 32 bytes`);
    if (private_key !== null && (private_key.length !== 32 || !x25519PublicKey(private_key).equals(public_key))) {
      throw new RangeError(`encryption key ${key_id}: the private key is not the one of its public key`);
    }
    const wrapped_private = private_key === null ? null : seal(this.#encryptionWrapKey, private_key, Buffer.from(key_id));
    this.#encryptionTableOrThrow().put({ key_id, public_key, wrapped_private, backend: this.backend, created_at, archived_at, destroyed_at });
    this.#agreements.delete(key_id);
  }

  /**
   * Takes in what another device of the node holds of its keys (they travel sealed to this
   * device): a key new here is installed, a key destroyed there is destroyed here and an archived
   * one archived, and never the other way: a key destroyed or archived here stays so, whatever an
   * older copy elsewhere says. Returns how many keys changed. The caller wipes `material`.
   */
  mergeKeys(material: KeyMaterial): number {
    let changed = 0;
    for (const key of material.signing) {
      const held = this.#tableOrThrow().get(key.key_id);
      if (held !== undefined && held.destroyed_at !== null) continue;
      if (held !== undefined && key.destroyed_at === null) continue;
      if (key.destroyed_at !== null && held !== undefined) this.destroyKey(key.key_id);
      else this.installSigningKey(key);
      changed += 1;
    }
    for (const key of material.encryption) {
      const held = this.#encryptionTableOrThrow().get(key.key_id);
      if (held !== undefined && held.destroyed_at !== null) continue;
      if (held !== undefined && key.destroyed_at === null && (key.archived_at === null || held.archived_at !== null)) continue;
      if (held !== undefined && key.destroyed_at !== null) this.destroyEncryptionKey(key.key_id);
      else if (held !== undefined) this.archiveEncryptionKey(key.key_id);
      else this.installEncryptionKey(key);
      changed += 1;
    }
    return changed;
  }

  /** Forgets every decrypted key and the master secret; this instance is unusable afterwards. */
  close(): void {
    this.#keys.clear();
    this.#agreements.clear();
    this.#didKeys.clear();
    this.#device = null;
    this.#master.fill(0);
    this.#wrapKey.fill(0);
    this.#encryptionWrapKey.fill(0);
    this.#secretWrapKey.fill(0);
    this.#table = null;
    this.#encryptionTable = null;
    this.#secretTable = null;
    this.#closed = true;
  }

  #insert(seed: Buffer, purpose: KeyPurpose): SigningKey {
    const table = this.#tableOrThrow();
    const keyId = `key_${randomBytes(16).toString('hex')}`;
    const privateKey = privateKeyFromSeed(seed);
    const publicKey = rawPublicKey(privateKey);
    const didKey = didKeyOfSeed(seed);
    table.insert({
      key_id: keyId,
      purpose,
      did_key: didKey,
      wrapped_seed: seal(this.#wrapKey, seed, Buffer.from(keyId)),
      backend: this.backend,
      created_at: new Date().toISOString(),
    });
    this.#keys.set(keyId, privateKey);
    return { keyId, didKey, publicKey };
  }

  #privateKey(keyId: string): KeyObject {
    const cached = this.#keys.get(keyId);
    if (cached) return cached;
    const row = this.#liveRow(keyId);
    const seed = this.#unwrap(row);
    try {
      const key = privateKeyFromSeed(seed);
      this.#keys.set(keyId, key);
      return key;
    } finally {
      seed.fill(0);
    }
  }

  #unwrap(row: KeyRow): Buffer {
    if (row.backend !== this.backend) {
      throw new CustodyError(
        'key_backend_mismatch',
        `signing key ${row.key_id} was stored under the "${row.backend}" custody backend, but custody now runs "${this.backend}"`,
      );
    }
    const seed = open(this.#wrapKey, row.wrapped_seed!, Buffer.from(row.key_id));
    if (seed === null || didKeyOfSeed(seed) !== row.did_key) {
      seed?.fill(0);
      throw new CustodyError('key_unwrap_failed', `signing key ${row.key_id} does not unwrap under the custody secret of ${this.dataDir}`);
    }
    return seed;
  }

  #unwrapEncryptionKey(row: EncryptionKeyRow): Buffer {
    if (row.backend !== this.backend) {
      throw new CustodyError(
        'key_backend_mismatch',
        `encryption key ${row.key_id} was stored under the "${row.backend}" custody backend, but custody now runs "${this.backend}"`,
      );
    }
    const privateKey = open(this.#encryptionWrapKey, row.wrapped_private!, Buffer.from(row.key_id));
    if (privateKey?.length !== 32 || !x25519PublicKey(privateKey).equals(row.public_key)) {
      privateKey?.fill(0);
      throw new CustodyError('key_unwrap_failed', `encryption key ${row.key_id} does not unwrap under the custody secret of ${this.dataDir}`);
    }
    return privateKey;
  }

  #deviceKeys(): DeviceKeys {
    if (this.#device !== null) return this.#device;
    const secret = this.#secret('device');
    try {
      this.#device = new DeviceKeys(secret);
    } finally {
      secret.fill(0);
    }
    return this.#device;
  }

  #secret(name: SecretName): Buffer {
    const table = this.#secretTableOrThrow();
    if (!table.get(name)) table.insertIfAbsent(this.#wrapSecret(name, randomBytes(32)));
    const row = table.get(name)!;
    if (row.backend !== this.backend) {
      throw new CustodyError(
        'key_backend_mismatch',
        `the ${name} secret was stored under the "${row.backend}" custody backend, but custody now runs "${this.backend}"`,
      );
    }
    const secret = open(this.#secretWrapKey, row.wrapped, Buffer.from(name));
    if (secret?.length !== 32) throw new CustodyError('key_unwrap_failed', `the ${name} secret does not unwrap under the custody secret of ${this.dataDir}`);
    return secret;
  }

  #wrapSecret(name: SecretName, secret: Buffer): SecretRow {
    try {
      return { name, wrapped: seal(this.#secretWrapKey, secret, Buffer.from(name)), backend: this.backend, created_at: new Date().toISOString() };
    } finally {
      secret.fill(0);
    }
  }

  #secretTableOrThrow(): SecretTable {
    this.#assertOpen();
    if (!this.#secretTable) throw new CustodyError('not_attached', 'custody is not attached to a database yet');
    return this.#secretTable;
  }

  #encryptionRow(keyId: string): EncryptionKeyRow {
    const row = this.#encryptionTableOrThrow().get(keyId);
    if (!row) throw notFound('SVC_ERR_ENCRYPTION_KEY_NOT_FOUND', `custody holds no encryption key ${keyId}`);
    return row;
  }

  #encryptionTableOrThrow(): EncryptionKeyTable {
    this.#assertOpen();
    if (!this.#encryptionTable) throw new CustodyError('not_attached', 'custody is not attached to a database yet');
    return this.#encryptionTable;
  }

  #liveRow(keyId: string): KeyRow {
    const row = this.#row(keyId);
    if (row.destroyed_at !== null) throw conflict('SVC_ERR_SIGNING_KEY_DESTROYED', `signing key ${keyId} was destroyed at ${row.destroyed_at}`);
    return row;
  }

  #row(keyId: string): KeyRow {
    const row = this.#tableOrThrow().get(keyId);
    if (!row) throw notFound('SVC_ERR_SIGNING_KEY_NOT_FOUND', `custody holds no signing key ${keyId}`);
    return row;
  }

  #tableOrThrow(): KeyTable {
    this.#assertOpen();
    if (!this.#table) throw new CustodyError('not_attached', 'custody is not attached to a database yet');
    return this.#table;
  }

  #assertOpen(): void {
    if (this.#closed) throw new CustodyError('closed', 'custody is closed');
  }
}
