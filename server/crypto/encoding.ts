/**
 * The byte encodings the wire uses, each in one place, as upstream's clients decode them
 * (docs/adr/0001-upstream-wire-primitives.md): signatures are standard base64 without padding
 * (upstream's Go client refuses padding, its TypeScript client the URL-safe alphabet),
 * certificates standard base64 with padding, signed payload headers base64url without padding,
 * hashes lowercase hex SHA-256.
 */
import { createHash } from 'node:crypto';

const STD_UNPADDED = /^[A-Za-z0-9+/]*$/;
const URL_UNPADDED = /^[A-Za-z0-9_-]*$/;

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

const bodyDigests = new WeakMap<Uint8Array, string>();

/**
 * sha256Hex of a request body, computed once per body buffer: team auth checks the envelope's
 * body_sha256 and the document store records the same digest, and a megabyte body costs
 * milliseconds to hash. Request bodies are never mutated once parsed.
 */
export function bodySha256Hex(body: Uint8Array): string {
  let digest = bodyDigests.get(body);
  if (digest === undefined) {
    digest = sha256Hex(body);
    bodyDigests.set(body, digest);
  }
  return digest;
}

export function sha256(data: string | Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

/** Standard alphabet, no `=` padding: every Ed25519 signature on the wire. */
export function toBase64Unpadded(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/=+$/, '');
}

/**
 * Strict decoder for unpadded standard base64; returns null for anything else, including a
 * non-canonical spelling (stray trailing bits), so one signature has exactly one text form.
 */
export function fromBase64Unpadded(text: string): Buffer | null {
  if (!STD_UNPADDED.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64');
  return toBase64Unpadded(bytes) === text ? bytes : null;
}

/** base64url without padding: the signed-payload header. */
export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Strict decoder for unpadded base64url; a value containing `=` (or any other character) is null. */
export function fromBase64Url(text: string): Buffer | null {
  if (!URL_UNPADDED.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64url');
  return toBase64Url(bytes) === text ? bytes : null;
}

/** Standard base64 with padding: the team certificate header. */
export function toBase64Padded(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** Decodes standard base64, with or without padding; null when the text is not base64. */
export function fromBase64Padded(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1) return null;
  return Buffer.from(text, 'base64');
}
