import { describe, expect, it } from 'vitest';
import { linkRowAction, linkState, timeUntil } from './present-links.ts';

describe('linkState', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  it('is live until it expires, and revoked whatever its expiry', () => {
    expect(linkState({ expires_at: '2026-03-01T13:00:00Z', revoked_at: null }, now)).toBe('live');
    expect(linkState({ expires_at: '2026-03-01T12:00:00Z', revoked_at: null }, now)).toBe('expired');
    expect(linkState({ expires_at: '2026-03-01T13:00:00Z', revoked_at: '2026-03-01T11:00:00Z' }, now)).toBe('revoked');
    expect(linkState({ expires_at: '2026-02-01T13:00:00Z', revoked_at: '2026-01-01T11:00:00Z' }, now)).toBe('revoked');
    expect(linkState({ expires_at: 'garbage', revoked_at: null }, now)).toBe('expired');
  });
});

describe('timeUntil', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const later = (ms: number) => new Date(now.getTime() + ms);
  it('says roughly how long is left', () => {
    expect(timeUntil(later(30_000), now)).toBe('in under a minute');
    expect(timeUntil(later(5 * 60_000), now)).toBe('in 5 min');
    expect(timeUntil(later(3600_000), now)).toBe('in 1 h');
    expect(timeUntil(later(86_400_000 - 60_000), now)).toBe('in 1 day');
    expect(timeUntil(later(7 * 86_400_000 - 60_000), now)).toBe('in 7 days');
    expect(timeUntil(later(3 * 86_400_000), now)).toBe('in 3 days');
  });
});

describe('linkRowAction', () => {
  it('copies or opens an address this dialog knows, and revokes only a live link', () => {
    const made = { known: true, state: 'live' as const };
    expect(['Enter', ' ', 'c', 'o', 'Delete', '#', 'x', 'j'].map((key) => linkRowAction(key, made))).toEqual([
      'copy',
      'copy',
      'copy',
      'open',
      'revoke',
      'revoke',
      null,
      null,
    ]);
    // Made before this sitting: the node has only a hash of its address.
    expect(['Enter', 'o', 'Delete'].map((key) => linkRowAction(key, { known: false, state: 'live' }))).toEqual([null, null, 'revoke']);
    expect(linkRowAction('Delete', { known: true, state: 'revoked' })).toBeNull();
    expect(linkRowAction('#', { known: false, state: 'expired' })).toBeNull();
  });
});
