/**
 * "Sent to other nodes": whose list it is, what a failed read keeps, and an answer for an
 * identity no longer shown.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors.ts';
import type { OutboundMail } from '../api/mail.ts';
import { useOutboundStore } from './mail-outbound.ts';
import { connectFakeNode, deferred, outboundMail, type FakeNode } from './test-client.ts';

let node: FakeNode;

beforeEach(() => {
  node = connectFakeNode();
});

describe('outbound store', () => {
  it('reads the identity’s mail to other nodes, and counts what is still queued', async () => {
    node.mail.outbound = async () => [
      outboundMail('o-1'),
      outboundMail('o-2', { status: 'delivered', settled_at: '2026-03-01T11:00:00.000Z' }),
      outboundMail('o-3'),
    ];
    const store = useOutboundStore();
    store.reset('agent-ada');
    await store.load();
    expect(store.loaded).toBe(true);
    expect(store.items.map((m) => m.message_id)).toEqual(['o-1', 'o-2', 'o-3']);
    expect(store.queuedCount).toBe(2);
    expect(node.callsTo('mail', 'outbound')[0]?.as).toBe('agent-ada');
    store.select('o-2');
    expect(store.selected?.status).toBe('delivered');
  });

  it('keeps what is shown, with the node’s words, when a read fails', async () => {
    node.mail.outbound = async () => [outboundMail('o-1')];
    const store = useOutboundStore();
    store.reset('agent-ada');
    await store.load();
    node.mail.outbound = async () => {
      throw new ApiError(503, 'The node is busy.');
    };
    await store.load();
    expect(store.items.map((m) => m.message_id)).toEqual(['o-1']);
    expect(store.error).toBe('The node is busy.');
  });

  it('drops an answer for an identity no longer shown', async () => {
    const slow = deferred<OutboundMail[]>();
    node.mail.outbound = () => slow.promise;
    const store = useOutboundStore();
    store.reset('agent-ada');
    const loading = store.load();
    store.reset('agent-bo');
    slow.resolve([outboundMail('ada-only')]);
    await loading;
    expect(store.items).toEqual([]);
    expect(store.loaded).toBe(false);
  });

  it('keeps the newest delivery states when an older read answers last', async () => {
    const store = useOutboundStore();
    store.reset('agent-ada');
    const slow = deferred<OutboundMail[]>();
    node.mail.outbound = () => slow.promise;
    const first = store.load();
    node.mail.outbound = async () => [outboundMail('o-1', { status: 'delivered', settled_at: '2026-03-01T11:00:00.000Z' })];
    await store.load();
    slow.resolve([outboundMail('o-1')]);
    await first;
    expect(store.items.map((m) => m.status)).toEqual(['delivered']);
    expect(store.queuedCount).toBe(0);
  });

  it('asks nothing without an identity', async () => {
    const store = useOutboundStore();
    store.reset(null);
    await store.load();
    expect(store.loaded).toBe(true);
    expect(node.calls).toEqual([]);
  });
});
