/**
 * A second, independent implementation of upstream's E2EE v2 contract, written with node:crypto
 * alone (none of the node's code), so tests read an envelope the node makes with something that
 * is not the node, and hand the node envelopes it did not make.
 *
 * It follows upstream's e2e-messaging-contract.md as written: canonical JSON with sorted keys,
 * empty optional fields left out before signing and hashing, HPKE base mode (RFC 9180) with
 * DHKEM(X25519, HKDF-SHA256), HKDF-SHA256 and AES-256-GCM for the key wraps, and AES-256-GCM for
 * the content.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = { [key: string]: Json };

export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64').replace(/=+$/, '');
export const unb64 = (text: string): Buffer => Buffer.from(text, 'base64');
export const sha = (bytes: Uint8Array): string => `sha256:${b64(createHash('sha256').update(bytes).digest())}`;

export function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k]!)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
export const bytesOf = (value: Json): Buffer => Buffer.from(canonical(value), 'utf8');

/** Optional fields are omitted when empty, everywhere in the envelope. */
function dropEmpty(value: Json): Json {
  if (Array.isArray(value)) return value.map(dropEmpty);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === '' ? [] : [[k, dropEmpty(v)]])));
  }
  return value;
}

export function signedPart(envelope: Obj): Obj {
  const { signature: _signature, ...rest } = dropEmpty(envelope) as Obj;
  return rest;
}
function aadPart(envelope: Obj): Obj {
  const { ciphertext: _ciphertext, ...rest } = signedPart(envelope);
  const { ciphertext_hash: _hash, ...crypto } = rest.crypto as Obj;
  return { ...rest, crypto };
}

const X_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const X_SPKI = Buffer.from('302a300506032b656e032100', 'hex');
export const ED_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
export const ED_SPKI = Buffer.from('302a300506032b6570032100', 'hex');
export const xPriv = (raw: Buffer) => createPrivateKey({ key: Buffer.concat([X_PKCS8, raw]), format: 'der', type: 'pkcs8' });
export const xPub = (raw: Buffer) => createPublicKey({ key: Buffer.concat([X_SPKI, raw]), format: 'der', type: 'spki' });
export const rawX = (key: ReturnType<typeof xPriv>) => createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(12);

export const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
export function ed25519FromDidKey(did: string): ReturnType<typeof createPublicKey> {
  let n = 0n;
  for (const c of did.slice('did:key:z'.length)) n = n * 58n + BigInt(BASE58.indexOf(c));
  const bytes = Buffer.from(n.toString(16).padStart(68, '0'), 'hex');
  return createPublicKey({ key: Buffer.concat([ED_SPKI, bytes.subarray(2)]), format: 'der', type: 'spki' });
}

const hmac = (key: Uint8Array, ...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHmac('sha256', key)).digest();
const u16 = (n: number) => Buffer.of(n >> 8, n & 0xff);
const KEM_ID = Buffer.concat([Buffer.from('KEM'), u16(0x20)]);
const SUITE_ID = Buffer.concat([Buffer.from('HPKE'), u16(0x20), u16(1), u16(2)]);
const lextract = (suite: Buffer, salt: Buffer, label: string, ikm: Buffer) =>
  hmac(salt.length ? salt : Buffer.alloc(32), Buffer.from('HPKE-v1'), suite, Buffer.from(label), ikm);
function lexpand(suite: Buffer, prk: Buffer, label: string, info: Buffer, length: number): Buffer {
  const labeled = Buffer.concat([u16(length), Buffer.from('HPKE-v1'), suite, Buffer.from(label), info]);
  let t = Buffer.alloc(0);
  let out = Buffer.alloc(0);
  for (let i = 1; out.length < length; i++) out = Buffer.concat([out, (t = hmac(prk, t, labeled, Buffer.of(i)))]);
  return out.subarray(0, length);
}
function hpkeKey(dh: Buffer, enc: Buffer, pkR: Buffer, info: Buffer): { key: Buffer; nonce: Buffer } {
  const shared = lexpand(KEM_ID, lextract(KEM_ID, Buffer.alloc(0), 'eae_prk', dh), 'shared_secret', Buffer.concat([enc, pkR]), 32);
  const context = Buffer.concat([
    Buffer.of(0),
    lextract(SUITE_ID, Buffer.alloc(0), 'psk_id_hash', Buffer.alloc(0)),
    lextract(SUITE_ID, Buffer.alloc(0), 'info_hash', info),
  ]);
  const secret = lextract(SUITE_ID, shared, 'secret', Buffer.alloc(0));
  return { key: lexpand(SUITE_ID, secret, 'key', context, 32), nonce: lexpand(SUITE_ID, secret, 'base_nonce', context, 12) };
}
function gcm(key: Buffer, nonce: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const c = createCipheriv('aes-256-gcm', key, nonce).setAAD(aad);
  return Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]);
}
function ungcm(key: Buffer, nonce: Buffer, sealed: Buffer, aad: Buffer): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, nonce).setAAD(aad);
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([d.update(sealed.subarray(0, sealed.length - 16)), d.final()]);
}

function binding(envelope: Obj, wrap: Obj): Obj {
  const from = envelope.from as Obj;
  return dropEmpty({
    version: 'aweb-e2ee-wrap-v1',
    message_id: envelope.message_id!,
    conversation_id: envelope.conversation_id!,
    recipient_did: wrap.recipient_did ?? '',
    recipient_stable_id: wrap.recipient_stable_id ?? '',
    recipient_address: wrap.recipient_address ?? '',
    recipient_encryption_key_id: wrap.recipient_encryption_key_id!,
    sender_did: from.did!,
    sender_stable_id: from.stable_id ?? '',
    sender_encryption_key_id: from.encryption_key_id!,
    wrap_purpose: wrap.wrap_purpose!,
    suite: 'aweb-e2ee-v2.x25519-hkdf-sha256-aes256gcm-ed25519',
  }) as Obj;
}
const wrapInfo = (b: Obj) => Buffer.concat([Buffer.from('aweb-e2ee-v2 key-wrap\n'), bytesOf(b)]);
export const keyIdOf = (pub: Buffer) => sha(Buffer.concat([Buffer.from('aweb-e2ee-v2 encryption-key\n'), pub]));

/** Decrypts for the holder of `privateKey`: checks the signature, the hashes and the wrap id, then opens. */
export function independentDecrypt(envelope: Obj, privateKey: Buffer): Obj {
  const from = envelope.from as Obj;
  const crypto = envelope.crypto as Obj;
  if (!verify(null, bytesOf(signedPart(envelope)), ed25519FromDidKey(from.did as string), unb64(envelope.signature as string))) throw new Error('signature');
  const ciphertext = unb64(envelope.ciphertext as string);
  if (sha(ciphertext) !== crypto.ciphertext_hash || ciphertext.length !== crypto.ciphertext_size) throw new Error('ciphertext hash or size');
  if (sha(bytesOf(dropEmpty(envelope.key_wraps!))) !== crypto.key_wraps_hash) throw new Error('key_wraps_hash');
  const pub = rawX(xPriv(privateKey));
  const wrap = (envelope.key_wraps as Obj[]).find((w) => w.recipient_encryption_key_id === keyIdOf(pub));
  if (!wrap) throw new Error('not a recipient');
  const bound = binding(envelope, wrap);
  if (sha(bytesOf(bound)) !== wrap.wrap_id) throw new Error('wrap_id');
  const enc = unb64(wrap.encapsulated_key as string);
  const { key, nonce } = hpkeKey(diffieHellman({ privateKey: xPriv(privateKey), publicKey: xPub(enc) }), enc, pub, wrapInfo(bound));
  const cek = ungcm(key, nonce, unb64(wrap.wrapped_cek as string), Buffer.alloc(0));
  const inner = JSON.parse(ungcm(cek, unb64(crypto.content_nonce as string), ciphertext, bytesOf(aadPart(envelope))).toString('utf8')) as Obj;
  const { subject: _subject, body: _body, ...header } = inner;
  if (sha(bytesOf(header)) !== crypto.inner_header_hash) throw new Error('inner_header_hash');
  return inner;
}

export interface Party {
  address: string;
  did: string;
  signingKey: ReturnType<typeof createPrivateKey>;
  encryptionPublicKey: Buffer;
}

/** Encrypts a mail from `sender` to `recipient` the way the contract describes it. */
export function independentEncrypt(sender: Party, recipient: Party, subject: string, body: string, now: Date): Obj {
  const time = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const created = time(now.getTime());
  const from = { address: sender.address, did: sender.did, encryption_key_id: keyIdOf(sender.encryptionPublicKey) };
  const to = { address: recipient.address, did: recipient.did, encryption_key_id: keyIdOf(recipient.encryptionPublicKey) };
  const envelope: Obj = { message_id: randomBytes(8).toString('hex'), conversation_id: randomBytes(8).toString('hex'), from };
  const inner = { inner_version: 2, kind: 'mail', message_id: envelope.message_id!, conversation_id: envelope.conversation_id!, created_at: created };
  const innerFull = { ...inner, from: { address: sender.address, did: sender.did }, recipients: [{ address: recipient.address, did: recipient.did }] };
  const cek = randomBytes(32);
  const wraps = [
    { ...to, purpose: 'delivery', key: recipient.encryptionPublicKey },
    { ...from, purpose: 'sender_copy', key: sender.encryptionPublicKey },
  ].map(({ address, did, encryption_key_id, purpose, key }) => {
    const wrap: Obj = { recipient_address: address, recipient_did: did, recipient_encryption_key_id: encryption_key_id, wrap_purpose: purpose };
    const bound = binding(envelope, wrap);
    const ephemeral = generateKeyPairSync('x25519');
    const enc = rawX(ephemeral.privateKey);
    const { key: k, nonce } = hpkeKey(diffieHellman({ privateKey: ephemeral.privateKey, publicKey: xPub(key) }), enc, key, wrapInfo(bound));
    return {
      ...wrap,
      wrap_id: sha(bytesOf(bound)),
      sender_did: sender.did,
      sender_encryption_key_id: from.encryption_key_id,
      algorithm: 'hpke-base-x25519-hkdf-sha256-aes256gcm',
      encapsulated_key: b64(enc),
      wrapped_cek: b64(gcm(k, nonce, cek, Buffer.alloc(0))),
    } as Obj;
  });
  const plaintext = bytesOf({ ...innerFull, subject, body });
  const nonce = randomBytes(12);
  Object.assign(envelope, {
    message_version: 2,
    envelope_type: 'aweb.e2ee.message',
    kind: 'mail',
    created_at: created,
    expires_at: time(now.getTime() + 5 * 60_000),
    recipients: [{ ...to, wrap_id: wraps[0]!.wrap_id! }],
    routing: { to: recipient.address, to_did: recipient.did },
    policy: { requires_e2ee: true, legacy_plaintext_allowed: false },
    crypto: {
      suite: 'aweb-e2ee-v2.x25519-hkdf-sha256-aes256gcm-ed25519',
      content_nonce: b64(nonce),
      ciphertext_size: plaintext.length + 16,
      inner_header_hash: sha(bytesOf(innerFull)),
      key_wraps_hash: sha(bytesOf(wraps)),
    },
    key_wraps: wraps,
    signing_key_id: sender.did,
  });
  const ciphertext = gcm(cek, nonce, plaintext, bytesOf(aadPart(envelope)));
  envelope.ciphertext = b64(ciphertext);
  (envelope.crypto as Obj).ciphertext_hash = sha(ciphertext);
  envelope.signature = b64(sign(null, bytesOf(signedPart(envelope)), sender.signingKey));
  return envelope;
}

/** Whether the envelope's signature verifies with the Ed25519 key of its `from.did`. */
export function independentSignatureVerifies(envelope: Obj): boolean {
  const from = envelope.from as Obj;
  return verify(null, bytesOf(signedPart(envelope)), ed25519FromDidKey(from.did as string), unb64(envelope.signature as string));
}
