/**
 * Words for an identity's end-to-end encryption key as the owner's list reports it: a badge for
 * the identity's row and the sentence its details say. Pure (the time is passed in) and tested in
 * encryption-keys.test.ts.
 */
import type { EncryptionKeySummary, IdentityStatus } from '../api/owner.ts';
import { plural, relativeTime } from './format.ts';
import type { BadgeLabel } from './labels.ts';

type KeyHealth = Pick<EncryptionKeySummary, 'state' | 'holder' | 'expires_at' | 'renews_at'>;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** How long until a future time, in words: "in 12 days", "in 5 h", "within the hour". */
export function timeUntil(date: Date, now: Date): string {
  const ms = date.getTime() - now.getTime();
  if (ms < HOUR_MS) return 'within the hour';
  if (ms < DAY_MS) return `in ${Math.floor(ms / HOUR_MS)} h`;
  return `in ${plural(Math.floor(ms / DAY_MS), 'day')}`;
}

/** What comes after "End-to-end encryption key:" for this identity, at `now`. */
export function keyHealthText(key: KeyHealth, status: IdentityStatus, now: Date): string {
  if (status === 'replaced') return 'no longer published (the identity was replaced; its old keys stay on this node)';
  const self = key.holder === 'self';
  const expires = key.expires_at === null ? null : new Date(key.expires_at);
  switch (key.state) {
    case 'published':
      if (!self && key.renews_at !== null) return `published, renews ${relativeTime(new Date(key.renews_at), now)}`;
      return expires === null ? 'published' : `published, expires ${relativeTime(expires, now)}`;
    case 'expiring': {
      const when = expires === null ? '' : ` ${timeUntil(expires, now)}`;
      return `expiring${when} (${self ? 'its own client must publish a new one' : 'the node renews it within a day'})`;
    }
    case 'expired':
      return `expired: senders cannot encrypt to it until ${self ? 'its own client publishes a new one' : 'the node renews it (within a day)'}`;
    case 'missing':
      return self ? 'not published (the identity holds its own keys)' : 'not published yet (the node makes one within a day)';
  }
}

/** The row's badge: the key's state in two words, the sentence as its tooltip. */
export function keyHealthBadge(key: KeyHealth, status: IdentityStatus, now: Date): BadgeLabel {
  const hint = `End-to-end encryption key: ${keyHealthText(key, status, now)}.`;
  if (status === 'replaced') return { text: 'No key', tone: 'neutral', hint };
  switch (key.state) {
    case 'published':
      return { text: 'Key published', tone: 'ok', hint };
    case 'expiring':
      return { text: 'Key expiring', tone: 'warn', hint };
    case 'expired':
      return { text: 'Key expired', tone: 'danger', hint };
    case 'missing':
      return { text: 'No key', tone: key.holder === 'self' ? 'neutral' : 'warn', hint };
  }
}

/** "rotated" and how many earlier keys the node keeps; null for a key that replaced none. */
export function earlierKeysText(key: Pick<EncryptionKeySummary, 'earlier_keys' | 'holder'>): string | null {
  if (key.earlier_keys === 0) return null;
  const kept = key.holder === 'node' ? ', kept so old messages stay readable' : '';
  return `${plural(key.earlier_keys, 'earlier key')}${kept}`;
}
