import { describe, expect, it } from 'vitest';
import { encryptionKeySummary, RENEW_BEFORE_EXPIRY_MS, type StoredKeyTimes } from './encryption-key-health.ts';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(ms).toISOString();

function key(id: string, created: number, archived: number | null): StoredKeyTimes {
  return { encryption_key_id: id, created_at: at(created), expires_at: at(created + 90 * DAY), archived_at: archived === null ? null : at(archived) };
}

describe('encryption key health', () => {
  it('is published until the renewal window opens, expiring inside it, expired at its end', () => {
    const keys = [key('k1', NOW, null)];
    const expires = NOW + 90 * DAY;
    const state = (now: number, served = true) => encryptionKeySummary({ holder: 'node', keys, served, now }).state;
    expect(state(expires - RENEW_BEFORE_EXPIRY_MS - 1)).toBe('published');
    expect(state(expires - RENEW_BEFORE_EXPIRY_MS)).toBe('expiring');
    expect(state(expires - 1)).toBe('expiring');
    expect(state(expires, false)).toBe('expired');
    // Not served for another reason (a replaced identity, an assertion for a key rotated away from).
    expect(state(NOW, false)).toBe('missing');
    expect(encryptionKeySummary({ holder: 'node', keys, served: true, now: NOW }).renews_at).toBe(at(expires - RENEW_BEFORE_EXPIRY_MS));
  });

  it('counts the keys the current one replaced, and dates the newest replacement', () => {
    const keys = [key('k1', NOW - 40 * DAY, NOW - 20 * DAY), key('k3', NOW - 2 * DAY, null), key('k2', NOW - 20 * DAY, NOW - 2 * DAY)];
    expect(encryptionKeySummary({ holder: 'node', keys, served: true, now: NOW })).toMatchObject({
      state: 'published',
      encryption_key_id: 'k3',
      earlier_keys: 2,
      rotated_at: at(NOW - 2 * DAY),
    });
  });

  it('gives a key its own client holds no renewal date, and says missing when there is none', () => {
    expect(encryptionKeySummary({ holder: 'self', keys: [key('k1', NOW, null)], served: true, now: NOW }).renews_at).toBeNull();
    expect(encryptionKeySummary({ holder: 'self', keys: [], served: false, now: NOW })).toEqual({
      state: 'missing',
      holder: 'self',
      encryption_key_id: null,
      created_at: null,
      expires_at: null,
      renews_at: null,
      earlier_keys: 0,
      rotated_at: null,
    });
  });
});
