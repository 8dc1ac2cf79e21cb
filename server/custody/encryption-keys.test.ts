/**
 * X25519 encryption keys in custody: the private key agrees without leaving custody, survives a
 * restart, is stored only wrapped, stays usable once archived, and is gone once destroyed.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agreementFromPrivateKey, generateX25519KeyPair } from '../crypto/e2ee/x25519.ts';
import { closeDatabase, openDatabase, type Database } from '../store/database.ts';
import { Custody } from './custody.ts';

let root: string;
let dataDir: string;
let custody: Custody;
let db: Database;

async function start(): Promise<void> {
  custody = await Custody.open({ dataDir, backend: 'key-file', env: {}, warn: () => {}, scryptCost: 10 });
  db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
}

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-ekeys-'));
  dataDir = join(root, 'data');
  await start();
});

afterEach(() => {
  custody.close();
  if (db.open) db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('encryption keys', () => {
  it('agree with a peer as the peer agrees with the public key (the same shared secret)', () => {
    const { keyId, publicKey } = custody.createEncryptionKey();
    expect(keyId).toMatch(/^ekey_[0-9a-f]{32}$/);
    expect(publicKey).toHaveLength(32);
    expect(custody.encryptionPublicKey(keyId).equals(publicKey)).toBe(true);
    const peer = generateX25519KeyPair();
    const ours = custody.agree(keyId, peer.publicKey);
    expect(ours).toHaveLength(32);
    expect(ours.equals(agreementFromPrivateKey(peer.privateKey).agree(publicKey))).toBe(true);
    expect(custody.encryptionAgreement(keyId).publicKey.equals(publicKey)).toBe(true);
  });

  it('keep agreeing after a restart, and still once archived', async () => {
    const { keyId } = custody.createEncryptionKey();
    const peer = generateX25519KeyPair();
    const before = custody.agree(keyId, peer.publicKey);
    custody.archiveEncryptionKey(keyId);
    custody.close();
    closeDatabase(db);
    await start();
    expect(custody.agree(keyId, peer.publicKey).equals(before)).toBe(true);
    const row = db.prepare('SELECT archived_at, destroyed_at FROM custody_encryption_keys WHERE key_id = ?').get(keyId) as Record<string, unknown>;
    expect(row.archived_at).toEqual(expect.any(String));
    expect(row.destroyed_at).toBeNull();
  });

  it('refuse a low-order peer key (all-zero shared secret)', () => {
    const { keyId } = custody.createEncryptionKey();
    expect(() => custody.agree(keyId, Buffer.alloc(32))).toThrow();
  });

  it('cannot agree once destroyed; the public key stays readable', () => {
    const { keyId, publicKey } = custody.createEncryptionKey();
    custody.agree(keyId, generateX25519KeyPair().publicKey); // warm the cache: destroy must drop it too
    custody.destroyEncryptionKey(keyId);
    expect(() => custody.agree(keyId, generateX25519KeyPair().publicKey)).toThrow(
      expect.objectContaining({ statusCode: 409, code: 'SVC_ERR_ENCRYPTION_KEY_DESTROYED' }),
    );
    expect(custody.encryptionPublicKey(keyId).equals(publicKey)).toBe(true);
  });

  it('reports an unknown key id as not found', () => {
    expect(() => custody.agree('ekey_missing', generateX25519KeyPair().publicKey)).toThrow(
      expect.objectContaining({ statusCode: 404, code: 'SVC_ERR_ENCRYPTION_KEY_NOT_FOUND' }),
    );
  });

  it('are stored wrapped: the private key is in no file of the data dir', async () => {
    const pair = generateX25519KeyPair();
    const { keyId, publicKey } = custody.importEncryptionKey(pair.privateKey);
    expect(publicKey.equals(pair.publicKey)).toBe(true);
    const peer = generateX25519KeyPair();
    expect(custody.agree(keyId, peer.publicKey).equals(agreementFromPrivateKey(pair.privateKey).agree(peer.publicKey))).toBe(true);
    const row = db.prepare('SELECT wrapped_private FROM custody_encryption_keys WHERE key_id = ?').get(keyId) as { wrapped_private: Buffer };
    expect(row.wrapped_private).toHaveLength(12 + 32 + 16);

    const needles = [pair.privateKey, Buffer.from(pair.privateKey.toString('hex')), Buffer.from(pair.privateKey.toString('base64'))];
    const scan = () => {
      for (const file of readdirSync(dataDir)) {
        const bytes = readFileSync(join(dataDir, file));
        for (const needle of needles) expect(bytes.includes(needle), `${file} holds the private key`).toBe(false);
      }
    };
    expect(readdirSync(dataDir)).toContain('node.db-wal');
    scan();
    custody.close();
    closeDatabase(db);
    scan();
    await start();
  });

  it('travel in a passphrase-sealed backup to another custody, archived ones too, and nothing else opens it', async () => {
    const current = custody.createEncryptionKey();
    const archived = custody.createEncryptionKey();
    custody.archiveEncryptionKey(archived.keyId);
    const blob = custody.exportEncryptionKeys([archived.keyId, current.keyId], 'backup pass');
    const peer = generateX25519KeyPair();
    const before = [archived, current].map((key) => custody.agree(key.keyId, peer.publicKey));

    const parsed = JSON.parse(blob) as { public_keys: string[] };
    expect(() => custody.importEncryptionKeys(blob, 'wrong pass')).toThrow(expect.objectContaining({ code: 'SVC_ERR_BACKUP_PASSPHRASE_WRONG' }));
    const swapped = JSON.stringify({ ...parsed, public_keys: [...parsed.public_keys].reverse() });
    expect(() => custody.importEncryptionKeys(swapped, 'backup pass')).toThrow(expect.objectContaining({ code: 'SVC_ERR_BACKUP_PASSPHRASE_WRONG' }));

    custody.close();
    closeDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
    await start(); // a new data dir: another master secret
    const restored = custody.importEncryptionKeys(blob, 'backup pass');
    expect(restored.map((key) => key.publicKey)).toEqual([archived.publicKey, current.publicKey]);
    expect(restored.map((key) => custody.agree(key.keyId, peer.publicKey))).toEqual(before);
  });
});
