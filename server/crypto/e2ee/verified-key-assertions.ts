/**
 * Key assertions whose signature this process has verified already. Sending verifies the sender's
 * and each recipient's assertion every time, and an Ed25519 verification costs some 50 µs (four
 * times that on a loaded machine) where everything else the check does costs a few: the same few
 * assertions come back send after send, so their signatures are checked once.
 *
 * Only the signature is remembered, never the verdict: every other rule (the time window, the
 * identity's current did:key and stable id, the custody expected) depends on the moment and on the
 * caller, so it runs on every call (checkKeyAssertion). The entry is keyed by the assertion's whole
 * content, its signature included (contentKey), so an assertion that differs from a verified one
 * in any field cannot borrow its verdict.
 *
 * A send asks about the same two assertions twice: when it picks the parties' keys and when it
 * seals to them. An assertion object that is frozen cannot change after its signature verified, so
 * what was found is also kept by the object itself (a WeakMap, gone with the object): the second
 * question about it skips naming its content, never the other rules. What an assertion says that no
 * rule's expectation changes (its public key, key id, times: keyAssertionFacts) is worked out once
 * per content as well.
 */
import { createHash } from 'node:crypto';
import { MemoCache } from '../../memo-cache.ts';
import { canonicalJsonBytes } from '../canonical-json.ts';
import { KeyAssertionError } from './errors.ts';
import {
  checkKeyAssertion,
  keyAssertionFacts,
  keyAssertionSignatureValid,
  type KeyAssertionFacts,
  type EncryptionKeyAssertion,
  type KeyAssertionExpectation,
  type VerifiedEncryptionKey,
} from './key-assertion.ts';

/** Enough for every identity a busy node writes to; the least recently used go first beyond it. */
export const VERIFIED_ASSERTIONS_MAX = 4096;

/** What one assertion's content says once and for all: its facts and whether its signature verifies. */
interface Known {
  facts: KeyAssertionFacts;
  signatureValid: boolean;
}

export class VerifiedKeyAssertions {
  /** By the assertion's content: its JSON text, or a digest of its canonical form (cacheKey). */
  readonly #byContent: MemoCache<Known>;
  /** Frozen assertions, by the object: immutable, so what was found for them cannot go stale. */
  readonly #byObject = new WeakMap<EncryptionKeyAssertion, Known>();

  constructor(limit = VERIFIED_ASSERTIONS_MAX) {
    this.#byContent = new MemoCache(limit);
  }

  /** verifyKeyAssertion's answer, with the signature checked only the first time this assertion is seen. */
  verify(assertion: EncryptionKeyAssertion, expect: KeyAssertionExpectation): VerifiedEncryptionKey {
    const known = this.#known(assertion);
    const key = checkKeyAssertion(assertion, expect, known.facts);
    if (!known.signatureValid) throw new KeyAssertionError('invalid encryption key assertion signature');
    return key;
  }

  #known(assertion: EncryptionKeyAssertion): Known {
    const held = this.#byObject.get(assertion);
    if (held !== undefined) return held;
    const known = this.#byContent.get(contentKey(assertion), () => ({
      facts: keyAssertionFacts(assertion),
      signatureValid: keyAssertionSignatureValid(assertion),
    }));
    if (Object.isFrozen(assertion)) this.#byObject.set(assertion, known);
    return known;
  }

  /** Assertions remembered (tests and diagnostics). */
  get size(): number {
    return this.#byContent.size;
  }
}

/**
 * What names an assertion's content exactly. An assertion of string fields only (every one read
 * from JSON or cloned from one) is named by its JSON text, which no other content shares; the
 * seal worker gets a fresh copy of the same few with every job, and this costs it a twentieth of
 * the digest below. Anything else is named by a digest of its canonical form.
 */
function contentKey(assertion: EncryptionKeyAssertion): string {
  for (const value of Object.values(assertion)) if (typeof value !== 'string') return cacheKey(assertion);
  return JSON.stringify(assertion);
}

function cacheKey(assertion: EncryptionKeyAssertion): string {
  const digest = createHash('sha256').update(canonicalJsonBytes(assertion)).digest('base64');
  return `${assertion.identity_did}\n${assertion.encryption_key_id}\n${assertion.expires_at}\n${digest}`;
}
