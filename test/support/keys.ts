/**
 * Keys that live outside the node (a namespace controller, a self-custodial client), and the
 * DIDKey request headers they sign.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJsonBytes } from '../../server/crypto/canonical-json.ts';
import { didKeyFromPublicKey } from '../../server/crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from '../../server/crypto/ed25519.ts';
import { toBase64Unpadded } from '../../server/crypto/encoding.ts';

export interface TestKey {
  seed: Buffer;
  publicKey: Buffer;
  didKey: string;
  sign(message: Uint8Array): string;
}

export function testKey(seed: Buffer = randomBytes(32)): TestKey {
  const privateKey = privateKeyFromSeed(seed);
  const publicKey = rawPublicKey(privateKey);
  return {
    seed,
    publicKey,
    didKey: didKeyFromPublicKey(publicKey),
    sign: (message) => toBase64Unpadded(signBytes(privateKey, message)),
  };
}

/** RFC 3339 UTC, second precision, `offsetSeconds` from now. */
export function timestamp(offsetSeconds = 0): string {
  return new Date(Date.now() + offsetSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const usedTimestamps = new Set<string>();

/**
 * A second-precision timestamp inside the ±300 s window that this process has not handed out
 * before. The node accepts each signature once and Ed25519 is deterministic, so two requests
 * signing the same fields in the same second would be one request replayed.
 */
export function freshTimestamp(): string {
  for (let offset = 0; offset > -240; offset--) {
    const at = timestamp(offset);
    if (!usedTimestamps.has(at)) {
      usedTimestamps.add(at);
      return at;
    }
  }
  throw new Error('no unused timestamp left in the window');
}

/** Authorization + X-SVC-Timestamp for a namespace operation signed by `key`. */
export function didKeyHeaders(key: TestKey, fields: Record<string, string>, at = freshTimestamp()): Record<string, string> {
  const signature = key.sign(canonicalJsonBytes({ ...fields, timestamp: at }));
  return { authorization: `DIDKey ${key.didKey} ${signature}`, 'x-svc-timestamp': at };
}
