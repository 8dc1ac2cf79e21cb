// @vitest-environment jsdom
/**
 * The session store in a browser: signing in with a link's one-time code, the saved session
 * checked on start, a session the node ended (said at once, in words, with the way back),
 * signing out, and a node that does not answer. The session store builds its owner client
 * itself (api/connect.ts) and hears a session end from the client's answers, so the edge faked
 * here is the window's `fetch`: a node that knows codes and sessions, answering as the contract
 * says.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OwnerSessionList, OwnerSessionView, RevokedSessions, SignedInSession } from '../../../contract/node/sessions.ts';
import { sessionStorageKey } from '../api/connect.ts';
import { ApiError } from '../api/errors.ts';
import { useSessionStore } from './session.ts';
import { connectFakeNode, NODE_INFO } from './test-client.ts';

type SessionState = 'live' | 'revoked' | 'expired';

/** The node behind the window's fetch: its one-time codes, its browser sessions (by secret), and the requests it heard. */
function browserNode() {
  const state = {
    codes: new Map<string, 'fresh' | 'used' | 'expired'>(),
    sessions: new Map<string, { id: string; state: SessionState }>(),
    requests: [] as string[],
    down: false,
  };
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const refused = (code: string, detail: string) => json(401, { detail, code });
  const view = (id: string, current: boolean) =>
    OwnerSessionView.parse({
      session_id: id,
      created_at: '2026-03-01T10:00:00.000Z',
      last_used_at: '2026-03-01T10:00:00.000Z',
      ends_at: '2026-05-30T10:00:00.000Z',
      expires_at: '2026-03-15T10:00:00.000Z',
      client: null,
      current,
    });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const method = init?.method ?? 'GET';
    const secret = new Headers(init?.headers).get('authorization')?.replace(/^Bearer /, '') ?? null;
    state.requests.push(`${method} ${url.pathname}${secret === null ? '' : ` as ${secret}`}`);
    if (state.down) throw new TypeError('fetch failed');
    if (url.pathname === '/v1/node/session' && method === 'POST') {
      const { code } = JSON.parse(String(init?.body)) as { code: string };
      const known = state.codes.get(code);
      if (known === 'expired') return refused('SVC_ERR_UI_LINK_EXPIRED', 'This link expired (links work for 5 minutes); run `svc-node ui` for a fresh one');
      if (known !== 'fresh') return refused('SVC_ERR_UI_LINK_INVALID', 'This link was already used or is unknown; run `svc-node ui` for a new one');
      state.codes.set(code, 'used');
      const token = `secret-${state.sessions.size + 1}`;
      const id = `6f1c1a2e-0000-4000-8000-00000000000${state.sessions.size + 1}`;
      state.sessions.set(token, { id, state: 'live' });
      return json(201, SignedInSession.parse({ session_token: token, session: view(id, true) }));
    }
    const session = secret === null ? undefined : state.sessions.get(secret);
    if (session === undefined) return refused('SVC_ERR_OWNER_SESSION_UNKNOWN', 'This session is not known.');
    if (session.state === 'revoked') return refused('SVC_ERR_OWNER_SESSION_REVOKED', 'This session was revoked.');
    if (session.state === 'expired') return refused('SVC_ERR_OWNER_SESSION_EXPIRED', 'This session has expired.');
    if (url.pathname === '/v1/node/info') return json(200, { ...NODE_INFO, core_url: url.origin });
    if (url.pathname === '/v1/node/sessions') {
      return json(
        200,
        OwnerSessionList.parse({ sessions: [...state.sessions.entries()].map(([token, s]) => view(s.id, token === secret)), idle_days: 14, max_days: 90 }),
      );
    }
    const revoke = /^\/v1\/node\/sessions\/(.+)$/.exec(url.pathname);
    if (revoke && method === 'DELETE') {
      const target = [...state.sessions.values()].find((s) => s.id === revoke[1]);
      if (target !== undefined) target.state = 'revoked';
      return json(200, RevokedSessions.parse({ revoked: target === undefined ? 0 : 1 }));
    }
    return json(404, { detail: 'Not Found', code: 'SVC_ERR_NOT_FOUND' });
  };
  return { state, fetch };
}

let node: ReturnType<typeof browserNode>;
const saved = () => window.localStorage.getItem(sessionStorageKey(window.location.origin));

beforeEach(() => {
  window.localStorage.clear();
  // A fresh Pinia (the fake client it connects is replaced by `start`).
  connectFakeNode();
  useSessionStore().client = null;
  node = browserNode();
  vi.stubGlobal('fetch', node.fetch);
});
afterEach(() => vi.unstubAllGlobals());

describe('session store (browser)', () => {
  it('is signed out, asking nothing, without a saved session', async () => {
    const session = useSessionStore();
    await session.start();
    expect(session.status).toBe('signed-out');
    expect(session.reason).toBeNull();
    expect(node.state.requests).toEqual([]);
    expect(() => session.api()).toThrow(ApiError);
  });

  it('signs in with a link’s code, takes the code out of the address bar, and remembers the node’s data folder', async () => {
    node.state.codes.set('c-1', 'fresh');
    window.history.replaceState(null, '', '/ui/#code=c-1');
    const session = useSessionStore();
    await session.signIn('c-1', '#/mail');
    expect(session.status).toBe('connected');
    expect(saved()).toBe('secret-1');
    expect(window.location.hash).toBe('#/mail');
    expect(session.info?.data_dir).toBe('/data/node');
    expect(session.command).toBe('npx svc-node ui --data /data/node');
    expect(node.state.requests).toEqual(['POST /v1/node/session', 'GET /v1/node/info as secret-1']);
  });

  it('says a used link was used, and an expired one expired, and how to get a fresh one', async () => {
    node.state.codes.set('c-1', 'used');
    node.state.codes.set('c-2', 'expired');
    const session = useSessionStore();
    await session.signIn('c-1', '');
    expect(session.status).toBe('signed-out');
    expect(session.reason).toMatch(/^That sign-in link was already used: each link works once\. For a fresh one, run `svc-node ui`/);
    await session.signIn('c-2', '');
    expect(session.reason).toMatch(/^That sign-in link has expired: links work for a few minutes after they are made\. For a fresh one/);
  });

  it('says a link did not work even when an older saved session is gone too', async () => {
    node.state.sessions.set('old', { id: 'id-old', state: 'revoked' });
    window.localStorage.setItem(sessionStorageKey(window.location.origin), 'old');
    node.state.codes.set('c-1', 'used');
    const session = useSessionStore();
    await session.signIn('c-1', '');
    expect(session.status).toBe('signed-out');
    expect(session.ended).toBe(false);
    expect(session.reason).toMatch(/^That sign-in link was already used/);
  });

  it('says a session the node no longer takes has expired, and forgets it', async () => {
    node.state.sessions.set('old', { id: 'id-old', state: 'expired' });
    window.localStorage.setItem(sessionStorageKey(window.location.origin), 'old');
    const session = useSessionStore();
    await session.start();
    expect(session.status).toBe('signed-out');
    expect(session.ended).toBe(true);
    expect(session.reason).toBe('This browser’s session has expired: sessions end after 14 days without use, and 90 days after signing in.');
    expect(saved()).toBeNull();
  });

  it('hears the session end on any request, and says it was signed out elsewhere', async () => {
    node.state.codes.set('c-1', 'fresh');
    const session = useSessionStore();
    await session.signIn('c-1', '');
    node.state.sessions.get('secret-1')!.state = 'revoked';
    await expect(session.api().projects()).rejects.toThrow('This session was revoked.');
    expect(session.status).toBe('signed-out');
    expect(session.reason).toBe('This browser’s session has ended: it was signed out, from Settings or another window.');
    expect(session.client).toBeNull();
  });

  it('does not later blame a link that failed while this window stayed signed in', async () => {
    node.state.codes.set('c-1', 'fresh');
    node.state.codes.set('c-old', 'used');
    const session = useSessionStore();
    await session.signIn('c-1', '');
    await session.signIn('c-old', '');
    expect(session.status).toBe('connected');
    expect(session.reason).toBeNull();
    // Hours later the session is signed out elsewhere, and Settings reads the node's info.
    node.state.sessions.get('secret-1')!.state = 'revoked';
    await session.refreshInfo();
    expect(session.status).toBe('signed-out');
    expect(session.reason).toBe('This browser’s session has ended: it was signed out, from Settings or another window.');
    expect(session.ended).toBe(true);
  });

  it('takes up the session another tab saved when its own ends', async () => {
    node.state.codes.set('c-1', 'fresh');
    node.state.codes.set('c-2', 'fresh');
    const session = useSessionStore();
    await session.signIn('c-1', '');
    // Another tab signs in with a second link, and this tab's session is revoked.
    const other = await node.fetch(`${window.location.origin}/v1/node/session`, { method: 'POST', body: JSON.stringify({ code: 'c-2' }) });
    window.localStorage.setItem(sessionStorageKey(window.location.origin), ((await other.json()) as { session_token: string }).session_token);
    node.state.sessions.get('secret-1')!.state = 'revoked';
    await session.refreshInfo();
    await expect.poll(() => session.status).toBe('connected');
    expect(node.state.requests.at(-1)).toBe('GET /v1/node/info as secret-2');
  });

  it('ends the session it replaces when a new link is followed', async () => {
    node.state.codes.set('c-1', 'fresh');
    node.state.codes.set('c-2', 'fresh');
    const session = useSessionStore();
    await session.signIn('c-1', '');
    await session.signIn('c-2', '');
    await expect.poll(() => node.state.sessions.get('secret-1')?.state).toBe('revoked');
    expect(session.status).toBe('connected');
    expect(saved()).toBe('secret-2');
  });

  it('signs out: ends its session on the node and forgets it here', async () => {
    node.state.codes.set('c-1', 'fresh');
    const session = useSessionStore();
    await session.signIn('c-1', '');
    await session.signOut();
    expect(node.state.sessions.get('secret-1')?.state).toBe('revoked');
    expect(saved()).toBeNull();
    expect(session.status).toBe('signed-out');
    expect(session.reason).toBe('You signed out of this browser.');
    expect(session.ended).toBe(false);
  });

  it('says the node can’t be reached when it does not answer', async () => {
    window.localStorage.setItem(sessionStorageKey(window.location.origin), 'secret-1');
    node.state.down = true;
    const session = useSessionStore();
    await session.start();
    expect(session.status).toBe('unreachable');
    expect(session.reason).toBe(`Could not reach the node at ${window.location.origin}. Is it still running?`);
  });

  it('acts as each identity through one client, forgotten on sign-out', async () => {
    node.state.codes.set('c-1', 'fresh');
    const session = useSessionStore();
    await session.signIn('c-1', '');
    const ada = session.asIdentity('agent-ada');
    expect(session.asIdentity('agent-ada')).toBe(ada);
    expect(session.asIdentity('agent-bo')).not.toBe(ada);
    await session.signOut();
    expect(() => session.asIdentity('agent-ada')).toThrow('Not connected to the node.');
  });
});
