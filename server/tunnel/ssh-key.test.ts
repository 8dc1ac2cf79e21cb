import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import ssh2 from 'ssh2';
import type { ParsedKey } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { authorizedKeysLine, custodyAgent, sshEd25519PublicBlob, type SshSigner } from './ssh-key.ts';

/** A signer over a throwaway Ed25519 key, standing in for custody. */
function testSigner(): SshSigner & { publicKeyObject: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  return { publicKey: () => raw, sign: (data) => sign(null, data, privateKey), publicKeyObject: publicKey };
}

function parsed(key: Buffer | string): ParsedKey {
  const result = ssh2.utils.parseKey(key);
  if (result instanceof Error) throw result;
  return result;
}

function identitiesOf(agent: ReturnType<typeof custodyAgent>): Promise<ParsedKey[]> {
  return new Promise((resolve, reject) => {
    agent.getIdentities((error, keys) => (error ? reject(error) : resolve((keys ?? []) as ParsedKey[])));
  });
}

function signWith(agent: ReturnType<typeof custodyAgent>, key: ParsedKey, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    agent.sign(key, data, {}, (error, signature) => (error || !signature ? reject(error) : resolve(signature)));
  });
}

describe('sshEd25519PublicBlob', () => {
  it('encodes string "ssh-ed25519" then string key, which ssh2 parses back to the same key', () => {
    const raw = testSigner().publicKey();
    const blob = sshEd25519PublicBlob(raw);
    expect(blob.length).toBe(4 + 11 + 4 + 32);
    expect(blob.readUInt32BE(0)).toBe(11);
    expect(blob.subarray(4, 15).toString()).toBe('ssh-ed25519');
    expect(blob.readUInt32BE(15)).toBe(32);
    expect(blob.subarray(19)).toEqual(raw);
    const key = parsed(blob);
    expect(key.type).toBe('ssh-ed25519');
    expect(key.getPublicSSH()).toEqual(blob);
  });

  it('refuses a public key that is not 32 bytes', () => {
    expect(() => sshEd25519PublicBlob(Buffer.alloc(31))).toThrow(/32 bytes/);
  });
});

describe('authorizedKeysLine', () => {
  it('is an authorized_keys line ssh2 parses to the same key and comment', () => {
    const raw = testSigner().publicKey();
    const line = authorizedKeysLine(raw, 'svc-node tunnel');
    expect(line).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]+=* svc-node tunnel$/);
    const key = parsed(line);
    expect(key.type).toBe('ssh-ed25519');
    expect(key.comment).toBe('svc-node tunnel');
    expect(key.getPublicSSH()).toEqual(sshEd25519PublicBlob(raw));
  });

  it('keeps the line on one line when the comment has line breaks, and drops an empty comment', () => {
    const raw = testSigner().publicKey();
    expect(authorizedKeysLine(raw, 'a\nb')).toMatch(/ a b$/);
    expect(authorizedKeysLine(raw, '  ').split(' ')).toHaveLength(2);
  });
});

describe('custodyAgent', () => {
  it('offers exactly the signer public key', async () => {
    const signer = testSigner();
    const keys = await identitiesOf(custodyAgent(signer));
    expect(keys).toHaveLength(1);
    expect(keys[0]?.getPublicSSH()).toEqual(sshEd25519PublicBlob(signer.publicKey()));
  });

  it('signs through the signer with a 64-byte Ed25519 signature that verifies against the public key', async () => {
    const signer = testSigner();
    const agent = custodyAgent(signer);
    const [key] = await identitiesOf(agent);
    if (!key) throw new Error('no identity');
    const data = Buffer.from('session id and userauth request');
    const signature = await signWith(agent, key, data);
    expect(signature).toHaveLength(64);
    expect(verify(null, data, signer.publicKeyObject, signature)).toBe(true);
    expect(key.verify(data, signature)).toBe(true);
  });

  it('refuses to sign for a key it does not hold', async () => {
    const agent = custodyAgent(testSigner());
    const stranger = parsed(sshEd25519PublicBlob(testSigner().publicKey()));
    await expect(signWith(agent, stranger, Buffer.from('x'))).rejects.toThrow(/does not hold/);
  });
});
