import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { didKeyFromPublicKey } from '../crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey, verifyBytes } from '../crypto/ed25519.ts';
import { ServiceError } from '../errors.ts';
import { closeDatabase, openDatabase, type Database } from '../store/database.ts';
import { sealKeyBackup } from './backup.ts';
import { buildKeyAssertion } from '../crypto/e2ee/key-assertion.ts';
import { generateX25519KeyPair } from '../crypto/e2ee/x25519.ts';
import { Custody } from './custody.ts';
import { CustodyError } from './custody-error.ts';

const MESSAGE = Buffer.from('{"body":"hello","from":"alice"}');

let root: string;
let dataDir: string;
let custody: Custody;
let db: Database;

async function start(dir = dataDir): Promise<{ custody: Custody; db: Database }> {
  const c = await Custody.open({ dataDir: dir, backend: 'key-file', env: {}, warn: () => {}, scryptCost: 10 });
  const d = openDatabase({ file: join(dir, 'node.db'), key: c.databaseKey() });
  c.attach(d);
  return { custody: c, db: d };
}

async function restart(): Promise<void> {
  custody.close();
  closeDatabase(db);
  ({ custody, db } = await start());
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-keys-'));
  dataDir = join(root, 'data');
  ({ custody, db } = await start());
});

afterEach(() => {
  custody.close();
  if (db.open) db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('signing keys', () => {
  it('signs with a new key so that verifyBytes accepts it under its public key and did:key', () => {
    const { keyId, didKey, publicKey } = custody.createSigningKey('identity');
    expect(keyId).toMatch(/^key_[0-9a-f]{32}$/);
    expect(publicKey).toHaveLength(32);
    expect(didKey).toBe(didKeyFromPublicKey(publicKey));
    expect(custody.didKey(keyId)).toBe(didKey);
    expect(custody.publicKey(keyId).equals(publicKey)).toBe(true);
    expect(custody.hasKey(keyId)).toBe(true);

    const signature = custody.sign(keyId, MESSAGE);
    expect(signature).toHaveLength(64);
    expect(verifyBytes(publicKey, MESSAGE, signature)).toBe(true);
    expect(verifyBytes(publicKey, Buffer.from('other'), signature)).toBe(false);
  });

  it('records purpose, backend and a wrapped (not raw) seed', () => {
    const team = custody.createSigningKey('team');
    const namespace = custody.createSigningKey('namespace');
    const rows = db.prepare('SELECT * FROM custody_keys ORDER BY purpose').all() as Record<string, unknown>[];
    expect(rows.map((r) => [r.key_id, r.purpose, r.backend])).toEqual([
      [namespace.keyId, 'namespace', 'key-file'],
      [team.keyId, 'team', 'key-file'],
    ]);
    for (const row of rows) expect(row.wrapped_seed).toHaveLength(12 + 32 + 16);
    expect(() => custody.createSigningKey('wizard' as 'team')).toThrow(/CHECK constraint/);
  });

  it('keeps keys across a restart', async () => {
    const { keyId, publicKey } = custody.createSigningKey('identity');
    const before = custody.sign(keyId, MESSAGE);
    await restart();
    expect(custody.hasKey(keyId)).toBe(true);
    const after = custody.sign(keyId, MESSAGE);
    expect(after.equals(before)).toBe(true); // Ed25519 is deterministic: same seed came back
    expect(verifyBytes(publicKey, MESSAGE, after)).toBe(true);
  });

  it('never writes a seed to the database, its WAL or custody.json', async () => {
    const seed = randomBytes(32);
    const keyId = custody.importKey(sealKeyBackup(seed, 'backup pass', 10), 'backup pass', 'identity');
    const publicKey = rawPublicKey(privateKeyFromSeed(seed));
    expect(custody.publicKey(keyId).equals(publicKey)).toBe(true);
    expect(verifyBytes(publicKey, MESSAGE, custody.sign(keyId, MESSAGE))).toBe(true);

    const needles = [seed, Buffer.from(seed.toString('hex')), Buffer.from(seed.toString('base64'))];
    const scan = () => {
      const files = readdirSync(dataDir);
      expect(files).toEqual(expect.arrayContaining(['node.db', 'custody.json', 'master.key']));
      for (const file of files) {
        const bytes = readFileSync(join(dataDir, file));
        for (const needle of needles) expect(bytes.includes(needle), `${file} holds the seed`).toBe(false);
      }
    };
    expect(readdirSync(dataDir)).toContain('node.db-wal');
    scan();
    custody.close();
    closeDatabase(db);
    scan();
  });

  it('reports an unknown key id as not found', () => {
    const error = thrown(() => custody.sign('key_missing', MESSAGE));
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ statusCode: 404, message: 'custody holds no signing key key_missing' });
    expect(custody.hasKey('key_missing')).toBe(false);
  });
});

describe('destroyKey', () => {
  it('wipes the wrapped seed so the key can no longer sign, even after a restart', async () => {
    const { keyId, didKey } = custody.createSigningKey('identity');
    custody.sign(keyId, MESSAGE); // warm the cache: destroy must drop it too
    custody.destroyKey(keyId);

    expect(custody.hasKey(keyId)).toBe(false);
    expect(custody.canSign(keyId)).toBe(false);
    const error = thrown(() => custody.sign(keyId, MESSAGE));
    expect(error).toMatchObject({ statusCode: 409, code: 'SVC_ERR_SIGNING_KEY_DESTROYED' });
    expect((error as Error).message).toMatch(new RegExp(`signing key ${keyId} was destroyed at `));
    expect(() => custody.exportKey(keyId, 'pw')).toThrow(/was destroyed/);
    expect(custody.didKey(keyId)).toBe(didKey);
    const row = db.prepare('SELECT wrapped_seed, destroyed_at FROM custody_keys WHERE key_id = ?').get(keyId) as {
      wrapped_seed: Buffer | null;
      destroyed_at: string | null;
    };
    expect(row.wrapped_seed).toBeNull();
    expect(row.destroyed_at).not.toBeNull();
    expect(readFileSync(join(dataDir, 'node.db-wal'))).toHaveLength(0);

    custody.destroyKey(keyId); // idempotent
    await restart();
    expect(() => custody.sign(keyId, MESSAGE)).toThrow(/was destroyed/);
  });
});

describe('sealBeside', () => {
  const party = (did: string) => {
    const { publicKey } = generateX25519KeyPair();
    return { did, encryptionKey: buildKeyAssertion({ identityDid: did, custody: 'self', publicKey, now: Date.now() - 60_000 }, () => Buffer.alloc(64)) };
  };
  const request = (senderDid: string) => ({
    kind: 'mail' as const,
    sender: party(senderDid),
    recipients: [party(didKeyFromPublicKey(randomBytes(32)))],
    body: 'b',
    messageId: 'm',
    conversationId: 'c',
    createdAt: Date.now(),
  });

  it('lends a key only to seal as the did that key is', async () => {
    const { keyId } = custody.createSigningKey('identity');
    const other = custody.createSigningKey('identity');
    await expect(custody.sealBeside(keyId, request(other.didKey), MESSAGE)).rejects.toThrow(/signing key does not belong/);
  });

  it('lends no key that was destroyed', async () => {
    const { keyId, didKey } = custody.createSigningKey('identity');
    custody.destroyKey(keyId);
    await expect(custody.sealBeside(keyId, request(didKey), MESSAGE)).rejects.toMatchObject({ code: 'SVC_ERR_SIGNING_KEY_DESTROYED' });
  });
});

describe('exportKey / importKey', () => {
  it('round-trips a key into another node, keeping its did:key and signatures', async () => {
    const { keyId, didKey, publicKey } = custody.createSigningKey('identity');
    const blob = custody.exportKey(keyId, 'long backup passphrase');
    const parsed = JSON.parse(blob) as Record<string, unknown>;
    expect(parsed).toMatchObject({ format: 'svc-node.key-backup', v: 1, did_key: didKey, cipher: 'aes-256-gcm' });
    expect(parsed.kdf).toMatchObject({ name: 'scrypt', N: 1024 });

    const other = await start(join(root, 'other'));
    try {
      const imported = other.custody.importKey(blob, 'long backup passphrase', 'identity');
      expect(imported).not.toBe(keyId);
      expect(other.custody.didKey(imported)).toBe(didKey);
      expect(other.custody.sign(imported, MESSAGE).equals(custody.sign(keyId, MESSAGE))).toBe(true);
      expect(verifyBytes(publicKey, MESSAGE, other.custody.sign(imported, MESSAGE))).toBe(true);
    } finally {
      other.custody.close();
      closeDatabase(other.db);
    }
  });

  it('returns the existing key id when the key is already held', () => {
    const { keyId } = custody.createSigningKey('team');
    const blob = custody.exportKey(keyId, 'pw');
    expect(custody.importKey(blob, 'pw', 'team')).toBe(keyId);
    expect(db.prepare('SELECT count(*) FROM custody_keys').pluck().get()).toBe(1);
  });

  it('imports again, under a new id, a key that was destroyed', () => {
    const { keyId, publicKey } = custody.createSigningKey('identity');
    const blob = custody.exportKey(keyId, 'pw');
    custody.destroyKey(keyId);
    const revived = custody.importKey(blob, 'pw', 'identity');
    expect(revived).not.toBe(keyId);
    expect(verifyBytes(publicKey, MESSAGE, custody.sign(revived, MESSAGE))).toBe(true);
  });

  it('refuses a wrong passphrase, a tampered did_key and a non-backup', () => {
    const { keyId } = custody.createSigningKey('identity');
    const blob = custody.exportKey(keyId, 'right');
    const wrong = thrown(() => custody.importKey(blob, 'wrong', 'identity'));
    expect(wrong).toMatchObject({ statusCode: 422, code: 'SVC_ERR_BACKUP_PASSPHRASE_WRONG', message: 'the passphrase does not open this key backup' });

    const other = custody.createSigningKey('identity').didKey;
    const tampered = JSON.stringify({ ...(JSON.parse(blob) as object), did_key: other });
    const refused = (fn: () => unknown, code: string, message: string) => expect(thrown(fn)).toMatchObject({ statusCode: 422, code, message });
    refused(() => custody.importKey(tampered, 'right', 'identity'), 'SVC_ERR_BACKUP_PASSPHRASE_WRONG', 'the passphrase does not open this key backup');
    refused(() => custody.importKey('{"hello":1}', 'right', 'identity'), 'SVC_ERR_BACKUP_INVALID', 'this is not an svc-node key backup');
    refused(() => custody.importKey('not json', 'right', 'identity'), 'SVC_ERR_BACKUP_INVALID', 'the key backup is not JSON');
    const parsed = JSON.parse(blob) as { kdf: object };
    const greedy = JSON.stringify({ ...parsed, kdf: { ...parsed.kdf, N: 2 ** 30 } });
    refused(() => custody.importKey(greedy, 'right', 'identity'), 'SVC_ERR_BACKUP_INVALID', 'the key backup is damaged');
    const later = JSON.stringify({ ...parsed, v: 2 });
    refused(
      () => custody.importKey(later, 'right', 'identity'),
      'SVC_ERR_BACKUP_VERSION_UNSUPPORTED',
      'key backup version 2 is not supported by this svc-node',
    );
    refused(() => custody.exportKey(keyId, ''), 'SVC_ERR_BACKUP_PASSPHRASE_REQUIRED', 'a backup passphrase is required');
  });
});

describe('refusals', () => {
  it('refuses a key it does not hold with a 404', () => {
    expect(thrown(() => custody.sign('no-such-key', MESSAGE))).toMatchObject({ statusCode: 404, code: 'SVC_ERR_SIGNING_KEY_NOT_FOUND' });
  });

  it('refuses a key recorded under another backend', async () => {
    const { keyId } = custody.createSigningKey('identity');
    db.prepare("UPDATE custody_keys SET backend = 'keyring' WHERE key_id = ?").run(keyId);
    await restart();
    const error = thrown(() => custody.sign(keyId, MESSAGE));
    expect(error).toBeInstanceOf(CustodyError);
    expect(error).toMatchObject({ code: 'key_backend_mismatch' });
    expect((error as Error).message).toContain('"keyring" custody backend, but custody now runs "key-file"');
  });

  it('refuses a wrapped seed that does not unwrap', async () => {
    const { keyId } = custody.createSigningKey('identity');
    const other = custody.createSigningKey('identity').keyId;
    // A seed wrapped for one key id cannot be passed off as another's (key id is the AAD).
    db.prepare('UPDATE custody_keys SET wrapped_seed = (SELECT wrapped_seed FROM custody_keys WHERE key_id = ?) WHERE key_id = ?').run(other, keyId);
    await restart();
    expect(thrown(() => custody.sign(keyId, MESSAGE))).toMatchObject({ code: 'key_unwrap_failed' });
  });

  it('needs a database before key operations, and nothing after close', async () => {
    const loose = await Custody.open({ dataDir: join(root, 'loose'), backend: 'key-file', env: {}, warn: () => {} });
    expect(thrown(() => loose.createSigningKey('identity'))).toMatchObject({ code: 'not_attached' });
    loose.close();
    expect(thrown(() => loose.databaseKey())).toMatchObject({ code: 'closed' });

    const { keyId } = custody.createSigningKey('identity');
    custody.close();
    expect(thrown(() => custody.sign(keyId, MESSAGE))).toMatchObject({ code: 'closed' });
  });
});
