/** The owner API client (owner.ts), and how the UI gets one: connect.ts. */
import { describe, expect, it } from 'vitest';
import {
  clearFragment,
  codeInFragment,
  connect,
  exchangeCode,
  forgetSession,
  linkRefusal,
  saveSession,
  sessionEndedReason,
  sessionStorageKey,
  signInCommand,
  watchSignInLinks,
} from './connect.ts';
import type { BrowserEnv } from './connect.ts';
import { ApiError } from './errors.ts';
import { NodeClient } from './owner.ts';
import type { FetchLike } from './sse.ts';
import { feedSending } from './test-feed.ts';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

function fakeFetch(respond: (call: Call) => { status: number; body?: unknown; raw?: string }): {
  fetch: FetchLike;
  calls: Call[];
} {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    const call: Call = {
      url,
      method: init?.method ?? 'GET',
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const answer = respond(call);
    const text = answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
    return new Response(text, { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, calls };
}

function memoryStorage(): BrowserEnv['storage'] & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (key) => data.get(key) ?? null,
    setItem: (key, value) => void data.set(key, value),
    removeItem: (key) => void data.delete(key),
  };
}

function browser(hash: string, fetch: FetchLike): BrowserEnv & { replaced: string[]; storage: ReturnType<typeof memoryStorage> } {
  const replaced: string[] = [];
  const location = { origin: 'http://127.0.0.1:4100', pathname: '/ui/', search: '', hash };
  return {
    location,
    history: {
      replaceState: (_data, _unused, url) => {
        replaced.push(String(url));
        location.hash = '';
      },
    },
    storage: memoryStorage(),
    fetch,
    replaced,
  };
}

describe('NodeClient', () => {
  it('sends the owner token and JSON, and unwraps list responses', async () => {
    const { fetch, calls } = fakeFetch((call) =>
      call.method === 'GET'
        ? { status: 200, body: { identities: [{ identity_id: 'i1' }] } }
        : { status: 200, body: { project_id: 'p1', slug: 'acme', api_key: 'svc_sk_x', namespace: null } },
    );
    const client = new NodeClient({ coreUrl: 'http://127.0.0.1:4100/', token: 'T0K', mode: 'desktop', fetch });
    expect(await client.identities()).toEqual([{ identity_id: 'i1' }]);
    await client.createProject({ slug: 'acme' });
    expect(calls[0]?.url).toBe('http://127.0.0.1:4100/v1/node/identities');
    expect(calls[0]?.headers['authorization']).toBe('Bearer T0K');
    expect(calls[1]?.url).toBe('http://127.0.0.1:4100/v1/node/projects');
    expect(calls[1]?.method).toBe('POST');
    expect(calls[1]?.headers['content-type']).toBe('application/json');
    expect(calls[1]?.body).toEqual({ slug: 'acme' });
  });

  it('rotates an identity’s encryption key by its id, escaped in the path', async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: { agent_id: 'a/1', encryption_key: {}, summary: { earlier_keys: 1 } } }));
    const client = new NodeClient({ coreUrl: 'http://127.0.0.1:4100', token: 'T0K', mode: 'desktop', fetch });
    expect((await client.rotateEncryptionKey('a/1')).summary).toEqual({ earlier_keys: 1 });
    expect(calls.map((call) => [call.method, call.url])).toEqual([['POST', 'http://127.0.0.1:4100/v1/node/identities/a%2F1/encryption-key/rotate']]);
  });

  it('changes whether an identity accepts plaintext mail with a PATCH of that one setting', async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: { agent_id: 'a/1', accepts_plaintext: false } }));
    const client = new NodeClient({ coreUrl: 'http://127.0.0.1:4100', token: 'T0K', mode: 'desktop', fetch });
    expect(await client.updateIdentity('a/1', { accepts_plaintext: false })).toMatchObject({ accepts_plaintext: false });
    expect(calls.map((call) => [call.method, call.url, call.body])).toEqual([
      ['PATCH', 'http://127.0.0.1:4100/v1/node/identities/a%2F1', { accepts_plaintext: false }],
    ]);
  });

  it('throws ApiError with the server detail and code', async () => {
    const { fetch } = fakeFetch(() => ({
      status: 409,
      body: { detail: 'A project with slug "acme" already exists', code: 'SVC_ERR_PROJECT_SLUG_TAKEN' },
    }));
    const client = new NodeClient({ coreUrl: 'http://127.0.0.1:4100', token: 't', mode: 'browser', fetch });
    const error = await client.createProject({ slug: 'acme' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(409);
    expect((error as ApiError).message).toBe('A project with slug "acme" already exists');
    expect((error as ApiError).code).toBe('SVC_ERR_PROJECT_SLUG_TAKEN');
  });

  it('has no code when the node sent none', async () => {
    const { fetch } = fakeFetch(() => ({ status: 502, body: { detail: 'Bad gateway' } }));
    const client = new NodeClient({ coreUrl: 'http://127.0.0.1:4100', token: 't', mode: 'browser', fetch });
    const error = (await client.info().catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBeNull();
  });

  it('explains an unreachable node in words', async () => {
    const client = new NodeClient({
      coreUrl: 'http://127.0.0.1:4100',
      token: 't',
      mode: 'browser',
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    const error = (await client.info().catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(0);
    expect(error.message).toBe('Could not reach the node at http://127.0.0.1:4100. Is it still running?');
  });

  it('manages peers and the tunnel with the owner token (POST, PUT, DELETE)', async () => {
    const tunnel = {
      provider: 'ssh',
      config: null,
      public_key: 'ssh-ed25519 AAAA svc-node@x',
      status: { state: 'stopped', public_url: null, detail: null, since: 't' },
    };
    const { fetch, calls } = fakeFetch((call) => {
      if (call.url.endsWith('/v1/node/peers') && call.method === 'GET') return { status: 200, body: { peers: [{ domain: 'acme.test' }] } };
      if (call.url.endsWith('/v1/node/peers')) return { status: 201, body: { domain: 'acme.test', url: 'https://n.acme.test' } };
      if (call.method === 'DELETE') return { status: 200, body: { domain: 'a b.test', removed: true } };
      return { status: 200, body: tunnel };
    });
    const client = new NodeClient({ coreUrl: 'http://n', token: 'T', mode: 'browser', fetch });
    expect(await client.peers()).toEqual([{ domain: 'acme.test' }]);
    await client.setPeer('acme.test', 'https://n.acme.test');
    expect(await client.removePeer('a b.test')).toEqual({ domain: 'a b.test', removed: true });
    expect((await client.tunnel()).public_key).toBe('ssh-ed25519 AAAA svc-node@x');
    await client.saveTunnel({ host: 'ssh.example.com', username: 'me', remote_port: 9000 });
    await client.startTunnel();
    await client.stopTunnel();
    expect(calls.map((c) => `${c.method} ${c.url.replace('http://n', '')}`)).toEqual([
      'GET /v1/node/peers',
      'POST /v1/node/peers',
      'DELETE /v1/node/peers/a%20b.test',
      'GET /v1/node/tunnel',
      'PUT /v1/node/tunnel',
      'POST /v1/node/tunnel/start',
      'POST /v1/node/tunnel/stop',
    ]);
    expect(calls.every((c) => c.headers['authorization'] === 'Bearer T')).toBe(true);
    expect(calls[1]?.body).toEqual({ domain: 'acme.test', url: 'https://n.acme.test' });
    expect(calls[2]?.body).toBeUndefined();
    expect(calls[4]?.body).toEqual({ host: 'ssh.example.com', username: 'me', remote_port: 9000 });
  });

  it('lists, links and revokes devices with the owner token, the device id escaped in the path', async () => {
    const device = { device_id: 'dev 1', name: 'Laptop', revoked_at: 't' };
    const linked = { code: 'svc_link_ab', url: 'http://n', expires_at: 't', command: 'svc-node device join http://n svc_link_ab --data NEW_DIR' };
    const { fetch, calls } = fakeFetch((call) => {
      if (call.method === 'GET') return { status: 200, body: { devices: [device] } };
      if (call.method === 'POST') return { status: 201, body: linked };
      return { status: 200, body: device };
    });
    const client = new NodeClient({ coreUrl: 'http://n', token: 'T', mode: 'browser', fetch });
    expect(await client.devices()).toEqual([device]);
    expect(await client.linkDevice()).toEqual(linked);
    expect(await client.revokeDevice('dev 1')).toEqual(device);
    expect(calls.map((c) => `${c.method} ${c.url.replace('http://n', '')}`)).toEqual([
      'GET /v1/node/devices',
      'POST /v1/node/devices/link',
      'DELETE /v1/node/devices/dev%201',
    ]);
    expect(calls.every((c) => c.headers['authorization'] === 'Bearer T')).toBe(true);
  });

  it('passes the owner feed’s nudges on as changes: with their team, or the identity whose mail changed', async () => {
    const frames =
      'event: tunnel_changed\ndata: {}\n\nevent: docs_changed\ndata: {"team_id":"w:d.test"}\n\nevent: teams_changed\ndata: {}\n\n' +
      'event: mail_changed\ndata: {"agent_id":"a-1","message_id":"m-1"}\n\nevent: devices_changed\ndata: {}\n\n';
    const client = new NodeClient({ coreUrl: 'http://n', token: 'T', mode: 'browser', fetch: feedSending(frames) });
    const changes: unknown[] = [];
    const handle = client.streamWake({ onItem: () => undefined, onChange: (change) => changes.push(change) });
    await expect.poll(() => changes.length).toBe(5);
    handle.close();
    expect(changes).toEqual([
      { kind: 'tunnel_changed', teamId: null },
      { kind: 'docs_changed', teamId: 'w:d.test' },
      { kind: 'teams_changed', teamId: null },
      { kind: 'mail_changed', teamId: null, agentId: 'a-1', messageId: 'm-1' },
      { kind: 'devices_changed', teamId: null },
    ]);
  });

  it('manages a team’s members and invites with the owner token, ids encoded into the path', async () => {
    const { fetch, calls } = fakeFetch((call) => {
      if (call.url.endsWith('/members')) return { status: 200, body: { team_id: 'crew:x.test', members: [], available_scopes: [] } };
      if (call.url.endsWith('/revoke')) return { status: 200, body: { revoked: true, certificate_id: 'c/1', revoked_at: 't', closed_present_links: 2 } };
      if (call.method === 'POST') return { status: 201, body: { invite_id: 'i-1', code: 'svc_join_ab', join_url: 'http://n/v1/team/join' } };
      if (call.method === 'DELETE') return { status: 200, body: { cancelled: true, invite_id: 'i 1', cancelled_at: 't' } };
      return { status: 200, body: { team_id: 'crew:x.test', invites: [] } };
    });
    const client = new NodeClient({ coreUrl: 'http://n', token: 'T', mode: 'browser', fetch });
    expect((await client.members('crew:x.test')).members).toEqual([]);
    expect((await client.revokeMember('crew:x.test', 'c/1')).closed_present_links).toBe(2);
    expect((await client.invite('crew:x.test', { alias: 'scout', lifetime: 'persistent', expires_in_seconds: 3600 })).code).toBe('svc_join_ab');
    expect((await client.invites('crew:x.test')).invites).toEqual([]);
    expect((await client.cancelInvite('crew:x.test', 'i 1')).cancelled).toBe(true);
    expect(calls.map((c) => `${c.method} ${c.url.replace('http://n', '')}`)).toEqual([
      'GET /v1/node/teams/crew%3Ax.test/members',
      'POST /v1/node/teams/crew%3Ax.test/members/c%2F1/revoke',
      'POST /v1/node/teams/crew%3Ax.test/invites',
      'GET /v1/node/teams/crew%3Ax.test/invites',
      'DELETE /v1/node/teams/crew%3Ax.test/invites/i%201',
    ]);
    expect(calls.every((c) => c.headers['authorization'] === 'Bearer T')).toBe(true);
    expect(calls[2]?.body).toEqual({ alias: 'scout', lifetime: 'persistent', expires_in_seconds: 3600 });
  });

  it('passes presence frames on, online by the frame’s name, and skips unreadable ones', async () => {
    const frames =
      'event: agent.online\ndata: {"agent_id":"a-1","type":"agent.online","online":true,"at":"t1","last_seen":"t1"}\n\n' +
      'event: agent.offline\ndata: not json\n\n' +
      'event: agent.offline\ndata: {"agent_id":"a-1","type":"agent.online","online":true,"at":"t2","last_seen":"t1"}\n\n';
    const client = new NodeClient({ coreUrl: 'http://n', token: 'T', mode: 'browser', fetch: feedSending(frames) });
    const seen: unknown[] = [];
    const changes: unknown[] = [];
    const handle = client.streamWake({ onItem: () => undefined, onChange: (change) => changes.push(change), onPresence: (presence) => seen.push(presence) });
    await expect.poll(() => seen.length).toBe(2);
    handle.close();
    expect(seen).toEqual([
      { agent_id: 'a-1', type: 'agent.online', online: true, at: 't1', last_seen: 't1' },
      { agent_id: 'a-1', type: 'agent.offline', online: false, at: 't2', last_seen: 't1' },
    ]);
    expect(changes).toEqual([]);
  });

  it('refuses unreadable success bodies', async () => {
    const { fetch } = fakeFetch(() => ({ status: 200, raw: '<html>' }));
    const client = new NodeClient({ coreUrl: 'http://x:1', token: 't', mode: 'browser', fetch });
    await expect(client.info()).rejects.toThrow('The node sent an empty or unreadable answer.');
  });
});

describe('sign-in links', () => {
  it('reads the code without touching the address bar, and leaves router fragments alone', () => {
    expect(codeInFragment({ hash: '#code=abc123' })).toBe('abc123');
    expect(codeInFragment({ hash: '#/identities' })).toBeNull();
    expect(codeInFragment({ hash: '' })).toBeNull();
    expect(codeInFragment({ hash: '#code=' })).toBeNull();
  });

  it('clears the fragment once exchanged, back to the route the tab showed', () => {
    const env = browser('#code=abc123', fakeFetch(() => ({ status: 500 })).fetch);
    clearFragment(env);
    clearFragment(env, '#/settings');
    expect(env.replaced).toEqual(['/ui/', '/ui/#/settings']);
  });

  it('hears a link pasted into a running tab before the router does, once per paste', async () => {
    const target = new EventTarget() as EventTarget & { location: { hash: string } };
    target.location = { hash: '#/mail' };
    const codes: string[] = [];
    let finish = (): void => {};
    const stop = watchSignInLinks(target as unknown as Window, (code) => {
      codes.push(code);
      return new Promise<void>((resolve) => (finish = resolve));
    });
    const router: string[] = [];
    target.addEventListener('popstate', () => router.push(target.location.hash));
    target.dispatchEvent(new Event('popstate'));
    target.location.hash = '#code=fresh';
    target.dispatchEvent(new Event('popstate'));
    target.dispatchEvent(new Event('hashchange'));
    expect(codes).toEqual(['fresh']);
    expect(router).toEqual(['#/mail']);
    // Once done, the same link pasted again is heard again (it then says it was used).
    finish();
    await Promise.resolve();
    await Promise.resolve();
    target.dispatchEvent(new Event('hashchange'));
    expect(codes).toEqual(['fresh', 'fresh']);
    stop();
    target.location.hash = '#code=later';
    target.dispatchEvent(new Event('hashchange'));
    expect(codes).toEqual(['fresh', 'fresh']);
  });

  it('exchanges a code, without a credential, for a browser session', async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: { session_token: 'svc_os_1', session: {} } }));
    expect(await exchangeCode(fetch, 'http://127.0.0.1:4100', 'code-1')).toBe('svc_os_1');
    expect(calls[0]?.url).toBe('http://127.0.0.1:4100/v1/node/session');
    expect(calls[0]?.body).toEqual({ code: 'code-1' });
    expect(calls[0]?.headers['authorization']).toBeUndefined();
    // An older node's answer (the owner token itself) is no session.
    await expect(exchangeCode(fakeFetch(() => ({ status: 200, body: { owner_token: 'svc_ot_x' } })).fetch, 'http://127.0.0.1:4100', 'c')).rejects.toThrow(
      /did not return a session/,
    );
  });

  it('says why a link did not work, and how to get a fresh one', async () => {
    const used = fakeFetch(() => ({ status: 401, body: { detail: 'This link was already used or is unknown; run `svc-node ui` for a new one' } })).fetch;
    const usedError = await exchangeCode(used, 'http://127.0.0.1:4100', 'old').catch((error: unknown) => error);
    expect(linkRefusal(usedError)).toMatch(/^That sign-in link was already used: each link works once\. For a fresh one, run `svc-node ui`/);
    const late = fakeFetch(() => ({ status: 401, body: { detail: 'This link expired (links work for 5 minutes); run `svc-node ui` for a fresh one' } })).fetch;
    expect(linkRefusal(await exchangeCode(late, 'http://127.0.0.1:4100', 'late').catch((error: unknown) => error))).toMatch(
      /^That sign-in link has expired.*`svc-node ui`/,
    );
  });

  it('names the exact command for a new link, quoted for the shell', () => {
    expect(signInCommand('/home/ada/.config/svc-node')).toBe('npx svc-node ui --data /home/ada/.config/svc-node');
    expect(signInCommand("/tmp/my node's data")).toBe(`npx svc-node ui --data '/tmp/my node'\\''s data'`);
    expect(signInCommand(null)).toBe('npx svc-node ui --data DIR');
  });
});

describe('connect', () => {
  it('uses the desktop bridge when there is one', () => {
    const env = browser('', fakeFetch(() => ({ status: 500 })).fetch);
    env.svc = { ownerToken: 'desk', coreUrl: 'http://127.0.0.1:5000', libraryUrl: 'x', docsUrl: 'y', platform: 'linux' };
    const result = connect(env, () => {});
    expect(result.kind).toBe('connected');
    if (result.kind === 'connected') {
      expect(result.client.mode).toBe('desktop');
      expect(result.client.coreUrl).toBe('http://127.0.0.1:5000');
    }
  });

  it('uses the session saved for this origin, and nothing else', async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: { node_id: 'n' } }));
    const env = browser('', fetch);
    expect(connect(env, () => {})).toEqual({ kind: 'signed-out' });
    saveSession(env, 'svc_os_saved');
    const result = connect(env, () => {});
    expect(result.kind === 'connected' && result.token).toBe('svc_os_saved');
    if (result.kind === 'connected') await result.client.info();
    expect(calls[0]?.headers['authorization']).toBe('Bearer svc_os_saved');
  });

  it('drops an owner token an older build saved', () => {
    const env = browser('', fakeFetch(() => ({ status: 500 })).fetch);
    env.storage.setItem('svc-node.owner-token@http://127.0.0.1:4100', 'svc_ot_old');
    expect(connect(env, () => {})).toEqual({ kind: 'signed-out' });
    expect([...env.storage.data.keys()]).toEqual([]);
  });

  it('hears the node end the session on any request, and passes the answer on', async () => {
    let answer = { status: 200, body: { node_id: 'n' } as unknown };
    const env = browser('', fakeFetch(() => answer).fetch);
    saveSession(env, 'svc_os_mine');
    const ends: [string, string][] = [];
    const result = connect(env, (end, token) => ends.push([end.code, token]));
    if (result.kind !== 'connected') throw new Error('expected a client');
    await result.client.info();
    answer = { status: 401, body: { detail: 'The API key is not valid', code: 'SVC_ERR_API_KEY_INVALID' } };
    await expect(result.client.info()).rejects.toThrow(/not valid/);
    expect(ends).toEqual([]);
    answer = {
      status: 401,
      body: { detail: 'This session was signed out at …; run `svc-node ui` where the node runs for a new sign-in link', code: 'SVC_ERR_OWNER_SESSION_REVOKED' },
    };
    await expect(result.client.info()).rejects.toThrow(/signed out/);
    expect(ends).toEqual([['SVC_ERR_OWNER_SESSION_REVOKED', 'svc_os_mine']]);
    expect(sessionEndedReason('SVC_ERR_OWNER_SESSION_REVOKED')).toMatch(/signed out/);
    expect(sessionEndedReason('SVC_ERR_OWNER_SESSION_EXPIRED')).toMatch(/14 days without use/);
    expect(sessionEndedReason('SVC_ERR_OWNER_SESSION_UNKNOWN')).toMatch(/data was reset/);
  });

  it('forgets the saved session', () => {
    const env = browser('', fakeFetch(() => ({ status: 500 })).fetch);
    env.storage.setItem(sessionStorageKey('http://127.0.0.1:4100'), 'saved');
    env.storage.setItem(sessionStorageKey('http://127.0.0.1:9999'), 'other-node');
    forgetSession(env);
    expect([...env.storage.data.keys()]).toEqual([sessionStorageKey('http://127.0.0.1:9999')]);
  });
});
