/**
 * Linked devices (docs/design/devices-and-recovery.md, "Linked devices"): the owner's routes
 * (`/v1/node/devices...`) that make a one-time link code, list the devices and revoke one, and the
 * wire between two devices of the same person (`/v1/devices/...`), which a joining device speaks
 * with the device it joins.
 */
import { z } from 'zod';

/** How long a link code works: long enough to type it on the other machine, short enough to matter little if seen. */
export const DEVICE_LINK_CODE_SECONDS = 600;

/** A link code: 128 random bits, hex, with a prefix that says what it is. */
export const DEVICE_LINK_CODE = /^svc_link_[0-9a-f]{32}$/;

/** A device's name, as the list shows it ("Anna's laptop"): printable, one line. */
export const DeviceName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^\p{Cc}\p{Cf}]+$/u, 'must be one line of printable characters');

export const Device = z.object({
  device_id: z.string(),
  name: z.string(),
  /** The device's signing key (did:key): its requests to the other devices carry signatures by it. */
  sign_key: z.string(),
  /** Where the device answers, when it said; null for one behind no listener (a laptop). */
  url: z.string().nullable(),
  /** True for the device that answers this request. */
  this_device: z.boolean(),
  linked_at: z.string(),
  last_seen_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type Device = z.output<typeof Device>;

export const DeviceList = z.object({ devices: z.array(Device) });
export type DeviceList = z.output<typeof DeviceList>;

export const DeviceIdParams = z.strictObject({ device_id: z.string().min(1).max(64) });

/** `POST /v1/node/devices/link`: the code and where to use it, shown once (only its hash is kept). */
export const DeviceLinkCreated = z.object({
  code: z.string(),
  /** Where the new device joins: this node's public URL (the peer listener or the tunnel) when it has one, else its local one. */
  url: z.string(),
  expires_at: z.string(),
  /** The line to run on the new device (it names the folder the new device keeps its data in). */
  command: z.string(),
});
export type DeviceLinkCreated = z.output<typeof DeviceLinkCreated>;

// The wire between devices.

const base64 = z
  .string()
  .max(1 << 20)
  .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url without padding');

/**
 * A join. The code itself never travels: both sides prove they know it. The joining device sends
 * the id of the key derived from the code and a MAC under that key over the join's fields
 * (`proof`), and signs the same fields with its new device key (`signature`); the answer carries
 * the linking device's MAC and signature over what it answers. Someone who sees the exchange (a
 * plain-HTTP LAN) learns neither the code nor anything to join with.
 * server/devices/join-proof.ts says what is signed.
 */
export const DeviceJoinBody = z.strictObject({
  /** SHA-256 (hex) of the key derived from the code: which code, without the code. */
  code_id: z.string().regex(/^[0-9a-f]{64}$/),
  name: DeviceName,
  /** The joining device's signing key, as a did:key. */
  sign_key: z.string().min(1).max(256),
  /** The joining device's X25519 public key (base64url): the identities' keys are sealed to it. */
  box_key: base64,
  /** Where the joining device answers, if anywhere. */
  url: z.string().max(2048).nullable(),
  timestamp: z.string().min(1).max(64),
  proof: base64,
  signature: base64,
});
export type DeviceJoinInput = z.output<typeof DeviceJoinBody>;

/**
 * The answer to a join: the new device's id, the keys bundle sealed to its box key (HPKE), the
 * snapshot of the history it fetches next, and the linking device's proof of the code and
 * signature over all of it.
 */
export const DeviceJoinAnswer = z.object({
  device_id: z.string(),
  node_id: z.string(),
  linker: z.object({ device_id: z.string(), name: z.string(), sign_key: z.string() }),
  bundle: z.object({ enc: z.string(), ciphertext: z.string() }),
  snapshot: z.object({ backup_id: z.string() }),
  proof: z.string(),
  signature: z.string(),
});
export type DeviceJoinAnswer = z.output<typeof DeviceJoinAnswer>;

export const SnapshotManifestParams = z.strictObject({ backup_id: z.string().regex(/^\d{8}T\d{9}Z$/) });
export const SnapshotChunkParams = z.strictObject({ name: z.string().regex(/^[0-9a-f]{64}$/) });

/** `POST /v1/devices/joined`: the new device has everything; the linking device drops the snapshot it kept for it. */
export const DeviceJoinedAnswer = z.object({ device_id: z.string(), joined: z.literal(true) });

// Sync between linked devices (server/devices/sync/).

/** How far a device holds each device's changes: device id → the highest change number. */
export const SyncVector = z.record(z.string().max(64), z.int().min(0)).refine((vector) => Object.keys(vector).length <= 1024, 'too many devices');

/** The longest a pull waits for a change before answering with none (under the peer listener's 30 s request limit). */
export const SYNC_WAIT_MAX_MS = 20_000;

const sealedText = z
  .string()
  .max(3 * 1024 * 1024)
  .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url without padding');

/** Keys travel sealed to the receiving device's key (HPKE), as at the join. */
export const SealedKeys = z.object({ enc: z.string().max(64), ciphertext: sealedText });

export const SyncPullBody = z.strictObject({
  have: SyncVector,
  /** Wait this long for a change when there is none yet (long poll); 0 answers at once. */
  wait_ms: z.int().min(0).max(SYNC_WAIT_MAX_MS),
  /** A digest of the keys the asking device holds and their states: the answer carries keys when they differ. */
  keys_digest: z.string().max(128),
});
export type SyncPullInput = z.output<typeof SyncPullBody>;

export const SyncPullAnswer = z.object({
  have: SyncVector,
  /** The changes the asking device lacks, sealed under the devices' sync key (JSON array). */
  sealed: z.string(),
  /** More changes are waiting: ask again at once. */
  more: z.boolean(),
  keys_digest: z.string(),
  /** Every key this device holds, sealed to the asking device, when their digests differ. */
  keys: SealedKeys.nullable(),
});
export type SyncPullAnswer = z.output<typeof SyncPullAnswer>;

export const SyncPushBody = z.strictObject({
  /** Changes the receiving device lacks, sealed under the sync key (JSON array). */
  sealed: sealedText,
  /** The sending device's keys, sealed to the receiving device, when their digests differed. */
  keys: SealedKeys.nullable(),
});
export type SyncPushInput = z.output<typeof SyncPushBody>;

export const SyncPushAnswer = z.object({ received: z.int(), applied: z.int() });
