// @vitest-environment jsdom
/**
 * The chat store: sessions paged from the node, the open conversation over its stream (each
 * message once, however it arrives), optimistic sends and their refusals, membership, and new
 * messages from the owner feed.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChatHistory, ChatSession, ChatSessionsPage, SendChatResult } from '../api/chat.ts';
import { ApiError } from '../api/errors.ts';
import { MAX_CHAT_MESSAGE_BYTES } from '../lib/chat.ts';
import { lastPreview } from '../lib/chat-sessions.ts';
import { useChatStore } from './chat.ts';
import { useDirectoryStore } from './directory.ts';
import { useLiveStore } from './live.ts';
import { chatMessage, chatSession, chatWake, connectFakeNode, deferred, identity, pendingChat, type FakeNode } from './test-client.ts';
import { useUnreadStore } from './unread.ts';

const ADA = 'agent-ada';
const S = 's-1';
const AT_PAGE = '2026-03-01T09:00:00.000Z';

let node: FakeNode;
/** The node's sessions, newest activity first. */
let sessions: ChatSession[];
let history: ChatHistory;

function sentAs(messageId: string): SendChatResult {
  return { message_id: messageId, session_id: S, delivered: true, extends_wait_seconds: 0 };
}

beforeEach(async () => {
  window.localStorage.clear();
  window.sessionStorage.clear();
  node = connectFakeNode();
  node.holdsIdentities(identity('ada'));
  node.chat.pending = async () => ({ pending: [], messages_waiting: 0 });
  sessions = Array.from({ length: 150 }, (_, n) => chatSession(`s-${n + 1}`, { last_activity: `2026-03-01T10:00:00.${String(999 - n).padStart(3, '0')}Z` }));
  node.chat.sessionsPage = async ({ limit, before }) => {
    const start = before === null || before === undefined ? 0 : sessions.findIndex((s) => s.session_id === before) + 1;
    const page = sessions.slice(start, start + limit);
    const hasMore = start + limit < sessions.length;
    return { sessions: page, has_more: hasMore, next_before: hasMore ? page.at(-1)!.session_id : null } satisfies ChatSessionsPage;
  };
  history = {
    messages: [chatMessage('c-1', S, { created_at: '2026-03-01T10:00:01.000Z' }), chatMessage('c-2', S, { created_at: '2026-03-01T10:00:02.000Z' })],
    participants: [
      { agent_id: ADA, alias: 'ada', address: 'example.com/ada', did: 'did:key:zada', last_read_message_id: 'c-2', read_at: null, left_at: null },
      { agent_id: 'agent-bo', alias: 'bo', address: 'example.com/bo', did: 'did:key:zbo', last_read_message_id: 'c-1', read_at: null, left_at: null },
    ],
  };
  node.chat.conversation = async () => history;
  useLiveStore().start();
  await useDirectoryStore().load();
});

async function shown() {
  const chat = useChatStore();
  await chat.show(ADA);
  return chat;
}

async function opened() {
  const chat = await shown();
  await chat.openConversation(S);
  return chat;
}

describe('chat store: sessions', () => {
  it('reads the first page of sessions, and the next after the last one read', async () => {
    const chat = await shown();
    expect(chat.sessions).toHaveLength(100);
    await chat.loadMore();
    expect(chat.sessions).toHaveLength(150);
    expect(node.callsTo('chat', 'sessionsPage').map((c) => c.args[0])).toEqual([
      { limit: 100, before: null },
      { limit: 100, before: 's-100' },
    ]);
    await chat.loadMore();
    expect(node.callsTo('chat', 'sessionsPage')).toHaveLength(2);
  });

  it('moves a session that got a message to the top, one more unread, highlighted', async () => {
    const chat = await shown();
    node.feed.item(chatWake(ADA, 's-7', { created_at: '2026-03-01T11:00:00.000Z' }));
    expect(chat.sessions[0]).toMatchObject({ session_id: 's-7', unread_count: 1, last_activity: '2026-03-01T11:00:00.000Z' });
    expect(chat.fresh['s-7']).toBe(true);
    expect(node.callsTo('chat', 'sessionsPage')).toHaveLength(1);
  });

  it('reads the first page again for a message in a session it does not list', async () => {
    const chat = await shown();
    sessions = [chatSession('s-new'), ...sessions];
    node.feed.item(chatWake(ADA, 's-new'));
    await expect.poll(() => chat.sessions[0]?.session_id).toBe('s-new');
    expect(chat.sessions).toHaveLength(101);
  });

  it('takes the rows’ unread counts and who waits from the badges’ pending list, zero for a session read elsewhere', async () => {
    sessions = sessions.map((s, n) => (n < 2 ? { ...s, unread_count: 3 } : s));
    const chat = await shown();
    expect(chat.sessions.slice(0, 2).map((s) => s.unread_count)).toEqual([3, 3]);
    // s-1 was read in another window; s-2 got one more, and its sender waits in it.
    node.chat.pending = async () => ({ pending: [pendingChat('s-2', { unread_count: 4, sender_waiting: true })], messages_waiting: 0 });
    await useUnreadStore().refresh();
    await expect
      .poll(() => chat.sessions.slice(0, 2).map((s) => [s.session_id, s.unread_count, s.sender_waiting]))
      .toEqual([
        ['s-1', 0, false],
        ['s-2', 4, true],
      ]);
  });

  it('says how each row’s last message went, as the node’s page says it and as a live arrival says it', async () => {
    const last = (id: string, endToEnd: boolean) => ({
      message_id: id,
      from_agent_id: 'agent-bo',
      from_alias: 'bo',
      from_address: null,
      preview: 'hi',
      end_to_end: endToEnd,
      created_at: AT_PAGE,
      sender_leaving: false,
      sender_rejoining: false,
    });
    sessions = sessions.map((s, n) => (n === 0 ? { ...s, last_message: last('m-1', true) } : n === 1 ? { ...s, last_message: last('m-2', false) } : s));
    const chat = await shown();
    expect([chat.last['s-1']?.end_to_end, chat.last['s-2']?.end_to_end]).toEqual([true, false]);
    node.feed.item(chatWake(ADA, 's-2', { created_at: '2026-03-01T11:00:00.000Z', preview: '', end_to_end: true }));
    expect(chat.last['s-2']).toMatchObject({ end_to_end: true, body: '' });
    expect(lastPreview(chat.last['s-2']!)).toBe('End-to-end encrypted message');
  });

  it('ignores chat for another identity', async () => {
    const chat = await shown();
    node.feed.item(chatWake('agent-bo', 's-7'));
    expect(chat.sessions[0]?.session_id).toBe('s-1');
    expect(chat.fresh).toEqual({});
  });
});

describe('chat store: the open conversation', () => {
  it('shows the history, and each participant’s read position as a receipt', async () => {
    const chat = await opened();
    expect(chat.entries.map((e) => e.key)).toEqual(['c-1', 'c-2']);
    expect(chat.receipts).toEqual({ bo: 'c-1' });
    expect(node.chatStream(S).handlers.after()).toBe('2026-03-01T10:00:02.000Z');
  });

  it('adds a message from the stream once, however often it comes', async () => {
    const chat = await opened();
    const message = chatMessage('c-3', S, { created_at: '2026-03-01T10:00:03.000Z' });
    node.pushChat(S, { kind: 'message', message });
    node.pushChat(S, { kind: 'message', message });
    expect(chat.entries.map((e) => e.key)).toEqual(['c-1', 'c-2', 'c-3']);
    expect(node.chatStream(S).handlers.after()).toBe('2026-03-01T10:00:03.000Z');
  });

  it('moves the others’ read receipts, never one of mine', async () => {
    const chat = await opened();
    const receipt = { type: 'read_receipt' as const, session_id: S, up_to_message_id: 'c-2', extends_wait_seconds: 0, timestamp: '2026-03-01T10:00:05Z' };
    node.pushChat(S, { kind: 'read_receipt', receipt: { ...receipt, reader_alias: 'bo' } });
    node.pushChat(S, { kind: 'read_receipt', receipt: { ...receipt, reader_alias: 'ada' } });
    expect(chat.receipts).toEqual({ bo: 'c-2' });
  });

  it('drops a history that arrives after another conversation was opened', async () => {
    const chat = await shown();
    const slow = deferred<ChatHistory>();
    node.chat.conversation = () => slow.promise;
    const first = chat.openConversation('s-2');
    node.chat.conversation = async () => history;
    await chat.openConversation(S);
    slow.resolve({ messages: [chatMessage('other', 's-2')], participants: [] });
    await first;
    expect(chat.openId).toBe(S);
    expect(chat.entries.map((e) => e.key)).toEqual(['c-1', 'c-2']);
    expect(node.chatStreams.filter((s) => !s.closed).map((s) => s.sessionId)).toEqual([S]);
  });

  it('says why the history could not be read', async () => {
    node.chat.conversation = async () => {
      throw new ApiError(404, 'No such chat session.');
    };
    const chat = await shown();
    await chat.openConversation(S);
    expect(chat.conversationError).toBe('No such chat session.');
    expect(chat.conversationLoading).toBe(false);
  });

  it('reads a conversation again when it is chosen again after its history failed', async () => {
    node.chat.conversation = async () => {
      throw new ApiError(0, 'The node can’t be reached.');
    };
    const chat = await shown();
    await chat.openConversation(S);
    expect(chat.conversationError).toBe('The node can’t be reached.');

    node.chat.conversation = async () => history;
    await chat.openConversation(S);
    expect(chat.conversationError).toBeNull();
    expect(chat.entries.map((e) => e.key)).toEqual(['c-1', 'c-2']);
    expect(node.chatStream(S).closed).toBe(false);
  });

  it('opens a conversation once while its history is on its way, and once it is open', async () => {
    const chat = await shown();
    await Promise.all([chat.openConversation(S), chat.openConversation(S)]);
    await chat.openConversation(S);
    expect(node.callsTo('chat', 'conversation')).toHaveLength(1);
    expect(node.chatStreams).toHaveLength(1);
  });
});

describe('chat store: sending', () => {
  it('shows a send at once, then as the node’s message, once even when the stream brought it first', async () => {
    const chat = await opened();
    const answer = deferred<SendChatResult>();
    node.chat.send = () => answer.promise;
    const sending = chat.send('Hello');
    expect(chat.entries.at(-1)).toMatchObject({ delivery: 'sending', message: { body: 'Hello', from_agent_id: ADA } });
    node.pushChat(S, {
      kind: 'message',
      message: chatMessage('c-3', S, { body: 'Hello', from_agent_id: ADA, from_alias: 'ada', created_at: '2026-03-01T10:00:03.000Z' }),
    });
    answer.resolve(sentAs('c-3'));
    await sending;
    expect(chat.entries.map((e) => [e.key, e.delivery])).toEqual([
      ['c-1', 'sent'],
      ['c-2', 'sent'],
      ['c-3', 'sent'],
    ]);
    expect(node.callsTo('chat', 'send').map((c) => c.args)).toEqual([[S, 'Hello', { leaving: false }]]);
    expect(chat.sessions[0]?.session_id).toBe(S);
  });

  it('marks a refused send failed with the node’s reason: retryable when trying again could help', async () => {
    const chat = await opened();
    node.chat.send = async () => {
      throw new ApiError(403, 'You are not in this chat.');
    };
    await chat.send('Hello');
    expect(chat.entries.at(-1)).toMatchObject({ delivery: 'failed', error: 'You are not in this chat.', retryable: false });

    node.chat.send = async () => {
      throw new ApiError(503, 'The node is busy.');
    };
    await chat.send('Again');
    expect(chat.entries.at(-1)).toMatchObject({ delivery: 'failed', error: 'The node is busy.', retryable: true });

    node.chat.send = async () => sentAs('c-9');
    const key = chat.entries.at(-1)!.key;
    chat.retry(key);
    await expect.poll(() => chat.entries.at(-1)?.delivery).toBe('sent');
    expect(chat.entries.at(-1)?.key).toBe('c-9');
  });

  it('gives a failed send back to the composer', async () => {
    const chat = await opened();
    node.chat.send = async () => {
      throw new ApiError(0, 'The node can’t be reached.');
    };
    await chat.send('Keep me');
    const key = chat.entries.at(-1)!.key;
    expect(chat.takeBack(key)).toBe('Keep me');
    expect(chat.entries.map((e) => e.key)).toEqual(['c-1', 'c-2']);
    expect(chat.takeBack('c-1')).toBeNull();
  });

  it('sends nothing over the node’s size limit, or while I am out of the chat', async () => {
    const chat = await opened();
    node.chat.send = async () => sentAs('c-x');
    await chat.send('x'.repeat(MAX_CHAT_MESSAGE_BYTES + 1));
    expect(node.callsTo('chat', 'send')).toEqual([]);

    node.chat.send = async () => sentAs('c-bye');
    await chat.leave();
    expect(chat.youLeft).toBe(true);
    expect(node.callsTo('chat', 'send').map((c) => c.args)).toEqual([[S, 'Left the chat.', { leaving: true }]]);
    await chat.send('Still here?');
    expect(node.callsTo('chat', 'send')).toHaveLength(1);
    expect(chat.sessions.find((s) => s.session_id === S)?.you_left).toBe(true);
  });

  it('gives a send refused for want of a key back to the composer, and sends it as plaintext only when asked', async () => {
    const chat = await opened();
    node.chat.send = async () => {
      throw new ApiError(409, 'example.com/bo publishes no valid encryption key, so nothing was sent.', [], 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING');
    };
    await chat.send('Secret plans');
    // Nothing of it stays in the conversation; its text and the node's reason wait in the offer.
    expect(chat.entries.map((e) => e.key)).toEqual(['c-1', 'c-2']);
    expect(chat.plaintextOffer).toEqual({
      sessionId: S,
      text: 'Secret plans',
      reason: 'example.com/bo publishes no valid encryption key, so nothing was sent.',
    });
    expect(node.callsTo('chat', 'send').map((c) => c.args)).toEqual([[S, 'Secret plans', { leaving: false }]]);

    const answer = deferred<SendChatResult>();
    node.chat.send = () => answer.promise;
    const sending = chat.send('Secret plans', { plaintext: true });
    expect(chat.plaintextOffer).toBeNull();
    expect(chat.entries.at(-1)).toMatchObject({ delivery: 'sending', plaintext: true });
    answer.resolve(sentAs('c-3'));
    await sending;
    expect(node.callsTo('chat', 'send').map((c) => c.args)).toEqual([
      [S, 'Secret plans', { leaving: false }],
      [S, 'Secret plans', { leaving: false, content_mode: 'legacy_plaintext_v1' }],
    ]);
    // Sent as plaintext by name: its row says so before the node's copy comes back.
    expect(chat.last[S]).toMatchObject({ message_id: 'c-3', end_to_end: false });
  });

  it('retries a plaintext send as plaintext, and shows any other encryption refusal in the node’s words', async () => {
    const chat = await opened();
    node.chat.send = async () => {
      throw new ApiError(0, 'The node can’t be reached.');
    };
    await chat.send('Plain on purpose', { plaintext: true });
    node.chat.send = async () => {
      throw new ApiError(409, 'example.com/bo takes no plaintext: nothing was sent.', [], 'SVC_ERR_E2EE_PLAINTEXT_REFUSED');
    };
    chat.retry(chat.entries.at(-1)!.key);
    await expect.poll(() => chat.entries.at(-1)?.delivery).toBe('failed');
    expect(chat.entries.at(-1)).toMatchObject({ error: 'example.com/bo takes no plaintext: nothing was sent.', retryable: false });
    expect(chat.plaintextOffer).toBeNull();
    expect(node.callsTo('chat', 'send').map((c) => c.args[2])).toEqual([
      { leaving: false, content_mode: 'legacy_plaintext_v1' },
      { leaving: false, content_mode: 'legacy_plaintext_v1' },
    ]);
  });

  it('withdraws the offer when another conversation opens', async () => {
    const chat = await opened();
    node.chat.send = async () => {
      throw new ApiError(409, 'No key.', [], 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING');
    };
    await chat.send('Hello');
    expect(chat.plaintextOffer?.text).toBe('Hello');
    await chat.openConversation('s-2');
    expect(chat.plaintextOffer).toBeNull();
  });

  it('says how my send went in its session row only once the node’s copy says', async () => {
    const chat = await opened();
    node.chat.send = async () => sentAs('c-3');
    await chat.send('Sealed?');
    expect(chat.entries.at(-1)).toMatchObject({ key: 'c-3', awaitingCopy: true });
    expect(chat.last[S]).toMatchObject({ message_id: 'c-3', end_to_end: null });
    // The copy's clock may say an earlier time than this window's: it still takes the row.
    const copy = chatMessage('c-3', S, {
      body: 'Sealed?',
      from_agent_id: ADA,
      created_at: '2020-01-01T00:00:00.000Z',
      end_to_end: true,
      content_mode: 'server_readable_hosted',
      message_version: 2,
    });
    node.pushChat(S, { kind: 'message', message: copy });
    const entry = chat.entries.find((e) => e.key === 'c-3');
    expect(entry).toMatchObject({ delivery: 'sent', message: { end_to_end: true } });
    expect(entry?.awaitingCopy).toBeUndefined();
    expect(chat.last[S]).toMatchObject({ message_id: 'c-3', end_to_end: true });
  });

  it('starts a chat as plaintext only when asked', async () => {
    const chat = await shown();
    node.chat.start = async () => ({ session_id: S, message_id: 'c-9', participants: [], sse_url: '', targets_connected: [], targets_left: [] });
    const bo = { kind: 'alias' as const, value: 'bo', label: null };
    await chat.start([bo], 'Hi');
    await chat.start([bo], 'Hi', { plaintext: true });
    expect(node.callsTo('chat', 'start').map((c) => c.args[0])).toEqual([
      { to_aliases: ['bo'], to_addresses: [], to_dids: [], message: 'Hi' },
      { to_aliases: ['bo'], to_addresses: [], to_dids: [], message: 'Hi', content_mode: 'legacy_plaintext_v1' },
    ]);
  });

  it('marks the conversation read once per newest message, and again after a failure', async () => {
    const chat = await opened();
    node.chat.markRead = async () => {
      throw new ApiError(0, 'offline');
    };
    await chat.markRead('c-2');
    node.chat.markRead = async () => ({ success: true, messages_marked: 1 });
    await chat.markRead('c-2');
    await chat.markRead('c-2');
    expect(node.callsTo('chat', 'markRead').map((c) => c.args)).toEqual([
      [S, 'c-2'],
      [S, 'c-2'],
    ]);
  });
});
