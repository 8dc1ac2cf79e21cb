/**
 * Upstream's cross-language E2EE vector (test/conformance/fixtures/e2ee-v2-cross-language.json),
 * loaded for the tests of server/crypto/e2ee/ and test/conformance/: the envelope its Go client made and the one its Python
 * server made, both from alice to bob, and both identities with their test-only keys.
 */
import { readFileSync } from 'node:fs';
import type { EncryptionKeyAssertion } from '../../server/crypto/e2ee/key-assertion.ts';

export interface VectorIdentity {
  address: string;
  did: string;
  stable_id: string;
  team_id: string;
  signing_seed: string;
  x25519_private: string;
  encryption_key: EncryptionKeyAssertion & { custody: 'self' };
}

export interface CrossLanguageVector {
  description: string;
  identities: { alice: VectorIdentity; bob: VectorIdentity };
  go_mail_envelope: Record<string, unknown>;
  python_mail_envelope: Record<string, unknown>;
}

export const VECTOR_PATH = new URL('../conformance/fixtures/e2ee-v2-cross-language.json', import.meta.url);

export function loadCrossLanguageVector(): CrossLanguageVector {
  return JSON.parse(readFileSync(VECTOR_PATH, 'utf8')) as CrossLanguageVector;
}

/** The raw bytes of a vector key (standard base64 without padding). */
export function vectorKey(text: string): Buffer {
  return Buffer.from(text, 'base64');
}
