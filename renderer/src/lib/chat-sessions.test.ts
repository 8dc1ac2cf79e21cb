import { describe, expect, it } from 'vitest';
import type { ChatSession } from '../api/chat.ts';
import { lastFromMessage, lastFromSummary, lastFromWake, lastPreview, moveToFront, presence, sessionTitle, withSummaries } from './chat-sessions.ts';

describe('sessions', () => {
  const session = (id: string, at: string, participants: string[] = ['bob']): ChatSession => ({
    session_id: id,
    participants,
    participant_addresses: participants,
    participant_dids: [],
    created_at: at,
    last_activity: at,
    sender_waiting: false,
    unread_count: 0,
    last_message: null,
    participants_left: [],
    you_left: false,
  });

  it('titles by the other participants', () => {
    expect(sessionTitle({ participants: ['bob'] })).toBe('bob');
    expect(sessionTitle({ participants: ['bob', 'carol'] })).toBe('bob and carol');
    expect(sessionTitle({ participants: ['bob', 'carol', 'dave'] })).toBe('bob, carol and 1 other');
    expect(sessionTitle({ participants: ['a', 'b', 'c', 'd'] })).toBe('a, b and 2 others');
  });

  it('moves a busy session to the top', () => {
    const list = [
      session('a', '2026-01-05T00:00:00Z'),
      session('b', '2026-01-04T00:00:00Z'),
      session('c', '2026-01-03T00:00:00Z'),
      session('d', '2026-01-02T00:00:00Z'),
    ];
    const moved = moveToFront(list, 'd', (s) => ({ ...s, unread_count: 1 }));
    expect(moved.map((s) => [s.session_id, s.unread_count])).toEqual([
      ['d', 1],
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]);
    expect(moveToFront(list, 'nope', (s) => s)).toEqual(list);
  });

  it('previews the last message, a goodbye or a return in words', () => {
    const summary = {
      message_id: 'm',
      from_agent_id: 'me',
      from_alias: 'alice',
      from_address: null,
      preview: 'Left the chat.',
      end_to_end: false,
      created_at: 'T',
      sender_leaving: true,
      sender_rejoining: false,
    };
    expect(lastPreview(lastFromSummary(summary, 'me'))).toBe('You left the chat');
    expect(lastFromSummary({ ...summary, end_to_end: true }, 'me')).toMatchObject({ message_id: 'm', end_to_end: true });
    expect(lastPreview(lastFromSummary({ ...summary, from_agent_id: null, from_alias: 'bob', sender_leaving: false, sender_rejoining: true }, 'me'))).toBe(
      'bob rejoined the chat',
    );
    expect(lastPreview(lastFromSummary({ ...summary, sender_leaving: false, preview: 'hi' }, 'me'))).toBe('You: hi');
    expect(lastPreview(lastFromSummary({ ...summary, from_agent_id: 'bob', sender_leaving: false, preview: 'hi' }, 'me'))).toBe('hi');
  });

  it('previews a message of the open conversation: mine, a goodbye or a return in words', () => {
    const mine = {
      message_id: 'm1',
      body: 'm1',
      from_alias: 'alice',
      from_agent_id: 'me',
      created_at: 'T',
      sender_leaving: false,
      sender_rejoining: false,
      end_to_end: true,
    };
    expect(lastFromMessage(mine, 'me')).toEqual({
      message_id: 'm1',
      body: 'm1',
      from_alias: 'alice',
      created_at: 'T',
      mine: true,
      leaving: false,
      rejoining: false,
      end_to_end: true,
    });
    // A send of mine the node has not read back: how it went is not known yet.
    expect(lastFromMessage(mine, 'me', null).end_to_end).toBeNull();
    expect(lastPreview(lastFromMessage({ ...mine, from_agent_id: 'bob-agent', from_alias: 'bob', sender_leaving: true }, 'me'))).toBe('bob left the chat');
    expect(lastPreview(lastFromMessage({ ...mine, sender_rejoining: true }, 'me'))).toBe('You rejoined the chat');
  });

  it('previews a message arriving live for a chat not open: a goodbye or a return in words at once', () => {
    const item = { message_id: 'w1', from_alias: 'bob', preview: 'Off for the weekend, bye', created_at: 'T' };
    expect(lastPreview(lastFromWake({ ...item, sender_leaving: true, sender_rejoining: false }))).toBe('bob left the chat');
    expect(lastPreview(lastFromWake({ ...item, preview: 'Rejoined the chat.', sender_leaving: false, sender_rejoining: true }))).toBe('bob rejoined the chat');
    expect(lastPreview(lastFromWake({ ...item, sender_leaving: false, sender_rejoining: false }))).toBe('Off for the weekend, bye');
    // An item from an older node says neither: its text, as before.
    // Nor does the feed's notice say how it was encrypted: no mark until the list is read again.
    expect(lastFromWake(item)).toEqual({
      message_id: 'w1',
      body: 'Off for the weekend, bye',
      from_alias: 'bob',
      created_at: 'T',
      mine: false,
      leaving: false,
      rejoining: false,
      end_to_end: null,
    });
  });

  it('says waiting when someone is in the chat and it is my turn', () => {
    const last = { message_id: 'm', body: 'x', from_alias: 'bob', created_at: '', mine: false, leaving: false, end_to_end: null };
    expect(presence({ sender_waiting: false, unread_count: 3 }, last)).toBeNull();
    expect(presence({ sender_waiting: true, unread_count: 1 }, null)).toBe('waiting');
    expect(presence({ sender_waiting: true, unread_count: 0 }, last)).toBe('waiting');
    expect(presence({ sender_waiting: true, unread_count: 0 }, { ...last, mine: true })).toBe('present');
    expect(presence({ sender_waiting: true, unread_count: 1 }, { ...last, leaving: true })).toBeNull();
    // Nobody waits for me in a chat I left.
    expect(presence({ sender_waiting: true, unread_count: 1, you_left: true }, last)).toBeNull();
  });

  it('takes in each page’s summaries, keeping a newer one already known', () => {
    const summary = {
      message_id: 'm',
      from_agent_id: 'bob-agent',
      from_alias: 'bob',
      from_address: null,
      preview: 'page',
      end_to_end: false,
      created_at: '2026-01-02T00:00:00Z',
      sender_leaving: false,
      sender_rejoining: false,
    };
    const live = { message_id: 'm2', body: 'live', from_alias: 'bob', created_at: '2026-01-03T00:00:00Z', mine: false, leaving: false, end_to_end: null };
    const page = [
      { ...session('a', summary.created_at), last_message: summary },
      { ...session('b', summary.created_at), last_message: summary },
      session('c', summary.created_at),
    ];
    const next = withSummaries({ a: live }, page, 'me');
    expect(next).toEqual({ a: live, b: lastFromSummary(summary, 'me') });
  });
});
