import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Database } from '../store/database.ts';
import { Custody } from './custody.ts';
import { wipeKeyMaterial } from './key-material.ts';

let root: string;
const opened: { custody: Custody; db: Database }[] = [];

async function node(name: string): Promise<Custody> {
  const dataDir = join(root, name);
  const custody = await Custody.open({ dataDir, backend: 'key-file', env: {}, warn: () => {} });
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
  opened.push({ custody, db });
  return custody;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-merge-keys-'));
});

afterEach(() => {
  for (const { custody, db } of opened.splice(0)) {
    custody.close();
    closeDatabase(db);
  }
  rmSync(root, { recursive: true, force: true });
});

function merge(into: Custody, from: Custody): number {
  const keys = from.recoveryKeys();
  try {
    return into.mergeKeys(keys);
  } finally {
    wipeKeyMaterial(keys);
  }
}

describe('keys from another device of the node', () => {
  it('are installed when new, and then sign here as there', async () => {
    const a = await node('a');
    const b = await node('b');
    const key = a.createSigningKey('identity');
    const encryption = a.createEncryptionKey();
    expect(merge(b, a)).toBe(2);
    expect(b.didKey(key.keyId)).toBe(key.didKey);
    expect(b.encryptionPublicKey(encryption.keyId)).toEqual(encryption.publicKey);
    expect(merge(b, a)).toBe(0);
  });

  it('never bring back a key destroyed or archived here, and carry a destruction or archiving made there', async () => {
    const a = await node('a');
    const b = await node('b');
    const gone = a.createSigningKey('identity');
    const old = a.createEncryptionKey();
    merge(b, a);
    // Destroyed and archived on b; a's copy still says held and current.
    b.destroyKey(gone.keyId);
    b.archiveEncryptionKey(old.keyId);
    expect(merge(b, a)).toBe(0);
    expect(b.canSign(gone.keyId)).toBe(false);
    // And the other way: a takes b's destruction and archiving.
    expect(merge(a, b)).toBe(2);
    expect(a.canSign(gone.keyId)).toBe(false);
    expect(a.heldKeyIds().signing).not.toContain(gone.keyId);
  });
});
