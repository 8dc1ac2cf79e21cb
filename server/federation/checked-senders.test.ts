/** What is remembered of a sender checked with its node: by address and key, for its time to live, the oldest going first. */
import { describe, expect, it } from 'vitest';
import { CHECKED_SENDER_TTL_MS, CheckedSenders } from './checked-senders.ts';

const checked = { nodeUrl: 'https://node.a.test', namespaceTrust: 'unverified' as const };

describe('CheckedSenders', () => {
  it('remembers a check of an address holding a key until its time to live is over', () => {
    const senders = new CheckedSenders();
    expect(senders.get('a.test/ann', 'did:key:z1', 0)).toBeNull();
    senders.remember('a.test/ann', 'did:key:z1', checked, 1_000);
    expect(senders.get('a.test/ann', 'did:key:z1', 1_000 + CHECKED_SENDER_TTL_MS - 1)).toEqual(checked);
    expect(senders.get('a.test/ann', 'did:key:z1', 1_000 + CHECKED_SENDER_TTL_MS)).toBeNull();
    // Forgotten once stale, whatever time is asked about after.
    expect(senders.get('a.test/ann', 'did:key:z1', 1_000)).toBeNull();
  });

  it('keys a check by address and key: another key, or the key at another address, is not vouched for', () => {
    const senders = new CheckedSenders(60_000);
    senders.remember('a.test/ann', 'did:key:z1', checked, 0);
    expect(senders.get('a.test/ann', 'did:key:z2', 1)).toBeNull();
    expect(senders.get('a.test/eve', 'did:key:z1', 1)).toBeNull();
    expect(senders.get('a.test/ann', 'did:key:z1', 1)).toEqual(checked);
  });

  it('renews a check remembered again, and beyond ten thousand senders forgets the one checked longest ago', () => {
    const senders = new CheckedSenders(60_000);
    for (let i = 0; i < 10_000; i++) senders.remember(`a.test/s${i}`, 'did:key:z', checked, 0);
    // The first is checked again: it is now the newest.
    senders.remember('a.test/s0', 'did:key:z', checked, 10);
    senders.remember('a.test/new', 'did:key:z', checked, 20);
    expect(senders.get('a.test/s0', 'did:key:z', 30)).toEqual(checked);
    expect(senders.get('a.test/s1', 'did:key:z', 30)).toBeNull();
    expect(senders.get('a.test/s2', 'did:key:z', 30)).toEqual(checked);
    expect(senders.get('a.test/new', 'did:key:z', 30)).toEqual(checked);
    // A renewed check lives its whole time again.
    expect(senders.get('a.test/s0', 'did:key:z', 60_009)).toEqual(checked);
  });
});
