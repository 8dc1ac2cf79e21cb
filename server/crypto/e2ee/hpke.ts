/**
 * HPKE (RFC 9180) base mode with DHKEM(X25519, HKDF-SHA256) and HKDF-SHA256: the key wrap of the
 * E2EE v2 envelope, whose suite fixes the AEAD to AES-256-GCM.
 *
 * Written on node:crypto primitives. HKDF is built from HMAC here because RFC 9180's
 * LabeledExtract and LabeledExpand prefix the label and suite to the key material and the info
 * themselves: `hkdfSync` would run both halves of HKDF on unlabelled input. KEM and KDF are the
 * only ones implemented; the AEAD is a parameter so RFC 9180's published vectors for the same KEM
 * and KDF (Appendix A.1 uses AES-128-GCM) check this code independently of upstream's.
 */
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { agreementFromPrivateKey, ephemeralAgreement, type X25519Agreement, X25519_KEY_LENGTH } from './x25519.ts';

export interface HpkeSuite {
  readonly aeadId: number;
  readonly cipher: 'aes-128-gcm' | 'aes-256-gcm';
  /** Nk: the AEAD key length. */
  readonly keyLength: number;
}

const KEM_ID = 0x0020; // DHKEM(X25519, HKDF-SHA256)
const KDF_ID = 0x0001; // HKDF-SHA256
const HASH_LENGTH = 32; // Nh
const NONCE_LENGTH = 12; // Nn
const TAG_LENGTH = 16; // Nt
const MODE_BASE = 0x00;
const VERSION_LABEL = Buffer.from('HPKE-v1');

/** The E2EE v2 key wrap: `hpke-base-x25519-hkdf-sha256-aes256gcm`. */
export const HPKE_X25519_SHA256_AES256GCM: HpkeSuite = { aeadId: 0x0002, cipher: 'aes-256-gcm', keyLength: 32 };
/** RFC 9180 Appendix A.1's suite: here only to run the RFC's vectors. */
export const HPKE_X25519_SHA256_AES128GCM: HpkeSuite = { aeadId: 0x0001, cipher: 'aes-128-gcm', keyLength: 16 };

const u16 = (n: number): Buffer => Buffer.of(n >> 8, n & 0xff);
const KEM_SUITE_ID = Buffer.concat([Buffer.from('KEM'), u16(KEM_ID)]);
const hpkeSuiteId = (suite: HpkeSuite): Buffer => Buffer.concat([Buffer.from('HPKE'), u16(KEM_ID), u16(KDF_ID), u16(suite.aeadId)]);

/** RFC 5869 Extract; an empty salt is Nh zero bytes (HMAC pads its key with zeros, so both spell the same key). */
function extract(salt: Uint8Array, ikm: Uint8Array): Buffer {
  return createHmac('sha256', salt.length > 0 ? salt : Buffer.alloc(HASH_LENGTH))
    .update(ikm)
    .digest();
}

/** RFC 5869 Expand. */
function expand(prk: Uint8Array, info: Uint8Array, length: number): Buffer {
  if (length > 255 * HASH_LENGTH) throw new RangeError('HKDF-Expand length too large');
  const blocks: Buffer[] = [];
  let previous = Buffer.alloc(0);
  for (let counter = 1; blocks.length * HASH_LENGTH < length; counter++) {
    previous = createHmac('sha256', prk).update(previous).update(info).update(Buffer.of(counter)).digest();
    blocks.push(previous);
  }
  return Buffer.concat(blocks).subarray(0, length);
}

export function labeledExtract(suiteId: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array): Buffer {
  return extract(salt, Buffer.concat([VERSION_LABEL, suiteId, Buffer.from(label), ikm]));
}

export function labeledExpand(suiteId: Uint8Array, prk: Uint8Array, label: string, info: Uint8Array, length: number): Buffer {
  return expand(prk, Buffer.concat([u16(length), VERSION_LABEL, suiteId, Buffer.from(label), info]), length);
}

/** DHKEM's ExtractAndExpand: the KEM shared secret from the DH output and `enc || pkRm`. */
function extractAndExpand(dh: Uint8Array, kemContext: Uint8Array): Buffer {
  const eaePrk = labeledExtract(KEM_SUITE_ID, Buffer.alloc(0), 'eae_prk', dh);
  return labeledExpand(KEM_SUITE_ID, eaePrk, 'shared_secret', kemContext, HASH_LENGTH);
}

export interface HpkeKeySchedule {
  sharedSecret: Buffer;
  keyScheduleContext: Buffer;
  secret: Buffer;
  key: Buffer;
  baseNonce: Buffer;
  exporterSecret: Buffer;
}

// Base mode has no psk_id, so its hash depends on the suite alone: computed once per suite.
const pskIdHashes = new WeakMap<HpkeSuite, Buffer>();
function pskIdHashOf(suite: HpkeSuite): Buffer {
  let hash = pskIdHashes.get(suite);
  if (!hash) {
    hash = labeledExtract(hpkeSuiteId(suite), Buffer.alloc(0), 'psk_id_hash', Buffer.alloc(0));
    pskIdHashes.set(suite, hash);
  }
  return hash;
}

/** KeySchedule in base mode (empty psk and psk_id). */
export function keySchedule(suite: HpkeSuite, sharedSecret: Buffer, info: Uint8Array): HpkeKeySchedule {
  const suiteId = hpkeSuiteId(suite);
  const empty = Buffer.alloc(0);
  const pskIdHash = pskIdHashOf(suite);
  const infoHash = labeledExtract(suiteId, empty, 'info_hash', info);
  const keyScheduleContext = Buffer.concat([Buffer.of(MODE_BASE), pskIdHash, infoHash]);
  const secret = labeledExtract(suiteId, sharedSecret, 'secret', empty);
  return {
    sharedSecret,
    keyScheduleContext,
    secret,
    key: labeledExpand(suiteId, secret, 'key', keyScheduleContext, suite.keyLength),
    baseNonce: labeledExpand(suiteId, secret, 'base_nonce', keyScheduleContext, NONCE_LENGTH),
    exporterSecret: labeledExpand(suiteId, secret, 'exp', keyScheduleContext, HASH_LENGTH),
  };
}

/** An HPKE context: one key, one base nonce, and the sequence number of the next message. */
export class HpkeContext {
  private sequence = 0;
  private readonly suite: HpkeSuite;
  readonly schedule: HpkeKeySchedule;

  constructor(suite: HpkeSuite, schedule: HpkeKeySchedule) {
    this.suite = suite;
    this.schedule = schedule;
  }

  private nextNonce(): Buffer {
    const nonce = Buffer.from(this.schedule.baseNonce);
    // XOR the sequence number into the nonce's low bytes; a JS number is exact far beyond any use here.
    let seq = this.sequence++;
    for (let i = NONCE_LENGTH - 1; seq > 0; i--, seq = Math.floor(seq / 256)) nonce[i]! ^= seq % 256;
    return nonce;
  }

  seal(aad: Uint8Array, plaintext: Uint8Array): Buffer {
    const cipher = createCipheriv(this.suite.cipher, this.schedule.key, this.nextNonce(), { authTagLength: TAG_LENGTH });
    cipher.setAAD(aad);
    return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  }

  /** Throws when the ciphertext does not authenticate. */
  open(aad: Uint8Array, ciphertext: Uint8Array): Buffer {
    if (ciphertext.length < TAG_LENGTH) throw new RangeError('HPKE ciphertext shorter than its tag');
    const body = ciphertext.subarray(0, ciphertext.length - TAG_LENGTH);
    const decipher = createDecipheriv(this.suite.cipher, this.schedule.key, this.nextNonce(), { authTagLength: TAG_LENGTH });
    decipher.setAAD(aad);
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_LENGTH));
    return Buffer.concat([decipher.update(body), decipher.final()]);
  }
}

export interface HpkeSender {
  /** The encapsulated key: the ephemeral public key, 32 bytes. */
  enc: Buffer;
  context: HpkeContext;
}

/**
 * SetupBaseS. The ephemeral key is fresh from the CSPRNG; `ephemeralPrivateKey` exists for the
 * RFC's vectors, which fix it.
 */
export function setupBaseSender(suite: HpkeSuite, recipientPublicKey: Uint8Array, info: Uint8Array, ephemeralPrivateKey?: Uint8Array): HpkeSender {
  if (recipientPublicKey.length !== X25519_KEY_LENGTH) throw new RangeError('HPKE recipient public key must be 32 bytes');
  const ephemeral = ephemeralPrivateKey ? agreementFromPrivateKey(ephemeralPrivateKey) : ephemeralAgreement();
  const dh = ephemeral.agree(recipientPublicKey);
  const enc = ephemeral.publicKey;
  const sharedSecret = extractAndExpand(dh, Buffer.concat([enc, recipientPublicKey]));
  return { enc, context: new HpkeContext(suite, keySchedule(suite, sharedSecret, info)) };
}

/** SetupBaseR: the recipient's private key stays behind `recipient.agree`. */
export function setupBaseRecipient(suite: HpkeSuite, enc: Uint8Array, recipient: X25519Agreement, info: Uint8Array): HpkeContext {
  if (enc.length !== X25519_KEY_LENGTH) throw new RangeError('HPKE encapsulated key must be 32 bytes');
  const dh = recipient.agree(enc);
  const sharedSecret = extractAndExpand(dh, Buffer.concat([enc, recipient.publicKey]));
  return new HpkeContext(suite, keySchedule(suite, sharedSecret, info));
}
