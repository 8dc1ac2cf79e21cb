/**
 * Rotation and replacement announcements, in upstream's shapes
 * (docs/adr/0002-did-svc-identity-log-and-namespace-records.md).
 *
 * A rotation is vouched for by the retiring key; a replacement (address moved to a fresh identity)
 * by the namespace controller, never by the old key. Both are accepted only while fresh, so a
 * leaked old announcement cannot be replayed indefinitely.
 */
import { canonicalJsonBytes } from './canonical-json.ts';
import { isDidKey, publicKeyFromDidKey } from './did-key.ts';
import { verifyBytes } from './ed25519.ts';
import { fromBase64Unpadded } from './encoding.ts';
import { parseRfc3339 } from './timestamp.ts';

export const ANNOUNCEMENT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Bounds the work a peer can make us do with one message. */
export const MAX_ROTATION_CHAIN = 32;

export interface RotationFields {
  old_did: string;
  new_did: string;
  timestamp: string;
}

export interface RotationAnnouncement extends RotationFields {
  old_key_signature: string;
}

export interface ReplacementFields {
  address: string;
  controller_did: string;
  old_did: string;
  new_did: string;
  timestamp: string;
}

export interface ReplacementAnnouncement extends ReplacementFields {
  controller_signature: string;
}

export interface FreshnessOptions {
  /** Defaults to the current time. */
  now?: Date | number;
  maxAgeMs?: number;
  /** Set false only to check historical fixtures. */
  checkFreshness?: boolean;
}

export type AnnouncementVerification = { ok: true } | { ok: false; error: string };

export function rotationPayloadBytes(a: RotationFields): Buffer {
  return canonicalJsonBytes({ new_did: a.new_did, old_did: a.old_did, timestamp: a.timestamp });
}

export function replacementPayloadBytes(a: ReplacementFields): Buffer {
  return canonicalJsonBytes({
    address: a.address,
    controller_did: a.controller_did,
    new_did: a.new_did,
    old_did: a.old_did,
    timestamp: a.timestamp,
  });
}

function freshnessError(timestamp: unknown, options: FreshnessOptions): string | null {
  const at = parseRfc3339(timestamp);
  if (at === null) return 'timestamp is not RFC 3339';
  if (options.checkFreshness === false) return null;
  const now = options.now === undefined ? Date.now() : Number(options.now);
  return Math.abs(now - at) <= (options.maxAgeMs ?? ANNOUNCEMENT_MAX_AGE_MS) ? null : 'announcement is not fresh';
}

function signatureValid(signerDid: string, bytes: Uint8Array, signatureB64: unknown): boolean {
  const publicKey = publicKeyFromDidKey(signerDid);
  const signature = typeof signatureB64 === 'string' ? fromBase64Unpadded(signatureB64) : null;
  return publicKey !== null && signature !== null && verifyBytes(publicKey, bytes, signature);
}

export function verifyRotationAnnouncement(a: RotationAnnouncement, options: FreshnessOptions = {}): AnnouncementVerification {
  if (!isDidKey(a.old_did) || !isDidKey(a.new_did)) return { ok: false, error: 'old_did and new_did must be Ed25519 did:keys' };
  if (a.old_did === a.new_did) return { ok: false, error: 'rotation to the same key' };
  const stale = freshnessError(a.timestamp, options);
  if (stale) return { ok: false, error: stale };
  if (!signatureValid(a.old_did, rotationPayloadBytes(a), a.old_key_signature)) return { ok: false, error: 'invalid old_key_signature' };
  return { ok: true };
}

/**
 * `expect` holds what the verifier established independently: the namespace controller it
 * resolved, the sender's trust address, the pinned key and the key the message came from.
 */
export function verifyReplacementAnnouncement(
  a: ReplacementAnnouncement,
  expect: { controllerDid: string; address: string; oldDid: string; newDid: string },
  options: FreshnessOptions = {},
): AnnouncementVerification {
  if (!isDidKey(a.controller_did) || !isDidKey(a.old_did) || !isDidKey(a.new_did)) {
    return { ok: false, error: 'controller_did, old_did and new_did must be Ed25519 did:keys' };
  }
  if (a.controller_did !== expect.controllerDid) return { ok: false, error: 'controller_did is not the namespace controller' };
  if (a.address !== expect.address) return { ok: false, error: 'address mismatch' };
  if (a.old_did !== expect.oldDid) return { ok: false, error: 'old_did is not the pinned key' };
  if (a.new_did !== expect.newDid) return { ok: false, error: 'new_did is not the message key' };
  const stale = freshnessError(a.timestamp, options);
  if (stale) return { ok: false, error: stale };
  if (!signatureValid(a.controller_did, replacementPayloadBytes(a), a.controller_signature)) {
    return { ok: false, error: 'invalid controller_signature' };
  }
  return { ok: true };
}

/** Walks links from the pinned key to the key an envelope was signed with, each vouched by its predecessor. */
export function verifyRotationChain(
  args: { pinnedDid: string; currentDid: string; links: readonly RotationAnnouncement[] },
  options: FreshnessOptions = {},
): AnnouncementVerification {
  const { pinnedDid, currentDid, links } = args;
  if (links.length > MAX_ROTATION_CHAIN) return { ok: false, error: 'rotation chain too long' };
  let expectedOld = pinnedDid;
  for (const [index, link] of links.entries()) {
    if (link.old_did !== expectedOld) return { ok: false, error: `link ${index + 1}: old_did does not continue the chain` };
    const result = verifyRotationAnnouncement(link, options);
    if (!result.ok) return { ok: false, error: `link ${index + 1}: ${result.error}` };
    expectedOld = link.new_did;
  }
  if (expectedOld !== currentDid) return { ok: false, error: 'chain does not end at the envelope key' };
  return { ok: true };
}
