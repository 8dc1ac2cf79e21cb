import { describe, expect, it } from 'vitest';
import type { ChatMember, ChatMessage } from '../api/chat.ts';
import {
  confirmSend,
  conversationOthers,
  conversationStatus,
  failSend,
  formatKiB,
  isRetryable,
  MAX_CHAT_MESSAGE_BYTES,
  memberStates,
  mergeMessages,
  messageSize,
  pendingEntry,
  readMarks,
  receiptsFrom,
  sent,
  timeline,
  toMarkRead,
  utf8Length,
} from './chat.ts';

const ME = { agent_id: 'me', alias: 'alice', address: 'acme.test/alice', did_key: 'did:key:z6Mkalice' };

function message(id: string, from: 'me' | 'bob', at: string, extra: Partial<ChatMessage> = {}): ChatMessage {
  return {
    message_id: id,
    session_id: 's',
    from_agent_id: from === 'me' ? 'me' : 'bob-agent',
    from_alias: from === 'me' ? 'alice' : 'bob',
    from_address: null,
    from_did: 'did:key:z6Mk',
    from_stable_id: null,
    from_agent: from === 'me' ? 'alice' : 'bob',
    to: '',
    to_address: '',
    to_did: '',
    to_stable_id: null,
    body: id,
    timestamp: at,
    created_at: at,
    sender_leaving: false,
    sender_rejoining: false,
    hang_on: false,
    extends_wait_seconds: 0,
    reply_to: null,
    wait_seconds: null,
    signature: 'sig',
    signed_payload: '{}',
    signing_key_id: 'did:key:z6Mk',
    is_contact: false,
    rotation_announcement: null,
    replacement_announcement: null,
    signature_status: 'verified',
    from_namespace_trust: null,
    end_to_end: false,
    content_mode: 'legacy_plaintext_v1',
    message_version: 1,
    ...extra,
  };
}

describe('conversation merging', () => {
  it('orders by time, replaces known ids, keeps sends in flight at the end', () => {
    let entries = [sent(message('m1', 'bob', '2026-01-01T00:00:01.000Z'))];
    entries = [...entries, pendingEntry('local-1', ME, 's', 'hi', {}, new Date('2026-01-01T00:00:05Z'))];
    entries = mergeMessages(entries, [message('m2', 'bob', '2026-01-01T00:00:03.000Z'), message('m1', 'bob', '2026-01-01T00:00:01.000Z')]);
    expect(entries.map((e) => [e.key, e.delivery])).toEqual([
      ['m1', 'sent'],
      ['m2', 'sent'],
      ['local-1', 'sending'],
    ]);
  });

  it('confirms a send in place, or drops the local copy when the stream was first', () => {
    const local = pendingEntry('local-1', ME, 's', 'hi', {}, new Date('2026-01-01T00:00:05Z'));
    const confirmed = confirmSend([local], 'local-1', 'm9');
    expect(confirmed.map((e) => [e.key, e.delivery, e.message.message_id])).toEqual([['m9', 'sent', 'm9']]);

    const raced = mergeMessages([local], [message('m9', 'me', '2026-01-01T00:00:05.100Z', { body: 'hi' })]);
    expect(confirmSend(raced, 'local-1', 'm9').map((e) => e.key)).toEqual(['m9']);
  });

  it('marks a failed send with the reason, and whether trying again could help', () => {
    const local = pendingEntry('local-1', ME, 's', 'hi', { leaving: true }, new Date());
    const [failed] = failSend([local], 'local-1', 'Session not found');
    expect(failed).toMatchObject({ delivery: 'failed', error: 'Session not found', retryable: true });
    expect(failed?.message.sender_leaving).toBe(true);
    expect(failSend([local], 'local-1', 'too large', false)[0]?.retryable).toBe(false);
  });

  it('offers a retry only for failures that could pass unchanged', () => {
    expect([0, 408, 429, 500, 502, 503].every(isRetryable)).toBe(true);
    expect([400, 401, 403, 404, 409, 413, 422].some(isRetryable)).toBe(false);
  });
});

describe('reading', () => {
  const entries = mergeMessages(
    [],
    [
      message('m1', 'me', '2026-01-01T00:00:01Z'),
      message('m2', 'me', '2026-01-01T00:00:02Z'),
      message('m3', 'bob', '2026-01-01T00:00:03Z'),
      message('m4', 'me', '2026-01-01T00:00:04Z'),
    ],
  );

  it('puts each receipt on my last message at or before what they read', () => {
    expect(readMarks(entries, { bob: 'm3' }, 'me')).toEqual(new Map([['m2', ['bob']]]));
    expect(readMarks(entries, { bob: 'm4', carol: 'm1' }, 'me')).toEqual(
      new Map([
        ['m4', ['bob']],
        ['m1', ['carol']],
      ]),
    );
    expect(readMarks(entries, { bob: 'unknown' }, 'me').size).toBe(0);
  });

  it('takes the read positions the history gave, except my own', () => {
    expect(receiptsFrom([member('me', 'alice', 'm4'), member('bob-agent', 'bob', 'm3'), member(null, 'carol', null)], 'me')).toEqual({ bob: 'm3' });
  });

  it('marks read up to the newest message from someone else, once', () => {
    expect(toMarkRead(entries, 'me', null)).toBe('m3');
    expect(toMarkRead(entries, 'me', 'm3')).toBeNull();
    expect(toMarkRead(entries.slice(0, 2), 'me', null)).toBeNull();
  });
});

function member(agentId: string | null, alias: string, readUpTo: string | null = null, leftAt: string | null = null): ChatMember {
  return {
    agent_id: agentId,
    alias,
    address: null,
    did: 'did:key:z',
    last_read_message_id: readUpTo,
    read_at: readUpTo === null ? null : 'T',
    left_at: leftAt,
  };
}

describe('membership', () => {
  const members = [member('me', 'alice'), member('bob-agent', 'bob', null, '2026-01-01T00:00:00Z')];
  const history = mergeMessages([], [message('m1', 'me', '2026-01-01T00:00:01Z')]);

  it('takes who left from the history, overtaken by a newer message of theirs', () => {
    expect(memberStates(members, history, 'me')).toEqual([
      { alias: 'alice', mine: true, leftAt: null },
      { alias: 'bob', mine: false, leftAt: '2026-01-01T00:00:00Z' },
    ]);
    // Bob writes again (as upstream apps rejoin): back. I leave: gone, from my confirmed goodbye.
    const later = mergeMessages(history, [message('m2', 'bob', '2026-01-01T00:00:02Z'), message('m3', 'me', '2026-01-01T00:00:03Z', { sender_leaving: true })]);
    expect(memberStates(members, later, 'me')).toEqual([
      { alias: 'alice', mine: true, leftAt: '2026-01-01T00:00:03Z' },
      { alias: 'bob', mine: false, leftAt: null },
    ]);
    // A send still in flight says nothing yet.
    const sending = [...history, pendingEntry('local-9', ME, 's', 'bye', { leaving: true }, new Date())];
    expect(memberStates(members, sending, 'me')[0]?.leftAt).toBeNull();
  });

  it('says in the header that I left, that they left, or that someone is here', () => {
    const here = { alias: 'alice', mine: true, leftAt: null };
    const bob = { alias: 'bob', mine: false, leftAt: null };
    expect(conversationStatus([{ ...here, leftAt: 'T' }, bob], true)).toEqual({ kind: 'you-left', text: 'You left this chat' });
    expect(conversationStatus([here, { ...bob, leftAt: 'T' }], true)).toEqual({ kind: 'they-left', text: 'left the chat' });
    expect(conversationStatus([here, bob], true)).toEqual({ kind: 'present', text: 'in the chat' });
    expect(conversationStatus([here, bob], false)).toBeNull();
    const group = [here, { ...bob, leftAt: 'T' }, { alias: 'carol', mine: false, leftAt: null }];
    expect(conversationStatus(group, false)).toEqual({ kind: 'they-left', text: 'bob left the chat' });
    expect(conversationStatus(group, true)).toEqual({ kind: 'present', text: 'in the chat' });
    expect(conversationStatus([here, { ...bob, leftAt: 'T' }, { alias: 'carol', mine: false, leftAt: 'T' }], false)?.text).toBe('bob and carol left the chat');
  });

  it('names the others from the session row, or from the history when the row is not loaded', () => {
    expect(conversationOthers({ participants: ['bob'], participant_addresses: ['x.test/bob'] }, members, 'me')).toEqual([
      { alias: 'bob', address: 'x.test/bob' },
    ]);
    expect(conversationOthers(null, members, 'me')).toEqual([{ alias: 'bob', address: 'bob' }]);
  });
});

describe('the timeline', () => {
  const rows = (entries: ReturnType<typeof mergeMessages>) =>
    timeline(entries, 'me').map((row) =>
      row.kind === 'system' ? `— ${row.text}${row.note ? `: ${row.note}` : ''}` : `${row.key}${row.first ? ' first' : ''}${row.last ? ' last' : ''}`,
    );

  it('shows a goodbye and a return as lines, not bubbles, and breaks groups there', () => {
    const entries = mergeMessages(
      [],
      [
        message('m1', 'bob', '2026-01-01T00:00:01Z'),
        message('m2', 'bob', '2026-01-01T00:00:02Z'),
        message('m3', 'me', '2026-01-01T00:00:03Z', { sender_leaving: true, body: 'Left the chat.' }),
        message('m4', 'me', '2026-01-01T00:00:04Z', { sender_rejoining: true, body: 'Rejoined the chat.' }),
        message('m5', 'me', '2026-01-01T00:00:05Z'),
        message('m6', 'bob', '2026-01-01T00:00:06Z', { sender_leaving: true, body: 'see you' }),
        // Bob's app rejoins by writing again, as upstream's do.
        message('m7', 'bob', '2026-01-01T00:00:07Z'),
      ],
    );
    expect(rows(entries)).toEqual([
      'm1 first',
      'm2 last',
      '— You left the chat',
      '— You rejoined the chat',
      'm5 first last',
      '— bob left the chat: see you',
      '— bob rejoined the chat',
      'm7 first last',
    ]);
  });

  it('shows my sends in flight as messages', () => {
    const entries = [...mergeMessages([], [message('m1', 'me', '2026-01-01T00:00:01Z')]), pendingEntry('local-1', ME, 's', 'hi', {}, new Date())];
    expect(rows(entries)).toEqual(['m1 first', 'local-1 last']);
  });
});

describe('size', () => {
  it('is the node’s limit', () => {
    // One number for the node and the UI (contract/core-rules.ts); test/api/chat.test.ts checks the node refuses one byte more.
    expect(MAX_CHAT_MESSAGE_BYTES).toBe(64 * 1024);
  });

  it('counts UTF-8 bytes as the node does', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a😀é€\n', '\ud800x', 'x\udc00']) {
      expect(utf8Length(text), JSON.stringify(text)).toBe(new TextEncoder().encode(text).length);
    }
  });

  it('says nothing far from the limit, counts near it, and says the limit over it', () => {
    expect(messageSize('hello')).toEqual({ bytes: 5, state: 'ok', text: null });
    expect(messageSize('x'.repeat(60 * 1024))).toEqual({ bytes: 61440, state: 'near', text: '60 KiB of 64 KiB' });
    expect(messageSize('x'.repeat(64 * 1024)).state).toBe('near');
    expect(messageSize('x'.repeat(200 * 1000))).toEqual({
      bytes: 200000,
      state: 'over',
      text: 'Too long to send: 195.3 KiB, and a chat message holds at most 64 KiB.',
    });
    // Bytes, not characters: 22,000 euro signs are 66,000 bytes.
    expect(messageSize('€'.repeat(22_000)).state).toBe('over');
    expect(formatKiB(1536)).toBe('1.5 KiB');
  });
});
