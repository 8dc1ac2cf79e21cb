// @vitest-environment jsdom
/**
 * The unread badges: counts for the identity chosen, optimistic reads, one request per burst,
 * and an answer for an identity no longer chosen.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Pending } from '../api/chat.ts';
import { useDirectoryStore } from './directory.ts';
import { useLiveStore } from './live.ts';
import { connectFakeNode, deferred, identity, mailWake, pendingChat, type FakeNode } from './test-client.ts';
import { useUnreadStore } from './unread.ts';

let node: FakeNode;
let answer: Pending;

beforeEach(async () => {
  window.localStorage.clear();
  window.sessionStorage.clear();
  node = connectFakeNode();
  node.holdsIdentities(identity('ada'), identity('bo'));
  answer = { pending: [pendingChat('s-1', { unread_count: 2 }), pendingChat('s-2', { unread_count: 3 })], messages_waiting: 4 };
  node.chat.pending = async () => answer;
  useLiveStore().start();
  await useDirectoryStore().load();
});
afterEach(() => vi.useRealTimers());

describe('unread store', () => {
  it('counts unread mail and chat of the identity chosen', async () => {
    const unread = useUnreadStore();
    await expect.poll(() => unread.mail).toBe(4);
    expect(unread.chat).toBe(5);
    expect(node.callsTo('chat', 'pending').map((c) => c.as)).toEqual(['agent-ada']);
  });

  it('counts a read at once, and asks the node once a burst of reads is over', async () => {
    const unread = useUnreadStore();
    await expect.poll(() => unread.mail).toBe(4);
    vi.useFakeTimers();
    answer = { pending: [pendingChat('s-2', { unread_count: 3 })], messages_waiting: 2 };
    unread.mailRead();
    unread.mailRead();
    unread.chatRead('s-1');
    expect(unread.mail).toBe(2);
    expect(unread.chat).toBe(3);
    await vi.advanceTimersByTimeAsync(600);
    expect(node.callsTo('chat', 'pending')).toHaveLength(2);
  });

  it('never counts below zero', async () => {
    answer = { pending: [], messages_waiting: 0 };
    const unread = useUnreadStore();
    await expect.poll(() => node.callsTo('chat', 'pending')).toHaveLength(1);
    unread.mailRead();
    expect(unread.mail).toBe(0);
  });

  it('reads again when something arrives for the identity chosen, not for another', async () => {
    const unread = useUnreadStore();
    await expect.poll(() => unread.mail).toBe(4);
    vi.useFakeTimers();
    node.feed.item(mailWake('agent-bo', 'm-1'));
    await vi.advanceTimersByTimeAsync(300);
    expect(node.callsTo('chat', 'pending')).toHaveLength(1);
    node.feed.item(mailWake('agent-ada', 'm-2'));
    node.feed.change({ kind: 'mail_changed', teamId: null, agentId: 'agent-ada', messageId: 'm-2' });
    await vi.advanceTimersByTimeAsync(300);
    expect(node.callsTo('chat', 'pending')).toHaveLength(2);
  });

  it('shows the new identity’s counts, not a late answer for the one before', async () => {
    const unread = useUnreadStore();
    await expect.poll(() => unread.mail).toBe(4);
    const slow = deferred<Pending>();
    node.chat.pending = () => slow.promise;
    void unread.refresh();
    node.chat.pending = async () => ({ pending: [], messages_waiting: 1 });
    useDirectoryStore().selectIdentity('agent-bo');
    await expect.poll(() => unread.mail).toBe(1);
    slow.resolve({ pending: [], messages_waiting: 99 });
    await slow.promise;
    await Promise.resolve();
    expect(unread.mail).toBe(1);
  });

  it('keeps the last counts when the node cannot be asked', async () => {
    const unread = useUnreadStore();
    await expect.poll(() => unread.mail).toBe(4);
    node.chat.pending = async () => {
      throw new Error('offline');
    };
    await unread.refresh();
    expect(unread.mail).toBe(4);
    expect(unread.chat).toBe(5);
  });
});
