/**
 * Self-custodial identities for end-to-end encryption tests: the client keeps its Ed25519 key
 * (test/support/self-signer.ts), registers its did:svc itself, and the node makes the identity
 * holding no key for it; the client may then publish an X25519 encryption key of its own, signed
 * with its identity key, as upstream's clients do.
 */
import { CreatedIdentity } from '../../contract/core/identities.ts';
import { buildKeyAssertion, type EncryptionKeyAssertion } from '../../server/crypto/e2ee/key-assertion.ts';
import type { EnvelopeSigner } from '../../server/crypto/e2ee/seal-envelope.ts';
import { generateX25519KeyPair, type X25519KeyPair } from '../../server/crypto/e2ee/x25519.ts';
import { expectOk } from './expect.ts';
import { init, persistent } from './identities.ts';
import type { NodeEndpoint } from './node.ts';
import { genesisEntry, selfKey, type SelfKey } from './self-signer.ts';

export interface SelfCustodial {
  identity: CreatedIdentity;
  key: SelfKey;
}

export interface PublishedKey {
  /** The pair the client keeps. */
  encryption: X25519KeyPair;
  assertion: EncryptionKeyAssertion;
}

/** Signs as the crypto core asks (bytes in, signature bytes out) with the client's key. */
export const clientSigner =
  (key: SelfKey) =>
  (bytes: Buffer): Buffer =>
    Buffer.from(key.sign(bytes.toString('utf8')), 'base64');

/** The client's key as an envelope's signer (seal-envelope.ts): its did:key and its signature. */
export const envelopeSigner = (key: SelfKey): EnvelopeSigner => ({ did: key.didKey, sign: clientSigner(key) });

/** A persistent self-custodial identity `name` in the project, its did:svc registered by its client. */
export async function createSelfCustodial(t: NodeEndpoint, projectKey: string, name: string): Promise<SelfCustodial> {
  const key = selfKey();
  const head = genesisEntry(key);
  expectOk(await t.request('POST', '/v1/did', { body: { ...head.payload, proof: head.signature } }));
  const created = await init(t, projectKey, persistent(name, { custody: 'self', did: key.didKey, public_key: key.publicKey.toString('base64') }));
  return { identity: CreatedIdentity.parse(expectOk(created, 201)), key };
}

/** The client's encryption key, made and published (`PUT /v1/agents/me/encryption-key`). */
export async function publishEncryptionKey(t: NodeEndpoint, { identity, key }: SelfCustodial): Promise<PublishedKey> {
  const encryption = generateX25519KeyPair();
  const assertion = buildKeyAssertion(
    { identityDid: key.didKey, identityStableId: key.didSvc, custody: 'self', publicKey: encryption.publicKey, now: Date.now() - 60_000 },
    clientSigner(key),
  );
  expectOk(await t.request('PUT', '/v1/agents/me/encryption-key', { token: identity.api_key, body: assertion }));
  return { encryption, assertion };
}
