/**
 * Identity-only messaging auth, as upstream's current clients send it when they present no team
 * certificate (docs/adr/0003-request-authentication.md): a DIDKey signature with
 * no team certificate, for the messaging routes only. The client signs canonical
 * `{body_sha256, did_aw, timestamp}` with the key in `Authorization: DIDKey <did:key> <sig>`;
 * `did_aw` is the optional `X-SVC-DID-AW` header's value, or "" when it sends none. Who the key
 * belongs to (the did:svc log, the identity on this node) is the caller's to check; this module
 * checks only the signature and the timestamp.
 */
import { canonicalJsonBytes } from '../crypto/canonical-json.ts';
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { bodySha256Hex } from '../crypto/encoding.ts';
import { unauthorized } from '../errors.ts';
import { parseDidKeyAuthorization, TIMESTAMP_HEADER } from './didkey.ts';
import { checkRequestTimestamp } from './timestamp.ts';

export const DID_AW_HEADER = 'x-svc-did-aw';
const SCHEME = 'DIDKey';
const EMPTY_BODY = new Uint8Array(0);

export interface IdentitySignedRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody?: Buffer | undefined;
}

export interface VerifiedIdentitySignature {
  didKey: string;
  /** The did:svc the client named in X-SVC-DID-AW; null when it named none. */
  didAw: string | null;
  signature: string;
}

function header(request: IdentitySignedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function verifyIdentitySignature(request: IdentitySignedRequest, now: Date): VerifiedIdentitySignature {
  const auth = parseDidKeyAuthorization(header(request, 'authorization'));
  if (!auth) throw unauthorized('SVC_ERR_AUTH_MISSING', 'Missing Authorization header', SCHEME);
  const timestamp = header(request, TIMESTAMP_HEADER);
  checkRequestTimestamp(timestamp, 'X-SVC-Timestamp', now, SCHEME);
  const didAw = header(request, DID_AW_HEADER) ?? '';
  const length = Number(header(request, 'content-length') ?? '0');
  if (request.rawBody === undefined && (length > 0 || header(request, 'transfer-encoding') !== undefined)) {
    throw unauthorized('SVC_ERR_SIGNATURE_INVALID', 'The request body could not be hashed for the signature', SCHEME);
  }
  const signed = canonicalJsonBytes({ body_sha256: bodySha256Hex(request.rawBody ?? EMPTY_BODY), did_aw: didAw, timestamp: timestamp as string });
  if (!verifyBytes(publicKeyFromDidKey(auth.didKey)!, signed, auth.signature))
    throw unauthorized('SVC_ERR_SIGNATURE_INVALID', 'Invalid DIDKey signature', SCHEME);
  return { didKey: auth.didKey, didAw: didAw === '' ? null : didAw, signature: auth.signatureText };
}
