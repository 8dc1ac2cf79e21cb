import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { agreementFromPrivateKey, generateX25519KeyPair } from '../crypto/e2ee/x25519.ts';
import { closeDatabase, openDatabase, type Database } from '../store/database.ts';
import { Custody } from './custody.ts';
import { wipeKeyMaterial } from './key-material.ts';

let root: string;
const opened: { custody: Custody; db: Database }[] = [];

async function node(name: string): Promise<{ custody: Custody; db: Database }> {
  const dataDir = join(root, name);
  const custody = await Custody.open({ dataDir, backend: 'key-file', env: {}, warn: () => {}, scryptCost: 10 });
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
  opened.push({ custody, db });
  return { custody, db };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-recovery-keys-'));
});

afterEach(() => {
  for (const { custody, db } of opened.splice(0)) {
    custody.close();
    closeDatabase(db);
  }
  rmSync(root, { recursive: true, force: true });
});

describe('keys carried by a recovery kit', () => {
  it('sign and agree on another node under their original key ids, destroyed ones stay destroyed', async () => {
    const a = await node('a');
    const signing = a.custody.createSigningKey('identity');
    const gone = a.custody.createSigningKey('team');
    a.custody.destroyKey(gone.keyId);
    const archived = a.custody.createEncryptionKey();
    a.custody.archiveEncryptionKey(archived.keyId);
    const current = a.custody.createEncryptionKey();
    const backupKey = a.custody.backupKey();

    const material = a.custody.recoveryKeys();
    const b = await node('b');
    try {
      for (const key of material.signing) b.custody.installSigningKey(key);
      for (const key of material.encryption) b.custody.installEncryptionKey(key);
      b.custody.adoptBackupKey(material.backupKey);
    } finally {
      wipeKeyMaterial(material);
    }

    const message = Buffer.from('the same key');
    expect(verifyBytes(publicKeyFromDidKey(signing.didKey)!, message, b.custody.sign(signing.keyId, message))).toBe(true);
    expect(b.custody.didKey(signing.keyId)).toBe(signing.didKey);
    expect(b.custody.hasKey(gone.keyId)).toBe(false);
    expect(b.custody.didKey(gone.keyId)).toBe(gone.didKey);
    const peer = generateX25519KeyPair();
    for (const key of [archived, current]) {
      expect(b.custody.agree(key.keyId, peer.publicKey)).toEqual(agreementFromPrivateKey(peer.privateKey).agree(key.publicKey));
    }
    expect(b.custody.backupKey()).toEqual(backupKey);
    expect(b.custody.keyStatesDigest()).toBe(a.custody.keyStatesDigest());
  });

  it('replace a row of the same key id, so a database from a backup is rewrapped under the new secret', async () => {
    const a = await node('a');
    const signing = a.custody.createSigningKey('identity');
    const material = a.custody.recoveryKeys();
    const b = await node('b');
    // The row as a backup would bring it: the same id, wrapped under the lost node's secret.
    b.custody.installSigningKey({ ...material.signing[0]!, seed: null, destroyed_at: '2026-01-01T00:00:00.000Z' });
    expect(b.custody.hasKey(signing.keyId)).toBe(false);
    b.custody.installSigningKey(material.signing[0]!);
    expect(b.custody.hasKey(signing.keyId)).toBe(true);
    expect(b.custody.didKey(signing.keyId)).toBe(signing.didKey);
    wipeKeyMaterial(material);
  });

  it('refuse material that is not the key it claims to be', async () => {
    const a = await node('a');
    a.custody.createSigningKey('identity');
    a.custody.createEncryptionKey();
    const material = a.custody.recoveryKeys();
    const b = await node('b');
    const signing = material.signing[0]!;
    const encryption = material.encryption[0]!;
    expect(() => b.custody.installSigningKey({ ...signing, seed: Buffer.alloc(32, 7) })).toThrow(/is not the key of/);
    expect(() => b.custody.installSigningKey({ ...signing, seed: null })).toThrow(/a held key has a seed/);
    expect(() => b.custody.installEncryptionKey({ ...encryption, private_key: Buffer.alloc(32, 7) })).toThrow(/not the one of its public key/);
    expect(b.custody.hasKey(signing.key_id)).toBe(false);
    wipeKeyMaterial(material);
    expect(signing.seed!.every((byte) => byte === 0)).toBe(true);
  });

  it('change the digest of key states when a key is made, archived or destroyed, and only then', async () => {
    const a = await node('a');
    const first = a.custody.keyStatesDigest();
    const key = a.custody.createEncryptionKey();
    const made = a.custody.keyStatesDigest();
    expect(made).not.toBe(first);
    a.custody.sign(a.custody.createSigningKey('identity').keyId, Buffer.from('x'));
    const signed = a.custody.keyStatesDigest();
    expect(signed).not.toBe(made);
    expect(a.custody.keyStatesDigest()).toBe(signed);
    a.custody.archiveEncryptionKey(key.keyId);
    const archived = a.custody.keyStatesDigest();
    expect(archived).not.toBe(signed);
    a.custody.destroyEncryptionKey(key.keyId);
    expect(a.custody.keyStatesDigest()).not.toBe(archived);
  });
});
