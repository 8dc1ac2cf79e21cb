import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../api/client.ts';
import {
  confirmSend,
  failSend,
  mergeMessages,
  othersLeft,
  pendingEntry,
  presence,
  readMarks,
  sent,
  sessionTitle,
  sortSessions,
  toMarkRead,
} from '../chat.ts';

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
    to: '',
    to_did: '',
    body: id,
    timestamp: at,
    created_at: at,
    sender_leaving: false,
    hang_on: false,
    reply_to: null,
    signature: 'sig',
    ...extra,
  };
}

describe('conversation merging', () => {
  it('orders by time, replaces known ids, keeps sends in flight at the end', () => {
    let entries = [sent(message('m1', 'bob', '2026-01-01T00:00:01.000Z'))];
    entries = [...entries, pendingEntry('local-1', ME, 's', 'hi', false, new Date('2026-01-01T00:00:05Z'))];
    entries = mergeMessages(entries, [message('m2', 'bob', '2026-01-01T00:00:03.000Z'), message('m1', 'bob', '2026-01-01T00:00:01.000Z')]);
    expect(entries.map((e) => [e.key, e.delivery])).toEqual([
      ['m1', 'sent'],
      ['m2', 'sent'],
      ['local-1', 'sending'],
    ]);
  });

  it('confirms a send in place, or drops the local copy when the stream was first', () => {
    const local = pendingEntry('local-1', ME, 's', 'hi', false, new Date('2026-01-01T00:00:05Z'));
    const confirmed = confirmSend([local], 'local-1', 'm9');
    expect(confirmed.map((e) => [e.key, e.delivery, e.message.message_id])).toEqual([['m9', 'sent', 'm9']]);

    const raced = mergeMessages([local], [message('m9', 'me', '2026-01-01T00:00:05.100Z', { body: 'hi' })]);
    expect(confirmSend(raced, 'local-1', 'm9').map((e) => e.key)).toEqual(['m9']);
  });

  it('marks a failed send with the reason', () => {
    const local = pendingEntry('local-1', ME, 's', 'hi', true, new Date());
    const [failed] = failSend([local], 'local-1', 'Session not found');
    expect(failed).toMatchObject({ delivery: 'failed', error: 'Session not found' });
    expect(failed?.message.sender_leaving).toBe(true);
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

  it('knows when the others said they were leaving', () => {
    expect(othersLeft(entries, 'me')).toBe(false);
    const left = mergeMessages(entries, [message('m5', 'bob', '2026-01-01T00:00:05Z', { sender_leaving: true })]);
    expect(othersLeft(left, 'me')).toBe(true);
    // My own goodbye is not theirs.
    expect(othersLeft(mergeMessages(left, [message('m6', 'bob', '2026-01-01T00:00:06Z')]), 'me')).toBe(false);
  });

  it('marks read up to the newest message from someone else, once', () => {
    expect(toMarkRead(entries, 'me', null)).toBe('m3');
    expect(toMarkRead(entries, 'me', 'm3')).toBeNull();
    expect(toMarkRead(entries.slice(0, 2), 'me', null)).toBeNull();
  });
});

describe('sessions', () => {
  const session = (id: string, at: string, participants: string[] = ['bob']) => ({
    session_id: id,
    participants,
    participant_addresses: participants,
    participant_dids: [],
    created_at: at,
    last_activity: at,
    sender_waiting: false,
    unread_count: 0,
  });

  it('titles by the other participants', () => {
    expect(sessionTitle({ participants: ['bob'] })).toBe('bob');
    expect(sessionTitle({ participants: ['bob', 'carol'] })).toBe('bob and carol');
    expect(sessionTitle({ participants: ['bob', 'carol', 'dave'] })).toBe('bob, carol and 1 other');
    expect(sessionTitle({ participants: ['a', 'b', 'c', 'd'] })).toBe('a, b and 2 others');
  });

  it('sorts by latest activity', () => {
    expect(sortSessions([session('old', '2026-01-01T00:00:00Z'), session('new', '2026-01-02T00:00:00Z')]).map((s) => s.session_id)).toEqual([
      'new',
      'old',
    ]);
  });

  it('says waiting when someone is in the chat and it is my turn', () => {
    const last = { body: 'x', from_alias: 'bob', created_at: '', mine: false, leaving: false };
    expect(presence({ sender_waiting: false, unread_count: 3 }, last)).toBeNull();
    expect(presence({ sender_waiting: true, unread_count: 1 }, null)).toBe('waiting');
    expect(presence({ sender_waiting: true, unread_count: 0 }, last)).toBe('waiting');
    expect(presence({ sender_waiting: true, unread_count: 0 }, { ...last, mine: true })).toBe('present');
    expect(presence({ sender_waiting: true, unread_count: 1 }, { ...last, leaving: true })).toBeNull();
  });
});
