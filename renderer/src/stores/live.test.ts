/** The owner's live feed store: when it tells the views to re-read what they show. */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeClient } from '../api/owner.ts';
import { feedSending } from '../api/test-feed.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';
import { chatWake, connectFakeNode, mailWake } from './test-client.ts';

beforeEach(() => setActivePinia(createPinia()));
afterEach(() => useLiveStore().stop());

describe('live store', () => {
  it('has the views reload when the feed opens, and again when the node says it missed items (`reset`)', async () => {
    const frames = 'retry: 1000\n\nevent: connected\ndata: {"node_id":"n"}\n\nevent: reset\ndata: {"type":"reset","detail":"too far back"}\n\n';
    useSessionStore().client = new NodeClient({ coreUrl: 'http://n', token: 'T', mode: 'browser', fetch: feedSending(frames) });
    const live = useLiveStore();
    let reloads = 0;
    live.onOpen(() => reloads++);
    live.start();
    await expect.poll(() => reloads).toBe(2);
    expect(live.state).toBe('open');
  });

  it('does not reload on ordinary frames', async () => {
    const frames = 'event: connected\ndata: {"node_id":"n"}\n\nevent: tunnel_changed\ndata: {}\n\n';
    useSessionStore().client = new NodeClient({ coreUrl: 'http://n', token: 'T', mode: 'browser', fetch: feedSending(frames) });
    const live = useLiveStore();
    let reloads = 0;
    let changes = 0;
    live.onOpen(() => reloads++);
    live.onChange(() => changes++);
    live.start();
    await expect.poll(() => changes).toBe(1);
    expect(reloads).toBe(1);
  });
});

describe('live store: the switcher’s dots', () => {
  it('counts what arrives for identities other than the current one, and forgets the count once one is current', async () => {
    const node = connectFakeNode();
    const live = useLiveStore();
    live.setCurrent('agent-ada');
    live.start();
    node.feed.item(mailWake('agent-bo', 'm-1'));
    node.feed.item(chatWake('agent-bo', 's-1'));
    node.feed.item(mailWake('agent-ada', 'm-2'));
    expect(live.fresh).toEqual({ 'agent-bo': 2 });
    live.setCurrent('agent-bo');
    expect(live.fresh).toEqual({});
  });

  it('passes every item, nudge and presence on to its listeners, and none once unsubscribed', async () => {
    const node = connectFakeNode();
    const live = useLiveStore();
    const heard: string[] = [];
    const off = [
      live.onItem((item) => heard.push(`item ${item.message_id}`)),
      live.onChange((change) => heard.push(`change ${change.kind}`)),
      live.onPresence((presence) => heard.push(`presence ${presence.agent_id}`)),
    ];
    live.start();
    node.feed.item(mailWake('agent-bo', 'm-1'));
    node.feed.change({ kind: 'library_changed', teamId: 'crew:example.com' });
    node.feed.presence({ agent_id: 'a-1', type: 'agent.online', online: true, at: 'now', last_seen: null });
    for (const unsubscribe of off) unsubscribe();
    node.feed.item(mailWake('agent-bo', 'm-2'));
    expect(heard).toEqual(['item m-1', 'change library_changed', 'presence a-1']);
  });
});
