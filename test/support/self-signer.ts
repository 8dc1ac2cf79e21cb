/**
 * A self-custodial client written from the wire rules alone
 * (docs/adr/0001-upstream-wire-primitives.md,
 * docs/adr/0002-did-svc-identity-log-and-namespace-records.md,
 * docs/adr/0005-signed-messages-and-federation.md), with node:crypto's Ed25519 and its own
 * canonical JSON, base58 and envelope: none of the node's signing code, so a test that passes with
 * it shows the node agrees with an independent signer.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';

/** Keys sorted by code point at every level, no whitespace, literal UTF-8 (§1.3). */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest();
const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');

/** RFC 3339 UTC at second precision, `offsetSeconds` from now. */
export const nowSeconds = (offsetSeconds = 0) => new Date(Date.now() + offsetSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface SelfKey {
  publicKey: Buffer;
  didKey: string;
  didSvc: string;
  /** Unpadded standard base64 Ed25519 signature over the UTF-8 bytes of `text`. */
  sign(text: string): string;
}

export function selfKey(): SelfKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  return keyOf(privateKey);
}

/** PKCS#8 DER for an Ed25519 private key: this fixed prefix, then the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The key of a 32-byte seed (as a client keeps it on disk). */
export function selfKeyFromSeed(seed: Buffer): SelfKey {
  return keyOf(createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' }));
}

function keyOf(privateKey: KeyObject): SelfKey {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const publicKey = Buffer.from(jwk.x as string, 'base64url');
  return {
    publicKey,
    didKey: `did:key:z${base58(Buffer.concat([Buffer.from([0xed, 0x01]), publicKey]))}`,
    didSvc: `did:svc:${base58(sha256(publicKey).subarray(0, 20))}`,
    sign: (text) => sign(null, Buffer.from(text, 'utf8'), privateKey).toString('base64').replace(/=+$/, ''),
  };
}

// ------------------------------------------------------------------ the did:svc log (§2.1)

export interface SignedLogEntry {
  payload: Record<string, unknown>;
  entryHash: string;
  signature: string;
}

const stateHash = (didSvc: string, didKey: string) => sha256Hex(canonical({ current_did_key: didKey, did_aw: didSvc }));

/** The genesis entry, signed by the key it binds: the POST /v1/did body is `{...payload, proof}`. */
export function genesisEntry(key: SelfKey, at = nowSeconds()): SignedLogEntry {
  const payload = {
    authorized_by: key.didKey,
    did_aw: key.didSvc,
    new_did_key: key.didKey,
    operation: 'register_did',
    prev_entry_hash: null,
    previous_did_key: null,
    seq: 1,
    state_hash: stateHash(key.didSvc, key.didKey),
    timestamp: at,
  };
  const text = canonical(payload);
  return { payload, entryHash: sha256Hex(text), signature: key.sign(text) };
}

/** A rotate_key entry after `previous`, signed by the retiring key: the PUT body is the payload without did_aw, plus `signature`. */
export function rotationEntry(retiring: SelfKey, didSvc: string, previous: SignedLogEntry, next: SelfKey, at = nowSeconds()): SignedLogEntry {
  const payload = {
    authorized_by: retiring.didKey,
    did_aw: didSvc,
    new_did_key: next.didKey,
    operation: 'rotate_key',
    prev_entry_hash: previous.entryHash,
    previous_did_key: retiring.didKey,
    seq: (previous.payload.seq as number) + 1,
    state_hash: stateHash(didSvc, next.didKey),
    timestamp: at,
  };
  const text = canonical(payload);
  return { payload, entryHash: sha256Hex(text), signature: retiring.sign(text) };
}

// ------------------------------------------------------------------ messages (§4)

export interface Envelope {
  type: 'mail' | 'chat';
  from: string;
  to: string;
  body: string;
  subject?: string;
  to_did?: string;
  from_stable_id?: string | null;
  to_stable_id?: string | null;
  priority?: string;
  reply_to?: string;
  wait_seconds?: number;
  hang_on?: boolean;
  sender_leaving?: boolean;
}

/**
 * The transport fields of a client-signed send: eight fields always signed (to_did and subject
 * may be ""), the rest only when non-empty or true. `signer` defaults to `key`.
 */
export function signedFields(
  key: SelfKey,
  envelope: Envelope,
  options: { messageId?: string; at?: string; signer?: SelfKey; signingKeyId?: string } = {},
): Record<string, string> {
  const messageId = options.messageId ?? randomUUID();
  const at = options.at ?? nowSeconds();
  const signed: Record<string, unknown> = {
    body: envelope.body,
    from: envelope.from,
    from_did: key.didKey,
    subject: envelope.subject ?? '',
    timestamp: at,
    to: envelope.to,
    to_did: envelope.to_did ?? '',
    type: envelope.type,
    message_id: messageId,
  };
  for (const field of ['from_stable_id', 'to_stable_id', 'priority', 'reply_to'] as const) if (envelope[field]) signed[field] = envelope[field];
  if (envelope.wait_seconds !== undefined) signed.wait_seconds = envelope.wait_seconds;
  if (envelope.hang_on) signed.hang_on = true;
  if (envelope.sender_leaving) signed.sender_leaving = true;
  const payload = canonical(signed);
  return {
    message_id: messageId,
    timestamp: at,
    from_did: key.didKey,
    signing_key_id: options.signingKeyId ?? key.didKey,
    signed_payload: payload,
    signature: (options.signer ?? key).sign(payload),
  };
}
