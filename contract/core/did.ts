/**
 * The did:svc registry (`/v1/did`, upstream's registry routes;
 * docs/adr/0002-did-svc-identity-log-and-namespace-records.md): a stable id's current did:key and
 * its append-only log. Reads are public; `POST /v1/did` and `PUT /v1/did/{did_aw}` take entries
 * self-custodial clients sign themselves (the proof is in the body, not in a header). The node
 * validates requests and describes its API with these schemas; clients take the inferred types.
 */
import { z } from 'zod';
import { EncryptionKeyAssertion } from './encryption-keys.ts';

const didKey = z.string().min(1).max(256);
const hash = z.string().regex(/^[0-9a-f]{64}$/, 'must be lowercase hex sha256');
const signature = z.string().min(1).max(2048);

/** POST /v1/did: the genesis entry's nine fields and its proof; nothing else. */
export const RegisterDidBody = z.strictObject({
  did_aw: z.string().min(1).max(256),
  new_did_key: didKey,
  operation: z.literal('register_did'),
  seq: z.number().int(),
  prev_entry_hash: hash.nullable(),
  previous_did_key: didKey.nullable(),
  state_hash: hash,
  authorized_by: didKey,
  timestamp: z.string().min(1).max(64),
  proof: signature,
});
export type RegisterDidInput = z.output<typeof RegisterDidBody>;

/** PUT /v1/did/{did_aw}: a rotate_key entry signed by the retiring key. */
export const RotateDidBody = z.strictObject({
  operation: z.literal('rotate_key'),
  new_did_key: didKey,
  previous_did_key: didKey.optional(),
  seq: z.number().int(),
  prev_entry_hash: hash,
  state_hash: hash,
  authorized_by: didKey,
  timestamp: z.string().min(1).max(64),
  signature,
});
export type RotateDidInput = z.output<typeof RotateDidBody>;

export const DidParams = z.object({ did_aw: z.string().min(1).max(256) });

/** One entry of a did:svc log, signed by `authorized_by` (the new key at genesis, the retiring one after). */
export const DidLogEntry = z.object({
  did_aw: z.string(),
  seq: z.number().int(),
  operation: z.enum(['register_did', 'rotate_key']),
  previous_did_key: z.string().nullable(),
  new_did_key: z.string(),
  prev_entry_hash: z.string().nullable(),
  entry_hash: z.string(),
  state_hash: z.string(),
  authorized_by: z.string(),
  signature: z.string(),
  timestamp: z.string(),
});
export type DidLogEntry = z.output<typeof DidLogEntry>;

/** `GET /v1/did/{did_aw}/log`: the whole log, oldest first. */
export const DidLog = z.array(DidLogEntry);

/**
 * `GET /v1/did/{did_aw}/key`. `encryption_key`: the identity's end-to-end encryption key assertion,
 * for an identity that has one valid now (upstream's registry answers it here). `log_head`: the
 * head of the did:svc's log this node holds; absent when it answers an identity of this node for
 * another node's did:svc (found by its address there), whose log stays on that node.
 */
export const DidKey = z.object({
  did_aw: z.string(),
  current_did_key: z.string(),
  log_head: DidLogEntry.optional(),
  encryption_key: EncryptionKeyAssertion.optional(),
});
export type DidKey = z.output<typeof DidKey>;
/** The answer for a did:svc whose log this node holds. */
export type HeldDidKey = DidKey & { log_head: DidLogEntry };

/** `GET /v1/did/{did_aw}/head`: the head without its signature. */
export const DidHead = z.object({
  did_aw: z.string(),
  current_did_key: z.string(),
  seq: z.number().int(),
  entry_hash: z.string(),
  state_hash: z.string(),
  timestamp: z.string(),
});
export type DidHead = z.output<typeof DidHead>;

/** `POST /v1/did`: idempotent while the id is still bound to that key. */
export const DidRegistered = z.object({ registered: z.literal(true), did_aw: z.string(), current_did_key: z.string() });
export type DidRegistered = z.output<typeof DidRegistered>;

export const DidUpdated = z.object({ updated: z.literal(true), did_aw: z.string(), current_did_key: z.string() });
export type DidUpdated = z.output<typeof DidUpdated>;
