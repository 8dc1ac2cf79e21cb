import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../clock.ts';
import { publicKeyFromDidKey } from '../../crypto/did-key.ts';
import { verifyBytes } from '../../crypto/ed25519.ts';
import { Custody } from '../../custody/custody.ts';
import { nodeIdOf } from '../../node-id-store.ts';
import { closeDatabase, openDatabase, type Database } from '../../store/database.ts';
import { KIT_FORMAT, readKit, sealKit } from './format.ts';
import { RecoveryKitError } from './kit-error.ts';
import { makeKit } from './make.ts';
import { encodePayload } from './payload.ts';
import { readKitRecord } from './record-store.ts';
import { RestoreRefused } from '../new-data-dir.ts';
import { restoreKit } from './restore.ts';
import { RecoveryKits } from './service.ts';
import { writeBackup } from '../backup/index.ts';

const PASSPHRASE = 'correct horse battery staple';
const ENV = { SVC_NODE_CUSTODY: 'key-file' };

let root: string;
const open: { custody: Custody; db: Database }[] = [];

async function node(dataDir: string): Promise<{ custody: Custody; db: Database }> {
  const custody = await Custody.open({ dataDir, backend: 'key-file', env: {}, warn: () => {} });
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
  open.push({ custody, db });
  return { custody, db };
}

function close(): void {
  for (const { custody, db } of open.splice(0)) {
    custody.close();
    closeDatabase(db);
  }
}

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-kit-restore-'));
});

afterEach(() => {
  close();
  rmSync(root, { recursive: true, force: true });
});

/** A node with a key of each kind (one encryption key rotated out, one signing key destroyed) and a peer; its kit at a cost tests afford. */
async function kitOfANode(): Promise<{ kit: string; nodeId: string; signing: { keyId: string; didKey: string } }> {
  const { custody, db } = await node(join(root, 'old'));
  const nodeId = nodeIdOf(db);
  const signing = custody.createSigningKey('identity');
  custody.destroyKey(custody.createSigningKey('team').keyId);
  custody.archiveEncryptionKey(custody.createEncryptionKey().keyId);
  custody.createEncryptionKey();
  db.prepare(`INSERT INTO peers (domain, url, created_at, updated_at) VALUES ('beta.test', 'http://127.0.0.1:9', 'now', 'now')`).run();
  const { kit } = makeKit(db, custody, PASSPHRASE, { nodeId, now: new Date(), scryptCost: 10 });
  close();
  return { kit, nodeId, signing };
}

describe('restoring a recovery kit', () => {
  it('makes a data dir holding the same node id, keys under their ids, and state rows', async () => {
    const { kit, nodeId, signing } = await kitOfANode();
    const target = join(root, 'new');
    const restored = await restoreKit({ kit, passphrase: PASSPHRASE, dataDir: target, env: ENV, warn: () => {} });
    expect(restored).toEqual({ data_dir: target, node_id: nodeId, identities: 0, keys: 3 });
    expect(readdirSync(root).sort()).toEqual(['new', 'old']);

    const { custody, db } = await node(target);
    expect(nodeIdOf(db)).toBe(nodeId);
    const message = Buffer.from('same key');
    expect(verifyBytes(publicKeyFromDidKey(signing.didKey)!, message, custody.sign(signing.keyId, message))).toBe(true);
    expect(db.prepare('SELECT url FROM peers WHERE domain = ?').pluck().get('beta.test')).toBe('http://127.0.0.1:9');
    expect(readKitRecord(db)?.kit_id).toBe(readKit(kit).header.kit_id);
    expect(new RecoveryKits({ db, custody, clock: systemClock }).status().keys_changed_since).toBe(false);
  });

  it('writes nothing when the passphrase is wrong', async () => {
    const { kit } = await kitOfANode();
    const error = await thrown(restoreKit({ kit, passphrase: 'not the passphrase', dataDir: join(root, 'new'), env: ENV }));
    expect(error).toBeInstanceOf(RecoveryKitError);
    expect((error as RecoveryKitError).code).toBe('does_not_open');
    expect(readdirSync(root)).toEqual(['old']);
  });

  it('refuses a kit with any one byte of its header or the edges of its payload changed, and writes nothing', async () => {
    const { kit } = await kitOfANode();
    const bytes = Buffer.from(kit);
    const sealedAt = kit.indexOf('"sealed":"') + 10;
    const positions = [...Array(sealedAt + 64).keys(), ...Array.from({ length: 64 }, (_, i) => bytes.length - 64 + i)];
    for (const position of positions) {
      const changed = Buffer.from(bytes);
      changed[position] = changed[position]! ^ 0x01;
      const error = await thrown(restoreKit({ kit: changed.toString('latin1'), passphrase: PASSPHRASE, dataDir: join(root, 'new'), env: ENV }));
      expect(error, `byte ${position}`).toBeInstanceOf(RecoveryKitError);
      expect(readdirSync(root), `byte ${position}`).toEqual(['old']);
    }
  });

  it('refuses a data dir that holds a node, or anything, and leaves it as it was', async () => {
    const { kit } = await kitOfANode();
    const occupied = join(root, 'old');
    const before = readdirSync(occupied).sort();
    expect(await thrown(restoreKit({ kit, passphrase: PASSPHRASE, dataDir: occupied, env: ENV }))).toEqual(
      new RestoreRefused(`${occupied} already holds an svc-node; use a new folder`),
    );
    expect(readdirSync(occupied).sort()).toEqual(before);
    const notEmpty = join(root, 'notes');
    mkdirSync(notEmpty);
    writeFileSync(join(notEmpty, 'todo.txt'), 'keep me');
    expect(await thrown(restoreKit({ kit, passphrase: PASSPHRASE, dataDir: notEmpty, env: ENV }))).toBeInstanceOf(RestoreRefused);
    expect(readdirSync(notEmpty)).toEqual(['todo.txt']);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    await restoreKit({ kit, passphrase: PASSPHRASE, dataDir: empty, env: ENV, warn: () => {} });
    expect(existsSync(join(empty, 'node.db'))).toBe(true);
  });

  it('refuses a kit made by a newer svc-node, before writing anything', async () => {
    const payload = encodePayload({ schemaVersion: 9999, nodeId: 'n1', keys: { signing: [], encryption: [], backupKey: Buffer.alloc(32, 1) }, tables: [] });
    const kit = sealKit(payload, PASSPHRASE, { kitId: 'kit_x', nodeId: 'n1', createdAt: new Date().toISOString(), scryptCost: 10 });
    expect(JSON.parse(kit).format).toBe(KIT_FORMAT);
    const error = await thrown(restoreKit({ kit, passphrase: PASSPHRASE, dataDir: join(root, 'new'), env: ENV }));
    expect((error as RecoveryKitError).code).toBe('unsupported');
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('restoring a recovery kit with the history from a backup', () => {
  /** The old node's database backed up into `dir` with its own backup key, the one its kit carries. */
  async function backUp(dataDir: string, dir: string): Promise<string> {
    const { custody, db } = await node(dataDir);
    const { backup_id } = await writeBackup({ db, dir, backupKey: custody.backupKey(), nodeId: nodeIdOf(db), now: new Date() });
    return backup_id;
  }

  it("keeps the backup's rows and history, wraps its keys anew under the new secret, and drops the keys made after the kit", async () => {
    const { kit, nodeId, signing } = await kitOfANode();
    const oldDir = join(root, 'old');
    const before = await node(oldDir);
    before.db
      .prepare(
        `INSERT INTO app_events (event_id, team_id, type, resource_ref, payload, created_at) VALUES ('ev_1', 'team', 'docs/doc.changed', 'doc', '{}', 'now')`,
      )
      .run();
    // Made after the kit: the backup names it, the kit cannot bring it back.
    const late = before.custody.createSigningKey('identity');
    const backupKey = before.custody.backupKey();
    close();
    const backups = join(root, 'backups');
    const backupId = await backUp(oldDir, backups);
    close();

    const target = join(root, 'new');
    const restored = await restoreKit({ kit, passphrase: PASSPHRASE, dataDir: target, env: ENV, warn: () => {}, backup: { dir: backups } });
    expect(restored).toMatchObject({ node_id: nodeId, backup_id: backupId, keys_lost: 1 });
    const { custody, db } = await node(target);
    expect(nodeIdOf(db)).toBe(nodeId);
    expect(db.prepare('SELECT count(*) FROM app_events').pluck().get()).toBe(1);
    expect(db.prepare('SELECT count(*) FROM peers').pluck().get()).toBe(1);
    const message = Buffer.from('rewrapped');
    expect(verifyBytes(publicKeyFromDidKey(signing.didKey)!, message, custody.sign(signing.keyId, message))).toBe(true);
    expect(custody.heldKeyIds().signing).not.toContain(late.keyId);
    expect(() => custody.sign(late.keyId, message)).toThrow(/destroyed/);
    // The node holds no key its kit lacks: the kit it came from is current.
    expect(new RecoveryKits({ db, custody, clock: systemClock }).status()).toEqual({ last_created_at: expect.any(String), keys_changed_since: false });
    // The backups go on under the same key, the kit's: the restored node extends the same folder.
    expect(custody.backupKey().equals(backupKey)).toBe(true);
  });

  it("refuses another node's backup, a wrong backup id and an empty folder, writing nothing", async () => {
    const { kit } = await kitOfANode();
    const kitsKey = (await node(join(root, 'old'))).custody.backupKey();
    close();
    const target = join(root, 'new');
    const restoreFrom = (dir: string) => thrown(restoreKit({ kit, passphrase: PASSPHRASE, dataDir: target, env: ENV, warn: () => {}, backup: { dir } }));

    // Another node's backups, under its own key: the kit's key does not open the folder.
    await backUp(join(root, 'other'), join(root, 'theirs'));
    close();
    expect(String(await restoreFrom(join(root, 'theirs')))).toMatch(/key/);
    expect(existsSync(target)).toBe(false);
    // Another node's backup under the kit's very key: opened, and refused for the node it is of.
    const impostor = await node(join(root, 'impostor'));
    impostor.custody.adoptBackupKey(kitsKey);
    close();
    await backUp(join(root, 'impostor'), join(root, 'same-key'));
    close();
    const refusal = await restoreFrom(join(root, 'same-key'));
    expect(refusal).toBeInstanceOf(RestoreRefused);
    expect(String(refusal)).toMatch(/is of node .* not of this kit's node/);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(root).filter((name) => name.includes('restoring'))).toEqual([]);
    mkdirSync(join(root, 'empty'));
    await thrown(restoreKit({ kit, passphrase: PASSPHRASE, dataDir: target, env: ENV, warn: () => {}, backup: { dir: join(root, 'empty') } }));
    expect(existsSync(target)).toBe(false);
  });
});

describe('the recovery kit reminder', () => {
  it('says a kit is due until one is made, and again once a key changes', async () => {
    const { custody, db } = await node(join(root, 'node'));
    const kits = new RecoveryKits({ db, custody, clock: systemClock }, { scryptCost: 10 });
    custody.createSigningKey('identity');
    expect(kits.status()).toEqual({ last_created_at: null, keys_changed_since: true });
    const made = kits.create(PASSPHRASE);
    expect(kits.status()).toEqual({ last_created_at: made.created_at, keys_changed_since: false });
    const key = custody.createEncryptionKey();
    expect(kits.status().keys_changed_since).toBe(true);
    kits.create(PASSPHRASE);
    custody.archiveEncryptionKey(key.keyId);
    expect(kits.status().keys_changed_since).toBe(true);
  });
});
