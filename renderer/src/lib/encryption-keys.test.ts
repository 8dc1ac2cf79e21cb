import { describe, expect, it } from 'vitest';
import { earlierKeysText, keyHealthBadge, keyHealthText, timeUntil } from './encryption-keys.ts';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const node = { holder: 'node' as const, expires_at: '2026-05-30T10:00:00.000Z', renews_at: '2026-05-15T10:00:00.000Z' };
const self = { holder: 'self' as const, expires_at: '2026-05-30T10:00:00.000Z', renews_at: null };

describe('encryption key words', () => {
  it('say when a published key renews (the node’s) or expires (a client’s)', () => {
    expect(keyHealthText({ ...node, state: 'published' }, 'active', NOW)).toBe('published, renews 15 May');
    expect(keyHealthText({ ...self, state: 'published' }, 'active', NOW)).toBe('published, expires 30 May');
    expect(keyHealthBadge({ ...node, state: 'published' }, 'active', NOW)).toEqual({
      text: 'Key published',
      tone: 'ok',
      hint: 'End-to-end encryption key: published, renews 15 May.',
    });
  });

  it('say how soon an expiring key expires and who renews it', () => {
    const soon = new Date('2026-05-18T10:00:00.000Z');
    expect(keyHealthText({ ...node, state: 'expiring' }, 'active', soon)).toBe('expiring in 12 days (the node renews it within a day)');
    expect(keyHealthText({ ...self, state: 'expiring' }, 'active', soon)).toBe('expiring in 12 days (its own client must publish a new one)');
    expect(keyHealthBadge({ ...node, state: 'expiring' }, 'active', soon)).toMatchObject({ text: 'Key expiring', tone: 'warn' });
  });

  it('say an expired key stops senders, and a missing one is the identity’s own to publish', () => {
    expect(keyHealthText({ ...self, state: 'expired' }, 'active', NOW)).toBe('expired: senders cannot encrypt to it until its own client publishes a new one');
    expect(keyHealthBadge({ ...node, state: 'expired' }, 'active', NOW)).toMatchObject({ text: 'Key expired', tone: 'danger' });
    const none = { holder: 'self' as const, expires_at: null, renews_at: null, state: 'missing' as const };
    expect(keyHealthText(none, 'active', NOW)).toBe('not published (the identity holds its own keys)');
    expect(keyHealthBadge(none, 'active', NOW)).toMatchObject({ text: 'No key', tone: 'neutral' });
    expect(keyHealthBadge({ ...none, holder: 'node' }, 'active', NOW)).toMatchObject({ text: 'No key', tone: 'warn' });
    expect(keyHealthText({ ...node, state: 'missing' }, 'replaced', NOW)).toMatch(/^no longer published \(the identity was replaced/);
  });

  it('count earlier keys, and say the node keeps its own', () => {
    expect(earlierKeysText({ earlier_keys: 0, holder: 'node' })).toBeNull();
    expect(earlierKeysText({ earlier_keys: 1, holder: 'node' })).toBe('1 earlier key, kept so old messages stay readable');
    expect(earlierKeysText({ earlier_keys: 2, holder: 'self' })).toBe('2 earlier keys');
  });

  it('put a time ahead in words', () => {
    expect(timeUntil(new Date(NOW.getTime() + 30 * 60_000), NOW)).toBe('within the hour');
    expect(timeUntil(new Date(NOW.getTime() + 5 * 3_600_000), NOW)).toBe('in 5 h');
    expect(timeUntil(new Date(NOW.getTime() + 36 * 3_600_000), NOW)).toBe('in 1 day');
  });
});
