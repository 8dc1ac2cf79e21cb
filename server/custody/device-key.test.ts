import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { ephemeralAgreement } from '../crypto/e2ee/x25519.ts';
import { closeDatabase, openDatabase, type Database } from '../store/database.ts';
import { Custody } from './custody.ts';
import { DeviceKeys, newDeviceSecret } from './device-key.ts';

let root: string;
const opened: { custody: Custody; db: Database }[] = [];

async function open(name: string): Promise<{ custody: Custody; db: Database }> {
  const dataDir = join(root, name);
  const custody = await Custody.open({ dataDir, backend: 'key-file', env: {}, warn: () => {} });
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
  opened.push({ custody, db });
  return { custody, db };
}

function close(): void {
  for (const { custody, db } of opened.splice(0)) {
    custody.close();
    closeDatabase(db);
  }
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-device-key-'));
});

afterEach(() => {
  close();
  rmSync(root, { recursive: true, force: true });
});

describe("a device's own keys", () => {
  it('are made once and kept across restarts; they sign, and agree as their public key says', async () => {
    const first = (await open('a')).custody.deviceKeys();
    close();
    const { custody } = await open('a');
    expect(custody.deviceKeys()).toEqual(first);
    const signature = custody.deviceSign(Buffer.from('hello'));
    expect(verifyBytes(publicKeyFromDidKey(first.signKey)!, Buffer.from('hello'), signature)).toBe(true);
    const peer = ephemeralAgreement();
    expect(custody.deviceAgreement().agree(peer.publicKey)).toEqual(peer.agree(first.boxKey));
  });

  it('are the keys of the secret a joining device made, once custody takes it', async () => {
    const secret = newDeviceSecret();
    const expected = new DeviceKeys(secret);
    const { custody } = await open('b');
    custody.replaceDeviceSecret(secret);
    expect(custody.deviceKeys()).toEqual({ signKey: expected.signKey, boxKey: expected.boxKey });
  });

  it('are new after a replacement without a secret (a node made from a kit and a backup is a new device)', async () => {
    const { custody } = await open('c');
    const before = custody.deviceKeys();
    custody.replaceDeviceSecret();
    expect(custody.deviceKeys().signKey).not.toBe(before.signKey);
  });

  it('are not among the keys a recovery kit or a keys bundle carries', async () => {
    const { custody } = await open('d');
    const { signKey } = custody.deviceKeys();
    const keys = custody.recoveryKeys();
    expect(keys.signing.map((key) => key.did_key)).not.toContain(signKey);
  });
});
