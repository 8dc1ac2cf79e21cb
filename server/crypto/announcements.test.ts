import { describe, it, expect } from 'vitest';
import type { KeyObject } from 'node:crypto';
import { didKeyFromPublicKey } from './did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from './ed25519.ts';
import { toBase64Padded, toBase64Unpadded } from './encoding.ts';
import {
  ANNOUNCEMENT_MAX_AGE_MS,
  replacementPayloadBytes,
  rotationPayloadBytes,
  verifyReplacementAnnouncement,
  verifyRotationAnnouncement,
  verifyRotationChain,
  type ReplacementAnnouncement,
  type RotationAnnouncement,
} from './announcements.ts';

function key(byte: number): { priv: KeyObject; did: string } {
  const priv = privateKeyFromSeed(new Uint8Array(32).fill(byte));
  return { priv, did: didKeyFromPublicKey(rawPublicKey(priv)) };
}

const A = key(1);
const B = key(2);
const C = key(3);
const CONTROLLER = key(7);
const NOW = Date.parse('2026-05-01T12:00:00Z');

function rotation(from: { priv: KeyObject; did: string }, to: string, timestamp = '2026-05-01T10:00:00Z'): RotationAnnouncement {
  const fields = { old_did: from.did, new_did: to, timestamp };
  return { ...fields, old_key_signature: toBase64Unpadded(signBytes(from.priv, rotationPayloadBytes(fields))) };
}

function replacement(signer: { priv: KeyObject; did: string }, timestamp = '2026-05-01T10:00:00Z'): ReplacementAnnouncement {
  const fields = { address: 'acme.com/alice', controller_did: signer.did, old_did: A.did, new_did: B.did, timestamp };
  return { ...fields, controller_signature: toBase64Unpadded(signBytes(signer.priv, replacementPayloadBytes(fields))) };
}

const EXPECT = { controllerDid: CONTROLLER.did, address: 'acme.com/alice', oldDid: A.did, newDid: B.did };

describe('payload bytes', () => {
  it('sorts the rotation keys and drops the signature', () => {
    const a = rotation(A, B.did);
    expect(rotationPayloadBytes(a).toString()).toBe(`{"new_did":"${B.did}","old_did":"${A.did}","timestamp":"2026-05-01T10:00:00Z"}`);
  });

  it('sorts the replacement keys and drops the signature', () => {
    expect(replacementPayloadBytes(replacement(CONTROLLER)).toString()).toBe(
      `{"address":"acme.com/alice","controller_did":"${CONTROLLER.did}","new_did":"${B.did}","old_did":"${A.did}","timestamp":"2026-05-01T10:00:00Z"}`,
    );
  });
});

describe('verifyRotationAnnouncement', () => {
  it('accepts a fresh announcement signed by the old key', () => {
    expect(verifyRotationAnnouncement(rotation(A, B.did), { now: NOW })).toEqual({ ok: true });
    expect(verifyRotationAnnouncement(rotation(A, B.did), { now: new Date(NOW) })).toEqual({ ok: true });
  });

  it('refuses a signature by the new key', () => {
    const fields = { old_did: A.did, new_did: B.did, timestamp: '2026-05-01T10:00:00Z' };
    const byNew = { ...fields, old_key_signature: toBase64Unpadded(signBytes(B.priv, rotationPayloadBytes(fields))) };
    expect(verifyRotationAnnouncement(byNew, { now: NOW })).toEqual({ ok: false, error: 'invalid old_key_signature' });
  });

  it('refuses tampered fields and padded signatures', () => {
    const a = rotation(A, B.did);
    expect(verifyRotationAnnouncement({ ...a, new_did: C.did }, { now: NOW }).ok).toBe(false);
    const padded = toBase64Padded(Buffer.from(a.old_key_signature, 'base64'));
    expect(verifyRotationAnnouncement({ ...a, old_key_signature: padded }, { now: NOW })).toEqual({ ok: false, error: 'invalid old_key_signature' });
  });

  it('applies the 7-day freshness window both ways', () => {
    const a = rotation(A, B.did, '2026-05-01T12:00:00Z');
    expect(verifyRotationAnnouncement(a, { now: NOW + ANNOUNCEMENT_MAX_AGE_MS })).toEqual({ ok: true });
    expect(verifyRotationAnnouncement(a, { now: NOW + ANNOUNCEMENT_MAX_AGE_MS + 1000 })).toEqual({ ok: false, error: 'announcement is not fresh' });
    expect(verifyRotationAnnouncement(a, { now: NOW - ANNOUNCEMENT_MAX_AGE_MS - 1000 })).toEqual({ ok: false, error: 'announcement is not fresh' });
    expect(verifyRotationAnnouncement(a, { now: NOW + 60_000, maxAgeMs: 30_000 }).ok).toBe(false);
    expect(verifyRotationAnnouncement(a, { now: 0, checkFreshness: false })).toEqual({ ok: true });
  });

  it('refuses malformed timestamps and keys, and no-op rotations', () => {
    expect(verifyRotationAnnouncement(rotation(A, B.did, 'yesterday'), { checkFreshness: false })).toEqual({ ok: false, error: 'timestamp is not RFC 3339' });
    expect(verifyRotationAnnouncement(rotation(A, 'did:key:zBad'), { now: NOW }).ok).toBe(false);
    expect(verifyRotationAnnouncement(rotation(A, A.did), { now: NOW })).toEqual({ ok: false, error: 'rotation to the same key' });
  });
});

describe('verifyRotationChain', () => {
  const links = [rotation(A, B.did, '2026-05-01T10:00:00Z'), rotation(B, C.did, '2026-05-01T11:00:00Z')];

  it('walks from the pinned key to the envelope key', () => {
    expect(verifyRotationChain({ pinnedDid: A.did, currentDid: C.did, links }, { now: NOW })).toEqual({ ok: true });
    expect(verifyRotationChain({ pinnedDid: A.did, currentDid: A.did, links: [] }, { now: NOW })).toEqual({ ok: true });
  });

  it('refuses chains that start, continue or end elsewhere', () => {
    expect(verifyRotationChain({ pinnedDid: B.did, currentDid: C.did, links }, { now: NOW })).toEqual({
      ok: false,
      error: 'link 1: old_did does not continue the chain',
    });
    expect(verifyRotationChain({ pinnedDid: A.did, currentDid: C.did, links: [links[1]!, links[0]!] }, { now: NOW }).ok).toBe(false);
    expect(verifyRotationChain({ pinnedDid: A.did, currentDid: B.did, links }, { now: NOW })).toEqual({
      ok: false,
      error: 'chain does not end at the envelope key',
    });
    expect(verifyRotationChain({ pinnedDid: A.did, currentDid: C.did, links: [] }, { now: NOW }).ok).toBe(false);
  });

  it('refuses a chain with a forged or stale link', () => {
    const forged = { ...links[1]!, old_key_signature: links[0]!.old_key_signature };
    expect(verifyRotationChain({ pinnedDid: A.did, currentDid: C.did, links: [links[0]!, forged] }, { now: NOW })).toEqual({
      ok: false,
      error: 'link 2: invalid old_key_signature',
    });
    expect(verifyRotationChain({ pinnedDid: A.did, currentDid: C.did, links }, { now: NOW + 30 * 86_400_000 })).toEqual({
      ok: false,
      error: 'link 1: announcement is not fresh',
    });
  });

  it('refuses overly long chains', () => {
    const loop = Array.from({ length: 33 }, (_, i) => (i % 2 === 0 ? rotation(A, B.did) : rotation(B, A.did)));
    expect(verifyRotationChain({ pinnedDid: A.did, currentDid: B.did, links: loop }, { now: NOW })).toEqual({ ok: false, error: 'rotation chain too long' });
  });
});

describe('verifyReplacementAnnouncement', () => {
  it('accepts the namespace controller vouching for the new key', () => {
    expect(verifyReplacementAnnouncement(replacement(CONTROLLER), EXPECT, { now: NOW })).toEqual({ ok: true });
  });

  it('refuses a replacement signed by the old key', () => {
    expect(verifyReplacementAnnouncement(replacement(A), EXPECT, { now: NOW })).toEqual({ ok: false, error: 'controller_did is not the namespace controller' });
    expect(verifyReplacementAnnouncement(replacement(A), { ...EXPECT, controllerDid: A.did }, { now: NOW })).toEqual({ ok: true });
  });

  it('refuses a claimed controller whose signature does not match', () => {
    const forged = { ...replacement(A), controller_did: CONTROLLER.did };
    expect(verifyReplacementAnnouncement(forged, EXPECT, { now: NOW })).toEqual({ ok: false, error: 'invalid controller_signature' });
  });

  it('binds address, pinned key and message key', () => {
    const r = replacement(CONTROLLER);
    expect(verifyReplacementAnnouncement(r, { ...EXPECT, address: 'acme.com/bob' }, { now: NOW })).toEqual({ ok: false, error: 'address mismatch' });
    expect(verifyReplacementAnnouncement(r, { ...EXPECT, oldDid: C.did }, { now: NOW })).toEqual({ ok: false, error: 'old_did is not the pinned key' });
    expect(verifyReplacementAnnouncement(r, { ...EXPECT, newDid: C.did }, { now: NOW })).toEqual({ ok: false, error: 'new_did is not the message key' });
    expect(verifyReplacementAnnouncement({ ...r, address: 'acme.com/bob' }, { ...EXPECT, address: 'acme.com/bob' }, { now: NOW })).toEqual({
      ok: false,
      error: 'invalid controller_signature',
    });
  });

  it('refuses stale replacements', () => {
    expect(verifyReplacementAnnouncement(replacement(CONTROLLER, '2026-04-01T10:00:00Z'), EXPECT, { now: NOW })).toEqual({
      ok: false,
      error: 'announcement is not fresh',
    });
  });
});
