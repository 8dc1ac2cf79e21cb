// @vitest-environment jsdom
/**
 * The mail store: the folder it lists, the optimistic changes to a message (put back with the
 * node's reason when it refuses), new mail from the owner feed, and changes made elsewhere.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors.ts';
import type { InboxQuery, MailMessage } from '../api/mail.ts';
import { useLiveStore } from './live.ts';
import { useMailStore } from './mail.ts';
import { connectFakeNode, deferred, mailMessage, mailWake, type FakeNode } from './test-client.ts';

const ADA = 'agent-ada';

/** Three unread messages, m-1 newest. */
function inbox(): MailMessage[] {
  return [1, 2, 3].map((n) => mailMessage(`m-${n}`, { created_at: `2026-03-01T10:0${9 - n}:00.000Z` }));
}

let node: FakeNode;
let held: MailMessage[];

beforeEach(() => {
  node = connectFakeNode();
  held = inbox();
  node.mail.inbox = async (query: InboxQuery = {}) => {
    const messages =
      query.messageId !== undefined
        ? held.filter((m) => m.message_id === query.messageId)
        : held.filter((m) => (query.folder === 'archive') === (m.archived_at !== null));
    return { messages, has_more: false, next_before: null };
  };
  node.mail.message = async (id) => held.find((m) => m.message_id === id) ?? null;
  useLiveStore().start();
});

async function shown() {
  const mail = useMailStore();
  await mail.show(ADA);
  return mail;
}

describe('mail store: the list', () => {
  it('reads the inbox of the identity shown, and the archive when asked', async () => {
    const mail = await shown();
    expect(mail.messages.map((m) => m.message_id)).toEqual(['m-1', 'm-2', 'm-3']);
    expect(mail.loaded).toBe(true);
    expect(node.callsTo('mail', 'inbox')).toEqual([{ area: 'mail', method: 'inbox', args: [{ limit: 100, unreadOnly: false, before: undefined }], as: ADA }]);

    held = [mailMessage('old', { archived_at: '2026-02-01T00:00:00.000Z', read_at: '2026-02-01T00:00:00.000Z' })];
    await mail.setFolder('archive');
    expect(mail.messages.map((m) => m.message_id)).toEqual(['old']);
    expect(node.callsTo('mail', 'inbox').at(-1)?.args).toEqual([{ limit: 100, unreadOnly: false, folder: 'archive', before: undefined }]);
  });

  it('keeps the node’s words when the inbox cannot be read', async () => {
    node.mail.inbox = async () => {
      throw new ApiError(503, 'The node is starting.');
    };
    const mail = await shown();
    expect(mail.loadError).toBe('The node is starting.');
    expect(mail.loaded).toBe(true);
  });
});

describe('mail store: reveal', () => {
  it('opens a message the list has not reached, read by id, in the folder it is in', async () => {
    const mail = await shown();
    const archived = mailMessage('m-old', {
      archived_at: '2026-02-01T00:00:00.000Z',
      read_at: '2026-02-01T00:00:00.000Z',
      created_at: '2026-02-01T00:00:00.000Z',
    });
    held = [...held, archived];
    await mail.reveal('m-old');
    expect(mail.folder).toBe('archive');
    expect(mail.selected?.message_id).toBe('m-old');
  });

  it('selects a listed message without asking the node', async () => {
    const mail = await shown();
    await mail.reveal('m-3');
    expect(mail.selectedId).toBe('m-3');
    expect(node.callsTo('mail', 'message')).toEqual([]);
  });

  it('selects nothing for a message that is not (or no longer) there', async () => {
    const mail = await shown();
    await mail.reveal('gone');
    expect(mail.selectedId).toBeNull();
    expect(mail.loadError).toBeNull();
  });
});

describe('mail store: changes to a message', () => {
  it('shows a message read at once, with the node’s time once it answers', async () => {
    node.mail.ack = async (id) => ({ message_id: id, acknowledged_at: '2026-03-02T00:00:00.000Z' });
    const mail = await shown();
    const marking = mail.markRead('m-2');
    expect(mail.messages.find((m) => m.message_id === 'm-2')?.read_at).not.toBeNull();
    await marking;
    expect(mail.messages.find((m) => m.message_id === 'm-2')?.read_at).toBe('2026-03-02T00:00:00.000Z');
    expect(mail.ackError).toBeNull();
  });

  it('puts a message back unread with the node’s reason when it refuses the read', async () => {
    node.mail.ack = async () => {
      throw new ApiError(403, 'This key may not read mail.');
    };
    const mail = await shown();
    await mail.markRead('m-2');
    expect(mail.messages.find((m) => m.message_id === 'm-2')?.read_at).toBeNull();
    expect(mail.ackError).toBe('Could not mark it read: This key may not read mail.');
  });

  it('archives out of the list at once, opens the next, and Undo brings it back unread', async () => {
    node.mail.move = async (id, action) => ({ message_id: id, folder: action === 'archive' ? 'archive' : 'inbox', archived_at: null, read_at: null });
    const mail = await shown();
    mail.select('m-2');
    const archiving = mail.archive('m-2');
    expect(mail.messages.map((m) => m.message_id)).toEqual(['m-1', 'm-3']);
    expect(mail.selectedId).toBe('m-3');
    await archiving;
    expect(mail.notice?.text).toBe('Archived “Subject m-2”.');

    mail.notice?.undo?.();
    await expect.poll(() => mail.messages.map((m) => m.message_id)).toEqual(['m-1', 'm-2', 'm-3']);
    // It was unread: Undo asks for unread (back in the inbox), not only unarchive.
    expect(node.callsTo('mail', 'move').map((c) => c.args)).toEqual([
      ['m-2', 'archive'],
      ['m-2', 'unread'],
    ]);
    expect(mail.messages.find((m) => m.message_id === 'm-2')?.read_at).toBeNull();
    expect(mail.notice).toBeNull();
  });

  it('says why an Undo failed over the list it was asked from, not over another identity’s', async () => {
    node.mail.move = async (id) => ({ message_id: id, folder: 'archive', archived_at: '2026-03-02T00:00:00.000Z', read_at: '2026-03-02T00:00:00.000Z' });
    const mail = await shown();
    await mail.archive('m-2');
    const refusal = deferred<never>();
    node.mail.move = () => refusal.promise;
    mail.notice?.undo?.();
    await mail.show('agent-bo');
    refusal.reject(new ApiError(0, 'The node can’t be reached.'));
    await expect.poll(() => node.callsTo('mail', 'move')).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(mail.agentId).toBe('agent-bo');
    expect(mail.actionError).toBeNull();
  });

  it('puts an archived message back where it was, selected, when the node refuses', async () => {
    node.mail.move = async () => {
      throw new ApiError(409, 'It was deleted meanwhile.');
    };
    const mail = await shown();
    mail.select('m-2');
    await mail.archive('m-2');
    expect(mail.messages.map((m) => m.message_id)).toEqual(['m-1', 'm-2', 'm-3']);
    expect(mail.selectedId).toBe('m-2');
    expect(mail.actionError).toBe('Could not archive it: It was deleted meanwhile.');
    expect(mail.notice).toBeNull();
  });

  it('puts a deleted message back when the node refuses, and says it is gone when it does not', async () => {
    const mail = await shown();
    node.mail.delete = async () => {
      throw new ApiError(0, 'The node can’t be reached.');
    };
    await mail.remove('m-3');
    expect(mail.messages.map((m) => m.message_id)).toEqual(['m-1', 'm-2', 'm-3']);
    expect(mail.actionError).toBe('Could not delete it: The node can’t be reached.');

    node.mail.delete = async (id) => ({ message_id: id, deleted_at: '2026-03-02T00:00:00.000Z' });
    await mail.remove('m-3');
    expect(mail.messages.map((m) => m.message_id)).toEqual(['m-1', 'm-2']);
    expect(mail.actionError).toBeNull();
    expect(mail.notice?.text).toBe('Deleted “Subject m-3”.');
  });

  it('marks a read message unread in place, and back to read when refused', async () => {
    held = held.map((m) => ({ ...m, read_at: '2026-03-01T12:00:00.000Z' }));
    node.mail.move = async () => {
      throw new ApiError(500, 'Something broke.');
    };
    const mail = await shown();
    await mail.markUnread('m-1');
    expect(mail.messages.find((m) => m.message_id === 'm-1')?.read_at).toBe('2026-03-01T12:00:00.000Z');
    expect(mail.actionError).toBe('Could not mark it unread: Something broke.');
  });
});

describe('mail store: live', () => {
  it('merges new mail for the identity shown, highlighted, once however often it is announced', async () => {
    const mail = await shown();
    held = [mailMessage('m-new', { created_at: '2026-03-01T11:00:00.000Z' }), ...held];
    node.feed.item(mailWake(ADA, 'm-new'));
    node.feed.item(mailWake(ADA, 'm-new'));
    await expect.poll(() => mail.messages[0]?.message_id).toBe('m-new');
    expect(mail.messages.map((m) => m.message_id)).toEqual(['m-new', 'm-1', 'm-2', 'm-3']);
    expect(mail.fresh['m-new']).toBe(true);
  });

  it('ignores new mail for another identity', async () => {
    const mail = await shown();
    held = [mailMessage('m-theirs'), ...held];
    node.feed.item(mailWake('agent-bo', 'm-theirs'));
    await Promise.resolve();
    expect(node.callsTo('mail', 'message')).toEqual([]);
    expect(mail.messages).toHaveLength(3);
  });

  it('drops a new mail read for an identity no longer shown', async () => {
    const mail = await shown();
    const slow = deferred<MailMessage | null>();
    node.mail.message = () => slow.promise;
    node.feed.item(mailWake(ADA, 'm-new'));
    await mail.show('agent-bo');
    slow.resolve(mailMessage('m-new'));
    await slow.promise;
    await Promise.resolve();
    expect(mail.messages.some((m) => m.message_id === 'm-new')).toBe(false);
  });

  it('takes a message archived elsewhere out of the inbox, reading only that message', async () => {
    const mail = await shown();
    held = held.map((m) => (m.message_id === 'm-2' ? { ...m, archived_at: '2026-03-02T00:00:00.000Z', read_at: '2026-03-02T00:00:00.000Z' } : m));
    node.feed.change({ kind: 'mail_changed', teamId: null, agentId: ADA, messageId: 'm-2' });
    await expect.poll(() => mail.messages.map((m) => m.message_id)).toEqual(['m-1', 'm-3']);
    expect(node.callsTo('mail', 'message').map((c) => c.args)).toEqual([['m-2']]);
    expect(node.callsTo('mail', 'inbox')).toHaveLength(1);
  });

  it('reads the folder again when the feed reopens (nothing is replayed)', async () => {
    await shown();
    node.feed.state('open');
    await expect.poll(() => node.callsTo('mail', 'inbox')).toHaveLength(2);
  });
});
