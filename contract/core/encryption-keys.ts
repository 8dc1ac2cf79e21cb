/**
 * End-to-end encryption keys on the wire: the identity-signed `aweb-e2ee-key-v1` assertion
 * (upstream's e2e-messaging-contract.md, "Identity Encryption Key Assertion"; the node's reading
 * is docs/design/e2ee-v2-wire.md, section 2), and the answers that carry it.
 *
 * Every field is a string here, so that a client's assertion reaches the node's verifier, which
 * refuses a wrong value with a code of its own; unknown fields are refused, as upstream's server
 * refuses them, so nothing unsigned travels inside an assertion.
 */
import { z } from 'zod';

export const EncryptionKeyAssertion = z.strictObject({
  operation: z.string().max(64).describe('`publish_encryption_key`'),
  version: z.string().max(64).describe('`aweb-e2ee-key-v1`'),
  identity_did: z.string().max(256).describe("The identity's current Ed25519 did:key, whose key signs the assertion"),
  identity_stable_id: z.string().max(256).optional().describe("The identity's did:svc; absent for an identity without one"),
  custody: z.string().max(64).optional().describe('`self` (only the identity can decrypt) or `hosted_custodial`'),
  encryption_key_id: z.string().max(128).describe('`sha256:` + unpadded base64 of SHA-256 of a fixed label and the public key'),
  encryption_public_key: z.string().max(128).describe('The raw 32-byte X25519 public key, unpadded base64'),
  algorithm: z.string().max(64).describe('`x25519`'),
  created_at: z.string().max(64),
  not_before: z.string().max(64),
  expires_at: z.string().max(64),
  previous_encryption_key_id: z.string().max(128).optional().describe('The key this one replaced; absent for the first'),
  signature: z.string().max(256).describe('Ed25519 by identity_did over the canonical JSON of the other fields, unpadded base64'),
});
export type EncryptionKeyAssertion = z.output<typeof EncryptionKeyAssertion>;

/**
 * What senders find of an identity's key, at the node's time: `published` (served, not yet within
 * the renewal window), `expiring` (served, within the renewal window: the node renews a key it
 * holds then; a self-custodial client must publish a new assertion), `expired` (its assertion's
 * time has passed, so it is not served), `missing` (nothing is served: a self-custodial identity
 * that published none, a replaced identity, or an assertion naming a key the identity rotated
 * away from).
 */
export const EncryptionKeyState = z.enum(['published', 'expiring', 'expired', 'missing']);
export type EncryptionKeyState = z.output<typeof EncryptionKeyState>;

/** An identity's encryption key as its owner sees it: its health and its rotations, no key material. */
export const EncryptionKeySummary = z.object({
  state: EncryptionKeyState,
  holder: z.enum(['node', 'self']).describe('`node`: custody holds the private key and the node renews it; `self`: the identity’s own client does'),
  encryption_key_id: z.string().nullable().describe('The current key; null when the identity has none'),
  created_at: z.string().nullable().describe('When the current key was made (or published, for a self-custodial one)'),
  expires_at: z.string().nullable().describe('When its current assertion expires'),
  renews_at: z.string().nullable().describe('When the node renews it (the renewal window opens); null for a key the node does not hold'),
  earlier_keys: z.number().int().describe('How many keys this one replaced (kept, so what was sealed to them stays readable)'),
  rotated_at: z.string().nullable().describe('When the current key replaced the previous one; null when it is the first'),
});
export type EncryptionKeySummary = z.output<typeof EncryptionKeySummary>;

/** `POST /v1/node/identities/{agent_id}/encryption-key/rotate`: the new assertion, and the summary the identity list now shows. */
export const EncryptionKeyRotated = z.object({ agent_id: z.string(), encryption_key: EncryptionKeyAssertion, summary: EncryptionKeySummary });
export type EncryptionKeyRotated = z.output<typeof EncryptionKeyRotated>;

/** `PUT /v1/agents/me/encryption-key` (upstream's PublishAgentEncryptionKeyResponse); team_id is '' outside a team. */
export const PublishedEncryptionKey = z.object({ agent_id: z.string(), team_id: z.string(), alias: z.string(), encryption_key: EncryptionKeyAssertion });
export type PublishedEncryptionKey = z.output<typeof PublishedEncryptionKey>;
