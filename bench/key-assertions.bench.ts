/**
 * What verifying an encryption key assertion costs on every send, against the cache of verified
 * signatures (server/crypto/e2ee/verified-key-assertions.ts), in the same run, taking turns
 * (BENCH_ONLY=key-assertions): a send verifies the sender's and each recipient's assertion, and the
 * same few assertions come back send after send. One sample is one verification of one of
 * ASSERTIONS assertions in turn; the cache checks every rule but the signature each time.
 */
import { buildKeyAssertion, verifyKeyAssertion } from '../server/crypto/e2ee/key-assertion.ts';
import { VerifiedKeyAssertions } from '../server/crypto/e2ee/verified-key-assertions.ts';
import { generateX25519KeyPair } from '../server/crypto/e2ee/x25519.ts';
import { didKeyFromPublicKey } from '../server/crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from '../server/crypto/ed25519.ts';
import { report, timeInterleaved } from './measure.ts';

const CALLS = Number(process.env.BENCH_KEY_ASSERTION_CALLS ?? 20_000);
const ASSERTIONS = 16;

function party(i: number) {
  const signing = privateKeyFromSeed(generateX25519KeyPair().privateKey);
  const did = didKeyFromPublicKey(rawPublicKey(signing));
  const stableId = `did:svc:zbench${i}`;
  const assertion = buildKeyAssertion(
    { identityDid: did, identityStableId: stableId, custody: 'self', publicKey: generateX25519KeyPair().publicKey, now: Date.now() - 60_000 },
    (bytes) => signBytes(signing, bytes),
  );
  return { assertion, expect: { currentDidKey: did, stableId, now: Date.now() } };
}

export async function run(): Promise<void> {
  const parties = Array.from({ length: ASSERTIONS }, (_, i) => party(i));
  const cache = new VerifiedKeyAssertions();
  let uncached = 0;
  let cached = 0;
  const times = await timeInterleaved(CALLS, {
    verify: async () => {
      const { assertion, expect } = parties[uncached++ % ASSERTIONS]!;
      verifyKeyAssertion(assertion, expect);
    },
    cached: async () => {
      const { assertion, expect } = parties[cached++ % ASSERTIONS]!;
      cache.verify(assertion, expect);
    },
  });
  report('key-assertions-verify', {
    assertions: ASSERTIONS,
    verify: times.verify,
    cached: times.cached,
    // p50: the mean and p99 of calls this short are decided by the other load on the machine.
    cached_ratio_p50: Math.round((times.cached.p50_ms / times.verify.p50_ms) * 100) / 100,
  });
}
