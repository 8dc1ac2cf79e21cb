import { describe, it, expect } from 'vitest';
import { DID_METHOD, isStableId, stableIdFromDidKey, stableIdFromPublicKey } from './stable-id.ts';

// RFC 8032-style seed 00..1f; values published with the upstream vectors.
const PUBLIC_KEY = Buffer.from('03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8', 'hex');
const DID_KEY = 'did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd';
const SUFFIX = '2CiZ88hVF4JuQim8nnSuyeiV2HF2';

describe('stableIdFromPublicKey', () => {
  it('defaults to the svc method', () => {
    expect(DID_METHOD).toBe('svc');
    expect(stableIdFromPublicKey(PUBLIC_KEY)).toBe(`did:svc:${SUFFIX}`);
  });

  it('keeps the suffix and swaps only the method', () => {
    expect(stableIdFromPublicKey(PUBLIC_KEY, 'aw')).toBe(`did:aw:${SUFFIX}`);
  });

  it('derives from a did:key', () => {
    expect(stableIdFromDidKey(DID_KEY)).toBe(`did:svc:${SUFFIX}`);
    expect(stableIdFromDidKey('did:key:zBadKey')).toBeNull();
  });

  it('refuses keys of the wrong length and odd methods', () => {
    expect(() => stableIdFromPublicKey(PUBLIC_KEY.subarray(0, 31))).toThrow(RangeError);
    expect(() => stableIdFromPublicKey(PUBLIC_KEY, 'A:b')).toThrow(RangeError);
  });
});

describe('isStableId', () => {
  it('accepts a well-formed id for its method only', () => {
    expect(isStableId(`did:svc:${SUFFIX}`)).toBe(true);
    expect(isStableId(`did:aw:${SUFFIX}`, 'aw')).toBe(true);
    expect(isStableId(`did:aw:${SUFFIX}`)).toBe(false);
    expect(isStableId(`did:svc:${SUFFIX}`, 'aw')).toBe(false);
    expect(isStableId(`DID:svc:${SUFFIX}`)).toBe(false);
  });

  it('refuses malformed base58 and wrong lengths', () => {
    expect(isStableId('did:svc:')).toBe(false);
    expect(isStableId('did:svc:0OIl')).toBe(false); // characters outside the base58 alphabet
    expect(isStableId(`did:svc:${SUFFIX}x`)).toBe(false); // decodes to 21 bytes
    expect(isStableId(`did:svc:${SUFFIX.slice(0, -4)}`)).toBe(false); // at most 18 bytes
    expect(isStableId('did:svc:WsPUbr9PzoJKNvBcQ5xRys6wJS7')).toBe(true); // 27 chars, still 20 bytes
    expect(isStableId(`did:svc:${'z'.repeat(200)}`)).toBe(false);
    expect(isStableId(42)).toBe(false);
  });
});
