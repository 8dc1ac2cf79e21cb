import { z } from 'zod';

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

export const DidParams = z.object({ did_aw: z.string().min(1).max(256) });
