import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { didKeyFromPublicKey, isDidKey, publicKeyFromDidKey } from './did-key.ts';

const publicKey = Buffer.from('03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8', 'hex');
const didKey = 'did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd';

describe('did:key', () => {
  it('encodes and decodes an Ed25519 public key', () => {
    expect(didKeyFromPublicKey(publicKey)).toBe(didKey);
    expect(Buffer.from(publicKeyFromDidKey(didKey) as Uint8Array)).toEqual(publicKey);
    expect(isDidKey(didKey)).toBe(true);
  });

  it('refuses other methods, multibase prefixes, multicodecs and lengths', () => {
    expect(publicKeyFromDidKey('did:svc:2CiZ88hVF4JuQim8nnSuyeiV2HF2')).toBeNull();
    expect(publicKeyFromDidKey(didKey.replace('did:key:z', 'did:key:f'))).toBeNull();
    expect(publicKeyFromDidKey(`did:key:z${base58.encode(Uint8Array.of(0xe7, 0x01, ...publicKey))}`)).toBeNull();
    expect(publicKeyFromDidKey(`did:key:z${base58.encode(Uint8Array.of(0xed, 0x01, ...publicKey.subarray(1)))}`)).toBeNull();
    expect(publicKeyFromDidKey('did:key:z0OIl')).toBeNull();
    expect(isDidKey(42)).toBe(false);
    expect(() => didKeyFromPublicKey(publicKey.subarray(1))).toThrow(RangeError);
  });
});
