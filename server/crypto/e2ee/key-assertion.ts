/**
 * The identity-signed encryption key assertion, `aweb-e2ee-key-v1`: an identity's Ed25519 key
 * vouching for its X25519 key (upstream's e2e-messaging-contract.md, "Identity Encryption Key
 * Assertion"). Registries, teams and nodes only distribute it; whoever uses the key verifies it
 * against the identity's current did:key, so no distributor can substitute a key.
 *
 * The signed bytes are the canonical JSON of every field but `signature`, with the optional ones
 * present only when non-empty (upstream's Python signs every present non-empty field; its Go signs
 * the same fixed set). `custody` is signed when present: the vector's assertions verify with it and
 * fail without it. Unknown fields are refused here, as upstream's server model refuses them, so
 * nothing unsigned can travel inside an assertion.
 */
import { canonicalJsonBytes } from '../canonical-json.ts';
import { publicKeyFromDidKey } from '../did-key.ts';
import { verifyBytes } from '../ed25519.ts';
import { contractHash, decodeRaw, encodeRaw, formatContractTime, parseContractTime } from './encoding.ts';
import { KeyAssertionError } from './errors.ts';
import { X25519_KEY_LENGTH } from './x25519.ts';

export const KEY_ASSERTION_OPERATION = 'publish_encryption_key';
export const KEY_ASSERTION_VERSION = 'aweb-e2ee-key-v1';
export const KEY_ALGORITHM = 'x25519';
/** Upstream's builders publish keys for 90 days. */
export const KEY_ASSERTION_LIFETIME_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * `self`: only the identity's own client can decrypt. `hosted_custodial`: the custody operator
 * can; clients may disclose that. Assertions made before the field existed omit it and are `self`.
 */
export type EncryptionKeyCustody = 'self' | 'hosted_custodial';
const CUSTODIES: readonly string[] = ['self', 'hosted_custodial'];

/** As received: the constant fields are plain strings until verifyKeyAssertion has checked them. */
export interface EncryptionKeyAssertion {
  operation: string;
  version: string;
  identity_did: string;
  identity_stable_id?: string;
  custody?: EncryptionKeyCustody;
  encryption_key_id: string;
  encryption_public_key: string;
  algorithm: string;
  created_at: string;
  not_before: string;
  expires_at: string;
  previous_encryption_key_id?: string;
  signature: string;
}

const REQUIRED = [
  'operation',
  'version',
  'identity_did',
  'encryption_key_id',
  'encryption_public_key',
  'algorithm',
  'created_at',
  'not_before',
  'expires_at',
  'signature',
] as const;
const OPTIONAL = ['identity_stable_id', 'custody', 'previous_encryption_key_id'] as const;
const KNOWN: ReadonlySet<string> = new Set([...REQUIRED, ...OPTIONAL]);

/** `sha256:` + base64 of SHA-256("aweb-e2ee-v2 encryption-key\n" || the raw public key). */
export function encryptionKeyId(rawPublicKey: Uint8Array): string {
  if (rawPublicKey.length !== X25519_KEY_LENGTH) throw new RangeError('X25519 public key must be 32 bytes');
  return contractHash(Buffer.concat([Buffer.from('aweb-e2ee-v2 encryption-key\n'), rawPublicKey]));
}

/**
 * Reads an assertion from parsed JSON: every required field a non-empty string, no unknown field.
 * `custody` and `previous_encryption_key_id` sent as "" are absent (upstream drops them before
 * signing); an empty `identity_stable_id` is refused, as upstream refuses it.
 */
export function parseKeyAssertion(value: unknown): EncryptionKeyAssertion {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new KeyAssertionError('encryption key assertion must be an object');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!KNOWN.has(key)) throw new KeyAssertionError(`encryption key assertion has an unknown field ${key}`);
  const out: Record<string, string> = {};
  for (const key of REQUIRED) {
    const field = record[key];
    if (typeof field !== 'string' || field.trim() === '') throw new KeyAssertionError(`encryption key assertion ${key} must be a non-empty string`);
    out[key] = field.trim();
  }
  for (const key of OPTIONAL) {
    const field = record[key];
    if (field === undefined || field === null) continue;
    if (typeof field !== 'string') throw new KeyAssertionError(`encryption key assertion ${key} must be a string`);
    if (field.trim() === '') {
      if (key === 'identity_stable_id') throw new KeyAssertionError('encryption key assertion must omit identity_stable_id rather than send it empty');
      continue;
    }
    out[key] = field.trim();
  }
  return out as unknown as EncryptionKeyAssertion;
}

/** The bytes the identity key signs: the canonical JSON of the assertion without `signature`. */
export function keyAssertionSigningBytes(assertion: Omit<EncryptionKeyAssertion, 'signature'> | EncryptionKeyAssertion): Buffer {
  const { signature: _signature, ...rest } = assertion as EncryptionKeyAssertion;
  return canonicalJsonBytes(rest);
}

export interface KeyAssertionFields {
  identityDid: string;
  identityStableId?: string | undefined;
  custody: EncryptionKeyCustody;
  publicKey: Uint8Array;
  previousEncryptionKeyId?: string | undefined;
  /** Creation time in ms; the assertion is valid from then for `lifetimeMs`. */
  now: number;
  lifetimeMs?: number;
}

/** Builds and signs an assertion; `sign` runs inside custody with the identity's Ed25519 key. */
export function buildKeyAssertion(fields: KeyAssertionFields, sign: (bytes: Buffer) => Uint8Array): EncryptionKeyAssertion {
  const created = formatContractTime(fields.now);
  const unsigned: Omit<EncryptionKeyAssertion, 'signature'> = {
    operation: KEY_ASSERTION_OPERATION,
    version: KEY_ASSERTION_VERSION,
    identity_did: fields.identityDid,
    ...(fields.identityStableId ? { identity_stable_id: fields.identityStableId } : {}),
    custody: fields.custody,
    encryption_key_id: encryptionKeyId(fields.publicKey),
    encryption_public_key: encodeRaw(fields.publicKey),
    algorithm: KEY_ALGORITHM,
    created_at: created,
    not_before: created,
    expires_at: formatContractTime(fields.now + (fields.lifetimeMs ?? KEY_ASSERTION_LIFETIME_MS)),
    ...(fields.previousEncryptionKeyId ? { previous_encryption_key_id: fields.previousEncryptionKeyId } : {}),
  };
  return { ...unsigned, signature: encodeRaw(sign(keyAssertionSigningBytes(unsigned))) };
}

export interface KeyAssertionExpectation {
  /** The identity's current Ed25519 did:key, from its log or its registration: the one key allowed to vouch. */
  currentDidKey: string;
  /** The identity's stable id when it has one; then the assertion must carry the same, otherwise none. */
  stableId?: string | null | undefined;
  /** The time the key is to be used at, in ms: now for a send, the envelope's created_at at ingestion. */
  now: number;
  /** When the caller knows how the identity's keys are kept; a hosted identity must say so. */
  expectedCustody?: EncryptionKeyCustody | undefined;
}

export interface VerifiedEncryptionKey {
  publicKey: Buffer;
  encryptionKeyId: string;
  custody: EncryptionKeyCustody;
  notBefore: number;
  expiresAt: number;
}

/** Verifies an assertion in upstream's order; throws KeyAssertionError naming the first failed rule. */
export function verifyKeyAssertion(assertion: EncryptionKeyAssertion, expect: KeyAssertionExpectation): VerifiedEncryptionKey {
  const key = checkKeyAssertion(assertion, expect);
  if (!keyAssertionSignatureValid(assertion)) throw new KeyAssertionError('invalid encryption key assertion signature');
  return key;
}

/**
 * What an assertion says that no expectation changes: whether its identity_did is an Ed25519
 * did:key, its public key and whether its id names it, and its times. Worked out once per
 * assertion by a caller that sees the same frozen one again (verified-key-assertions.ts); nothing
 * here throws, so the checks below keep their order whoever worked these out.
 */
export interface KeyAssertionFacts {
  signerValid: boolean;
  publicKey: Buffer | null;
  keyIdMatches: boolean;
  notBefore: number | null;
  expiresAt: number | null;
  createdAt: number | null;
}

export function keyAssertionFacts(assertion: EncryptionKeyAssertion): KeyAssertionFacts {
  const decoded = decodeRaw(assertion.encryption_public_key);
  const publicKey = decoded?.length === X25519_KEY_LENGTH ? decoded : null;
  return {
    signerValid: publicKeyFromDidKey(assertion.identity_did) !== null,
    publicKey,
    keyIdMatches: publicKey !== null && assertion.encryption_key_id === encryptionKeyId(publicKey),
    notBefore: parseContractTime(assertion.not_before),
    expiresAt: parseContractTime(assertion.expires_at),
    createdAt: parseContractTime(assertion.created_at),
  };
}

/**
 * Every rule of verifyKeyAssertion but the last, the Ed25519 signature: the rules that depend on
 * the time and on who the identity is now, all cheap. A cache of signatures already verified
 * (verified-key-assertions.ts) runs these each time and the signature check once, with the
 * assertion's facts worked out once too.
 */
export function checkKeyAssertion(
  assertion: EncryptionKeyAssertion,
  expect: KeyAssertionExpectation,
  facts: KeyAssertionFacts = keyAssertionFacts(assertion),
): VerifiedEncryptionKey {
  if (assertion.operation !== KEY_ASSERTION_OPERATION) throw new KeyAssertionError('encryption key assertion operation must be publish_encryption_key');
  if (assertion.version !== KEY_ASSERTION_VERSION) throw new KeyAssertionError('unsupported encryption key assertion version');
  if (assertion.algorithm !== KEY_ALGORITHM) throw new KeyAssertionError('unsupported encryption key algorithm');
  if (assertion.custody !== undefined && !CUSTODIES.includes(assertion.custody)) throw new KeyAssertionError('unsupported encryption key custody');
  const custody = assertion.custody ?? 'self';
  if (expect.expectedCustody === 'hosted_custodial' && assertion.custody !== 'hosted_custodial') {
    throw new KeyAssertionError('a hosted custodial encryption key assertion must say so');
  }
  if (expect.expectedCustody && custody !== expect.expectedCustody) throw new KeyAssertionError('encryption key custody does not match the identity');

  if (assertion.identity_did !== expect.currentDidKey) throw new KeyAssertionError('encryption key assertion identity_did does not match the current did:key');
  if (!facts.signerValid) throw new KeyAssertionError('encryption key assertion identity_did is not an Ed25519 did:key');
  if (expect.stableId) {
    if (assertion.identity_stable_id !== expect.stableId)
      throw new KeyAssertionError('encryption key assertion identity_stable_id does not match the identity');
  } else if (assertion.identity_stable_id !== undefined) {
    throw new KeyAssertionError('encryption key assertion for an identity without a stable id must omit identity_stable_id');
  }

  const { publicKey, notBefore, expiresAt, createdAt } = facts;
  if (publicKey === null) throw new KeyAssertionError('encryption_public_key must be 32 bytes of unpadded base64');
  if (!facts.keyIdMatches) throw new KeyAssertionError('encryption_key_id does not match encryption_public_key');

  if (notBefore === null || expiresAt === null || createdAt === null) throw new KeyAssertionError('encryption key assertion times must be RFC 3339');
  if (expiresAt <= notBefore) throw new KeyAssertionError('encryption key assertion expires_at must be after not_before');
  if (createdAt > expect.now) throw new KeyAssertionError('encryption key assertion created_at is in the future');
  if (notBefore > expect.now) throw new KeyAssertionError('encryption key assertion is not active yet');
  if (expiresAt <= expect.now) throw new KeyAssertionError('encryption key assertion is expired');
  // A copy: the facts may be kept for the next check of the same assertion.
  return { publicKey: Buffer.from(publicKey), encryptionKeyId: assertion.encryption_key_id, custody, notBefore, expiresAt };
}

/** Whether `signature` is identity_did's Ed25519 signature of the assertion's other fields. */
export function keyAssertionSignatureValid(assertion: EncryptionKeyAssertion): boolean {
  const signer = publicKeyFromDidKey(assertion.identity_did);
  const signature = decodeRaw(assertion.signature);
  return signer !== null && signature !== null && verifyBytes(signer, keyAssertionSigningBytes(assertion), signature);
}
