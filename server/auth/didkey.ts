/**
 * DIDKey request signatures (spec §5 mode 2): `Authorization: DIDKey <did:key> <signature>` plus
 * `X-SVC-Timestamp`. The signer signs the canonical JSON of structured fields (domain, name,
 * operation, timestamp), not the body. Every such operation is a write: what a repeated
 * signature gets (the first answer of the identical request, a refusal for another) is decided by
 * the route with the replay cache (http/signed-writes.ts), after the signature verified.
 */
import { canonicalJsonBytes } from '../crypto/canonical-json.ts';
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { fromBase64Unpadded } from '../crypto/encoding.ts';
import { unauthorized } from '../errors.ts';
import { checkRequestTimestamp } from './timestamp.ts';

export const TIMESTAMP_HEADER = 'x-svc-timestamp';
const SCHEME = 'DIDKey';

export interface DidKeyAuthorization {
  didKey: string;
  signature: Buffer;
  signatureText: string;
}

/** Splits a DIDKey Authorization header; null when the header is absent. */
export function parseDidKeyAuthorization(header: string | undefined): DidKeyAuthorization | null {
  if (header === undefined) return null;
  const parts = header.split(' ');
  if (parts.length !== 3 || parts[0] !== SCHEME) {
    throw unauthorized('SVC_ERR_AUTH_INVALID', 'Authorization must be: DIDKey <did:key> <signature>', SCHEME);
  }
  const [, didKey = '', signatureText = ''] = parts;
  if (!publicKeyFromDidKey(didKey)) throw unauthorized('SVC_ERR_AUTH_INVALID', 'Authorization did:key is not an Ed25519 did:key', SCHEME);
  const signature = fromBase64Unpadded(signatureText);
  if (!signature || signature.length !== 64) {
    throw unauthorized('SVC_ERR_AUTH_INVALID', 'Authorization signature must be 64 bytes of unpadded standard base64', SCHEME);
  }
  return { didKey, signature, signatureText };
}

export interface SignedOperationRequest {
  headers: Record<string, string | string[] | undefined>;
}

function header(request: SignedOperationRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A verified operation: who signed it, and the signature (the key of what it did). */
export interface SignedOperation {
  didKey: string;
  signature: string;
}

/**
 * Verifies a DIDKey-signed operation and returns the signer's did:key. The caller decides
 * whether that signer may perform the operation (403 when not).
 */
export function verifySignedOperation(request: SignedOperationRequest, fields: Record<string, string>, options: { now: Date }): SignedOperation {
  const auth = parseDidKeyAuthorization(header(request, 'authorization'));
  if (!auth) throw unauthorized('SVC_ERR_AUTH_MISSING', 'Missing Authorization header', SCHEME);
  const timestamp = header(request, TIMESTAMP_HEADER);
  checkRequestTimestamp(timestamp, 'X-SVC-Timestamp', options.now, SCHEME);
  const message = canonicalJsonBytes({ ...fields, timestamp });
  const publicKey = publicKeyFromDidKey(auth.didKey) as Uint8Array;
  if (!verifyBytes(publicKey, message, auth.signature)) throw unauthorized('SVC_ERR_SIGNATURE_INVALID', 'Invalid signature', SCHEME);
  return { didKey: auth.didKey, signature: auth.signatureText };
}
