import { describe, expect, it } from 'vitest';
import type { ControlService } from '../control/service.ts';
import type { MailService } from '../mail/service.ts';
import type { MessageRow } from '../mail/store/messages.ts';
import { chatWakeSource, controlWakeSource, mailWakeSource, SNAPSHOT_LIMIT, type ChatWakeProvider } from './sources.ts';

type ChatRow = ReturnType<ChatWakeProvider['wakeItems']>[number];

/** A chat service that pages its wake items `pageSize` at a time, as the real one does. */
function fakeChat(rows: ChatRow[], pageSize = 500) {
  const calls: number[] = [];
  const provider: ChatWakeProvider = {
    wakeItems(_agentId, afterId) {
      calls.push(afterId);
      return rows.filter((r) => r.id > afterId).slice(0, pageSize);
    },
  };
  return { provider, calls };
}

const chatRow = (id: number): ChatRow => ({
  id,
  message_id: `m${id}`,
  from_alias: 'ann',
  session_id: 's1',
  body: `hello ${id}`,
  created_at: '2026-04-18T12:00:01.500Z',
});

describe('chatWakeSource', () => {
  it('maps unread chat messages to chat_message frames, without the row id', () => {
    const { provider } = fakeChat([chatRow(4)]);
    expect(chatWakeSource(provider).pending('a', 0)).toEqual([
      {
        id: 4,
        event: 'chat_message',
        at: Date.parse('2026-04-18T12:00:01Z') / 1000,
        data: { type: 'chat_message', message_id: 'm4', from_alias: 'ann', session_id: 's1', body: 'hello 4', created_at: '2026-04-18T12:00:01.500Z' },
        // Upstream's name for it, with upstream's strings: an absent one is "", never null.
        twin: {
          event: 'actionable_chat',
          data: expect.objectContaining({
            type: 'actionable_chat',
            session_id: 's1',
            conversation_id: 's1',
            message_id: 'm4',
            from_alias: 'ann',
            from_did: '',
            last_message: 'hello 4',
          }),
        },
      },
    ]);
  });

  it(`replays the newest ${SNAPSHOT_LIMIT} on connect however the provider pages, oldest first`, () => {
    const rows = Array.from({ length: 120 }, (_, i) => chatRow(i + 1));
    const { provider, calls } = fakeChat(rows, 30);
    const snapshot = chatWakeSource(provider).pending('a', null);
    expect(snapshot.map((i) => i.id)).toEqual(rows.slice(-SNAPSHOT_LIMIT).map((r) => r.id));
    expect(calls).toEqual([0, 30, 60, 90, 120]);
  });

  it('asks for what is after the cursor once connected, and orders an undated item last', () => {
    const { provider, calls } = fakeChat([{ id: 9, message_id: 'm9', from_alias: 'bo', session_id: 's2' }]);
    const [only] = chatWakeSource(provider).pending('a', 8);
    expect(calls).toEqual([8]);
    expect(only?.at).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('mailWakeSource', () => {
  it('maps unread mail to mail_message frames, waking at once for high and urgent', () => {
    const row = (id: number, priority: MessageRow['priority']) =>
      ({
        id,
        message_id: `m${id}`,
        from_alias: 'ann',
        from_address: null,
        from_did: 'did:key:z',
        from_stable_id: null,
        subject: 's',
        priority,
        created_at: '2026-04-18T12:00:00Z',
      }) as MessageRow;
    const mail = {
      unread: (_agentId: string, afterId: number | null) => (afterId === null ? [row(1, 'low'), row(2, 'urgent')] : []),
    } as unknown as MailService;
    const items = mailWakeSource(mail).pending('a', null);
    expect(items.map((i) => [i.event, i.data.message_id, i.data.wake_mode])).toEqual([
      ['mail_message', 'm1', 'idle'],
      ['mail_message', 'm2', 'prompt'],
    ]);
    expect(items[0]?.data).toEqual({
      type: 'mail_message',
      message_id: 'm1',
      from_alias: 'ann',
      from_address: null,
      from_did: 'did:key:z',
      from_stable_id: null,
      subject: 's',
      priority: 'low',
      wake_mode: 'idle',
      created_at: '2026-04-18T12:00:00Z',
    });
  });
});

describe('controlWakeSource', () => {
  it('names the frame after the signal and claims through the service', () => {
    const claimed: number[] = [];
    const control = {
      pending: () => [
        { id: 3, signal_id: 'sig-3', target_agent_id: 'a', from_agent_id: 'b', signal: 'interrupt', created_at: '2026-04-18T12:00:00.250Z', consumed_at: null },
      ],
      claim: (id: number) => (claimed.push(id), true),
    } as unknown as ControlService;
    const [item] = controlWakeSource(control).pending('a', null);
    expect(item).toMatchObject({ id: 3, event: 'control_interrupt', data: { type: 'control_interrupt', signal_id: 'sig-3', signal: 'interrupt' } });
    expect(item?.claim?.()).toBe(true);
    expect(claimed).toEqual([3]);
  });
});
