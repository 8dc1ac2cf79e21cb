/**
 * The two encodings of the E2EE contract: binary fields are standard base64 without padding, and
 * hashes are `sha256:` followed by the same base64 of the SHA-256 digest (not the hex the rest of
 * the node uses), as upstream's e2e-messaging-contract.md ("Cryptographic Suite") fixes them.
 * Contract timestamps are RFC 3339 UTC at second precision.
 */
import { sha256 } from '../encoding.ts';
import { fromBase64Unpadded, toBase64Unpadded } from '../encoding.ts';
import { parseRfc3339 } from '../timestamp.ts';

const HASH_PREFIX = 'sha256:';

export { fromBase64Unpadded as decodeRaw, toBase64Unpadded as encodeRaw };

/** `sha256:` + base64 (unpadded) of the digest of `bytes`. */
export function contractHash(bytes: Uint8Array): string {
  return HASH_PREFIX + toBase64Unpadded(sha256(bytes));
}

/** True when `value` is `sha256:` followed by the unpadded base64 of 32 bytes. */
export function isContractHash(value: unknown): value is string {
  if (typeof value !== 'string' || !value.startsWith(HASH_PREFIX)) return false;
  return fromBase64Unpadded(value.slice(HASH_PREFIX.length))?.length === 32;
}

/** Milliseconds since the epoch of a contract timestamp, or null. */
export function parseContractTime(value: unknown): number | null {
  return parseRfc3339(value);
}

/** A time as the contract's builders write it: UTC, whole seconds, `Z`. */
export function formatContractTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
