import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../api/chat.ts';
import { trustShownFor } from './chat-trust.ts';

const BOB = 'did:key:z6MkBob';
const CAROL = 'did:key:z6MkCarol';

function entry(
  key: string,
  from: { agent: string; address: string; did: string },
  fields: Partial<ChatMessage> = {},
  delivery: 'sent' | 'sending' | 'failed' = 'sent',
) {
  return {
    key,
    delivery,
    message: {
      from_agent_id: from.agent,
      from_address: from.address,
      from_did: from.did,
      signature: 'sig',
      signature_status: 'verified' as const,
      from_namespace_trust: 'verified' as const,
      ...fields,
    },
  };
}

const bob = { agent: 'bob', address: 'acme.test/bob', did: BOB };
const carol = { agent: 'carol', address: 'acme.test/carol', did: CAROL };
const me = { agent: 'me', address: 'acme.test/me', did: 'did:key:z6MkMe' };

describe('trust chips in a conversation', () => {
  it('show once per sender, on the first message, not on every bubble', () => {
    const entries = [entry('1', bob), entry('2', bob), entry('3', me), entry('4', bob), entry('5', carol), entry('6', carol)];
    expect([...trustShownFor(entries, 'me')]).toEqual(['1', '5']);
  });

  it('show again when the sender’s key or the trust in its domain changes', () => {
    const entries = [
      entry('1', bob),
      entry('2', bob, { from_did: 'did:key:z6MkBobNew' }),
      entry('3', bob, { from_did: 'did:key:z6MkBobNew' }),
      entry('4', bob, { from_did: 'did:key:z6MkBobNew', from_namespace_trust: 'unverified' }),
    ];
    expect([...trustShownFor(entries, 'me')]).toEqual(['1', '2', '4']);
  });

  it('always show a signature that fails, is missing or could not be checked', () => {
    const entries = [
      entry('1', bob),
      entry('2', bob, { signature_status: 'failed' }),
      entry('3', bob, { signature: '' }),
      entry('4', bob, { signature_status: 'unverified' }),
      entry('5', bob, { signature_status: 'unverified' }),
      entry('6', bob),
    ];
    expect([...trustShownFor(entries, 'me')]).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  it('never on my own messages, nor on one not yet sent', () => {
    expect([...trustShownFor([entry('1', me), entry('2', bob, {}, 'sending')], 'me')]).toEqual([]);
  });
});
