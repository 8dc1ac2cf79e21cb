import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { SessionKeys } from './identity-keys.ts';
import { NodeClient } from './owner.ts';
import type { SessionKey } from './owner.ts';
import type { FetchLike } from './sse.ts';

const HOUR = 3600_000;

function minted(key: string, expiresAt: number): SessionKey {
  return { api_key: key, api_key_id: `id-${key}`, expires_at: new Date(expiresAt).toISOString() };
}

describe('SessionKeys', () => {
  it('mints once per identity and reuses the key until it nearly expires', async () => {
    let now = 0;
    const mints: string[] = [];
    const keys = new SessionKeys(
      async (agentId) => {
        mints.push(agentId);
        return minted(`${agentId}-${mints.length}`, now + 24 * HOUR);
      },
      () => now,
    );
    expect(await Promise.all([keys.current('a'), keys.current('a')])).toEqual(['a-1', 'a-1']);
    expect(await keys.current('b')).toBe('b-2');
    now += 23 * HOUR;
    expect(await keys.current('a')).toBe('a-1');
    now += 56 * 60_000; // within five minutes of expiry
    expect(await keys.current('a')).toBe('a-3');
    expect(mints).toEqual(['a', 'b', 'a']);
  });

  it('renews a refused key once, however many requests were refused with it', async () => {
    let count = 0;
    const keys = new SessionKeys(async () => minted(`k${++count}`, Date.now() + 24 * HOUR));
    const stale = await keys.current('a');
    expect(await Promise.all([keys.renew('a', stale), keys.renew('a', stale)])).toEqual(['k2', 'k2']);
    // A request that was refused with the old key after the renewal gets the new one.
    expect(await keys.renew('a', stale)).toBe('k2');
    expect(count).toBe(2);
  });

  it('does not keep a failed mint', async () => {
    let fail = true;
    const keys = new SessionKeys(async () => {
      if (fail) throw new ApiError(409, 'Identity is archived');
      return minted('ok', Date.now() + HOUR);
    });
    await expect(keys.current('a')).rejects.toThrow('Identity is archived');
    fail = false;
    expect(await keys.current('a')).toBe('ok');
  });
});

describe('IdentityClient', () => {
  function node(answer: (url: string, auth: string, body: unknown) => { status: number; body: unknown }) {
    const calls: { url: string; method: string; auth: string; body: unknown }[] = [];
    const fetch: FetchLike = async (url, init) => {
      const auth = (init?.headers as Record<string, string>)['authorization'] ?? '';
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      calls.push({ url, method: init?.method ?? 'GET', auth, body });
      const reply = answer(url, auth, body);
      return new Response(JSON.stringify(reply.body), { status: reply.status });
    };
    return { fetch, calls };
  }

  it('mints a session key with the owner token and calls the identity API with it', async () => {
    const { fetch, calls } = node((url) => {
      if (url.endsWith('/session-key')) return { status: 201, body: minted('svc_sk_1', Date.now() + 24 * HOUR) };
      return { status: 200, body: { messages: [], has_more: false, next_before: null } };
    });
    const owner = new NodeClient({ coreUrl: 'http://n/', token: 'owner', mode: 'desktop', fetch });
    const alice = owner.asIdentity('agent-a', new SessionKeys((id) => owner.mintSessionKey(id)));
    await alice.mail.inbox({ unreadOnly: true, limit: 20 });
    expect(calls).toEqual([
      { url: 'http://n/v1/node/identities/agent-a/session-key', method: 'POST', auth: 'Bearer owner', body: {} },
      { url: 'http://n/v1/messages/inbox?limit=20&unread_only=true', method: 'GET', auth: 'Bearer svc_sk_1', body: undefined },
    ]);
  });

  it('reads the identity’s mail to other nodes', async () => {
    const row = { message_id: 'm1', to_address: 'elsewhere.test/bob', status: 'queued' };
    const { fetch, calls } = node((url) => {
      if (url.endsWith('/session-key')) return { status: 201, body: minted('svc_sk_1', Date.now() + 24 * HOUR) };
      return { status: 200, body: { messages: [row] } };
    });
    const owner = new NodeClient({ coreUrl: 'http://n/', token: 'owner', mode: 'desktop', fetch });
    const alice = owner.asIdentity('agent-a', new SessionKeys((id) => owner.mintSessionKey(id)));
    expect(await alice.mail.outbound()).toEqual([row]);
    expect(calls[1]).toEqual({ url: 'http://n/v1/messages/outbound', method: 'GET', auth: 'Bearer svc_sk_1', body: undefined });
  });

  it('on a 401 mints a new key once and repeats the call', async () => {
    let minted401 = 0;
    const { fetch, calls } = node((url, auth) => {
      if (url.endsWith('/session-key')) return { status: 201, body: minted(`k${++minted401}`, Date.now() + 24 * HOUR) };
      if (auth === 'Bearer k1') return { status: 401, body: { detail: 'Invalid API key' } };
      return { status: 200, body: { message_id: 'm', acknowledged_at: 't' } };
    });
    const owner = new NodeClient({ coreUrl: 'http://n', token: 'owner', mode: 'desktop', fetch });
    const alice = owner.asIdentity('a', new SessionKeys((id) => owner.mintSessionKey(id)));
    expect(await alice.mail.ack('m')).toEqual({ message_id: 'm', acknowledged_at: 't' });
    expect(calls.map((c) => `${c.method} ${c.url.replace('http://n', '')} ${c.auth}`)).toEqual([
      'POST /v1/node/identities/a/session-key Bearer owner',
      'POST /v1/messages/m/ack Bearer k1',
      'POST /v1/node/identities/a/session-key Bearer owner',
      'POST /v1/messages/m/ack Bearer k2',
    ]);
  });

  it('gives up after the second 401, with the node’s words', async () => {
    const { fetch } = node((url) =>
      url.endsWith('/session-key') ? { status: 201, body: minted('k', Date.now() + HOUR) } : { status: 401, body: { detail: 'Invalid API key' } },
    );
    const owner = new NodeClient({ coreUrl: 'http://n', token: 'owner', mode: 'desktop', fetch });
    const alice = owner.asIdentity('a', new SessionKeys((id) => owner.mintSessionKey(id)));
    await expect(alice.contacts.list()).rejects.toMatchObject({ status: 401, message: 'Invalid API key' });
  });

  it('sends mail and chat bodies as the API expects', async () => {
    const { fetch, calls } = node((url) =>
      url.endsWith('/session-key') ? { status: 201, body: minted('k', Date.now() + HOUR) } : { status: 200, body: { ok: true } },
    );
    const owner = new NodeClient({ coreUrl: 'http://n', token: 'owner', mode: 'desktop', fetch });
    const alice = owner.asIdentity('a', new SessionKeys((id) => owner.mintSessionKey(id)));
    await alice.mail.send({ to_addresses: ['x.test/bob'], subject: 'Hi', body: 'Hello', priority: 'high' });
    await alice.chat.send('s/1', 'bye', { leaving: true });
    await alice.chat.markRead('s1', 'm1');
    await alice.chat.conversation('s1', 1);
    expect(calls.slice(1).map((c) => [c.method, c.url.replace('http://n', ''), c.body])).toEqual([
      ['POST', '/v1/messages', { to_addresses: ['x.test/bob'], subject: 'Hi', body: 'Hello', priority: 'high' }],
      ['POST', '/v1/chat/sessions/s%2F1/messages', { body: 'bye', leaving: true }],
      ['POST', '/v1/chat/sessions/s1/read', { up_to_message_id: 'm1' }],
      ['GET', '/v1/chat/sessions/s1/messages?limit=1', undefined],
    ]);
  });
});
