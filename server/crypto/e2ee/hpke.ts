/**
 * HPKE (RFC 9180) base mode with DHKEM(X25519, HKDF-SHA256) and HKDF-SHA256: the key wrap of the
 * E2EE v2 envelope, whose suite fixes the AEAD to AES-256-GCM.
 *
 * Written on node:crypto primitives. HKDF is built from HMAC here because RFC 9180's
 * LabeledExtract and LabeledExpand prefix the label and suite to the key material and the info
 * themselves: `hkdfSync` would run both halves of HKDF on unlabelled input. KEM and KDF are the
 * only ones implemented; the AEAD is a parameter so RFC 9180's published vectors for the same KEM
 * and KDF (Appendix A.1 uses AES-128-GCM) check this code independently of upstream's.
 *
 * A sealed send makes two wraps, so the key schedule is kept to what it needs: every Expand here
 * asks for at most Nh bytes, which is one HMAC; the labelled prefixes are built once; each HMAC
 * and AES key goes to node:crypto as a KeyObject, since handing it raw bytes costs about three
 * times the HMAC itself (node checks and converts the bytes on every call); and the exporter
 * secret, which key wraps never use, is derived only when asked for.
 */
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, type KeyObject } from 'node:crypto';
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
const EMPTY = Buffer.alloc(0);
const ONE = Buffer.of(1);
/** An empty salt is Nh zero bytes (HMAC pads its key with zeros, so both spell the same key). */
const ZERO_SALT = createSecretKey(Buffer.alloc(HASH_LENGTH));

function hmac(key: KeyObject, ...parts: Uint8Array[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** RFC 5869 Expand; up to Nh bytes it is the one HMAC of T(1). */
function expand(prk: KeyObject, info: Uint8Array, length: number): Buffer {
  if (length > 255 * HASH_LENGTH) throw new RangeError('HKDF-Expand length too large');
  if (length <= HASH_LENGTH) return hmac(prk, info, ONE).subarray(0, length);
  const blocks: Buffer[] = [];
  let previous: Buffer = EMPTY;
  for (let counter = 1; blocks.length * HASH_LENGTH < length; counter++) {
    previous = hmac(prk, previous, info, Buffer.of(counter));
    blocks.push(previous);
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/** `"HPKE-v1" || suite_id || label`, the prefix LabeledExtract puts before its key material. */
const extractPrefix = (suiteId: Uint8Array, label: string): Buffer => Buffer.concat([VERSION_LABEL, suiteId, Buffer.from(label)]);
/** `I2OSP(L, 2) || "HPKE-v1" || suite_id || label`, the prefix LabeledExpand puts before its info. */
const expandPrefix = (suiteId: Uint8Array, label: string, length: number): Buffer => Buffer.concat([u16(length), VERSION_LABEL, suiteId, Buffer.from(label)]);

const EAE_PRK = extractPrefix(KEM_SUITE_ID, 'eae_prk');
const SHARED_SECRET = expandPrefix(KEM_SUITE_ID, 'shared_secret', HASH_LENGTH);

/** DHKEM's ExtractAndExpand: the KEM shared secret from the DH output and `enc || pkRm`, two HMACs. */
function extractAndExpand(dh: Uint8Array, enc: Uint8Array, recipientPublicKey: Uint8Array): Buffer {
  const eaePrk = hmac(ZERO_SALT, EAE_PRK, dh);
  return hmac(createSecretKey(eaePrk), SHARED_SECRET, enc, recipientPublicKey, ONE);
}

export interface HpkeKeySchedule {
  sharedSecret: Buffer;
  keyScheduleContext: Buffer;
  secret: Buffer;
  key: Buffer;
  baseNonce: Buffer;
  exporterSecret: Buffer;
}

/** What the key schedule of one suite always uses: its labelled prefixes, and base mode's psk_id hash (no psk_id, so constant). */
interface SuiteConstants {
  pskIdHash: Buffer;
  infoHash: Buffer;
  secret: Buffer;
  key: Buffer;
  baseNonce: Buffer;
  exporter: Buffer;
}

const suiteConstants = new WeakMap<HpkeSuite, SuiteConstants>();
function constantsOf(suite: HpkeSuite): SuiteConstants {
  let constants = suiteConstants.get(suite);
  if (!constants) {
    const suiteId = hpkeSuiteId(suite);
    constants = {
      pskIdHash: hmac(ZERO_SALT, extractPrefix(suiteId, 'psk_id_hash')),
      infoHash: extractPrefix(suiteId, 'info_hash'),
      secret: extractPrefix(suiteId, 'secret'),
      key: expandPrefix(suiteId, 'key', suite.keyLength),
      baseNonce: expandPrefix(suiteId, 'base_nonce', NONCE_LENGTH),
      exporter: expandPrefix(suiteId, 'exp', HASH_LENGTH),
    };
    suiteConstants.set(suite, constants);
  }
  return constants;
}

/** KeySchedule in base mode (empty psk and psk_id): four HMACs, a fifth for the exporter secret when it is read. */
export function keySchedule(suite: HpkeSuite, sharedSecret: Buffer, info: Uint8Array): HpkeKeySchedule {
  const labels = constantsOf(suite);
  const infoHash = hmac(ZERO_SALT, labels.infoHash, info);
  const keyScheduleContext = Buffer.concat([Buffer.of(MODE_BASE), labels.pskIdHash, infoHash]);
  // LabeledExtract(shared_secret, "secret", psk) with the empty psk of base mode.
  const secret = hmac(createSecretKey(sharedSecret), labels.secret);
  const secretPrk = createSecretKey(secret);
  let exporterSecret: Buffer | undefined;
  return {
    sharedSecret,
    keyScheduleContext,
    secret,
    key: expand(secretPrk, Buffer.concat([labels.key, keyScheduleContext]), suite.keyLength),
    baseNonce: expand(secretPrk, Buffer.concat([labels.baseNonce, keyScheduleContext]), NONCE_LENGTH),
    get exporterSecret() {
      exporterSecret ??= expand(secretPrk, Buffer.concat([labels.exporter, keyScheduleContext]), HASH_LENGTH);
      return exporterSecret;
    },
  };
}

/** An HPKE context: one key, one base nonce, and the sequence number of the next message. */
export class HpkeContext {
  private sequence = 0;
  private readonly suite: HpkeSuite;
  private readonly key: KeyObject;
  readonly schedule: HpkeKeySchedule;

  constructor(suite: HpkeSuite, schedule: HpkeKeySchedule) {
    this.suite = suite;
    this.schedule = schedule;
    this.key = createSecretKey(schedule.key);
  }

  private nextNonce(): Buffer {
    const nonce = Buffer.from(this.schedule.baseNonce);
    // XOR the sequence number into the nonce's low bytes; a JS number is exact far beyond any use here.
    let seq = this.sequence++;
    for (let i = NONCE_LENGTH - 1; seq > 0; i--, seq = Math.floor(seq / 256)) nonce[i]! ^= seq % 256;
    return nonce;
  }

  seal(aad: Uint8Array, plaintext: Uint8Array): Buffer {
    const cipher = createCipheriv(this.suite.cipher, this.key, this.nextNonce(), { authTagLength: TAG_LENGTH });
    cipher.setAAD(aad);
    return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  }

  /** Throws when the ciphertext does not authenticate. */
  open(aad: Uint8Array, ciphertext: Uint8Array): Buffer {
    if (ciphertext.length < TAG_LENGTH) throw new RangeError('HPKE ciphertext shorter than its tag');
    const body = ciphertext.subarray(0, ciphertext.length - TAG_LENGTH);
    const decipher = createDecipheriv(this.suite.cipher, this.key, this.nextNonce(), { authTagLength: TAG_LENGTH });
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
  const sharedSecret = extractAndExpand(dh, enc, recipientPublicKey);
  return { enc, context: new HpkeContext(suite, keySchedule(suite, sharedSecret, info)) };
}

/** SetupBaseR: the recipient's private key stays behind `recipient.agree`. */
export function setupBaseRecipient(suite: HpkeSuite, enc: Uint8Array, recipient: X25519Agreement, info: Uint8Array): HpkeContext {
  if (enc.length !== X25519_KEY_LENGTH) throw new RangeError('HPKE encapsulated key must be 32 bytes');
  const dh = recipient.agree(enc);
  const sharedSecret = extractAndExpand(dh, enc, recipient.publicKey);
  return new HpkeContext(suite, keySchedule(suite, sharedSecret, info));
}
