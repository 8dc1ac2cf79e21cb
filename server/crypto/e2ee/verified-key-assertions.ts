/**
 * Key assertions whose signature this process has verified already. Sending verifies the sender's
 * and each recipient's assertion every time, and an Ed25519 verification costs some 50 µs (four
 * times that on a loaded machine) where everything else the check does costs a few: the same few
 * assertions come back send after send, so their signatures are checked once.
 *
 * Only the signature is remembered, never the verdict: every other rule (the time window, the
 * identity's current did:key and stable id, the custody expected) depends on the moment and on the
 * caller, so it runs on every call (checkKeyAssertion). The entry is keyed by identity_did,
 * encryption_key_id and expires_at (what tells assertions apart in a log line) and by a digest of
 * the whole assertion with its signature, so an assertion that differs from a verified one in any
 * field, the signature included, is verified afresh and cannot borrow its verdict.
 *
 * Working out that digest (canonical JSON and SHA-256) costs a third of a signature check, and a
 * send asks about the same two assertions twice: when it picks the parties' keys and when it seals
 * to them. An assertion object that is frozen cannot change after its signature verified, so the
 * verdict is also kept by the object itself (a WeakSet, gone with the object): the second question
 * about it skips the digest, never the other rules. What such an assertion says that no rule's
 * expectation changes (its public key, key id, times: keyAssertionFacts) is worked out once as well.
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

export class VerifiedKeyAssertions {
  readonly #signatures: MemoCache<boolean>;
  /** Frozen assertions whose signature verified: immutable, so their verdict cannot go stale. */
  readonly #frozen = new WeakSet<EncryptionKeyAssertion>();
  /** Frozen assertions' facts, each worked out once. */
  readonly #facts = new WeakMap<EncryptionKeyAssertion, KeyAssertionFacts>();

  constructor(limit = VERIFIED_ASSERTIONS_MAX) {
    this.#signatures = new MemoCache(limit);
  }

  /** verifyKeyAssertion's answer, with the signature checked only the first time this assertion is seen. */
  verify(assertion: EncryptionKeyAssertion, expect: KeyAssertionExpectation): VerifiedEncryptionKey {
    const key = checkKeyAssertion(assertion, expect, this.#factsOf(assertion));
    if (this.#frozen.has(assertion)) return key;
    if (!this.#signatures.get(cacheKey(assertion), () => keyAssertionSignatureValid(assertion))) {
      throw new KeyAssertionError('invalid encryption key assertion signature');
    }
    if (Object.isFrozen(assertion)) this.#frozen.add(assertion);
    return key;
  }

  #factsOf(assertion: EncryptionKeyAssertion): KeyAssertionFacts {
    if (!Object.isFrozen(assertion)) return keyAssertionFacts(assertion);
    let facts = this.#facts.get(assertion);
    if (facts === undefined) {
      facts = keyAssertionFacts(assertion);
      this.#facts.set(assertion, facts);
    }
    return facts;
  }

  /** Signatures remembered (tests and diagnostics). */
  get size(): number {
    return this.#signatures.size;
  }
}

function cacheKey(assertion: EncryptionKeyAssertion): string {
  const digest = createHash('sha256').update(canonicalJsonBytes(assertion)).digest('base64');
  return `${assertion.identity_did}\n${assertion.encryption_key_id}\n${assertion.expires_at}\n${digest}`;
}
