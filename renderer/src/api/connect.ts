/**
 * Getting a session with the node, and so its owner client (owner.ts).
 * - Desktop (Electron): the preload exposes `window.svc` with the owner token and the node's URLs.
 * - Browser (the headless node serves this build at /ui/): the node prints a link ending in
 *   `#code=<one-time code>`. The code is exchanged once at `POST /v1/node/session` for a browser
 *   session (never the owner token), and only then taken out of the address bar, so neither a
 *   bookmark nor the router ever holds it. The session's secret is kept in localStorage under a
 *   key naming this origin; the node keeps the session across its restarts until it is revoked
 *   (Settings) or expires. A link pasted into a tab that is already open is a same-document
 *   navigation: `watchSignInLinks` hears it before the router does. The core URL is the page origin.
 */
import type { SignedInSession } from '../../../contract/node/sessions.ts';
import type { SvcBridge } from '../../../preload/api.d.ts';
import { ApiError, errorCode, errorMessage } from './errors.ts';
import { requestJson } from './http.ts';
import { NodeClient } from './owner.ts';
import type { FetchLike } from './sse.ts';

/** The parts of `window` the session logic touches, so tests can pass fakes. */
export interface BrowserEnv {
  svc?: SvcBridge | undefined;
  location: { origin: string; pathname: string; search: string; hash: string };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  fetch: FetchLike;
}

export function browserEnv(): BrowserEnv {
  return {
    svc: window.svc,
    location: window.location,
    history: window.history,
    storage: window.localStorage,
    fetch: (input, init) => window.fetch(input, init),
  };
}

/** localStorage key of the browser session: one per node origin (several nodes, one browser). */
export function sessionStorageKey(origin: string): string {
  return `svc-node.session@${origin}`;
}

/** Where an older build kept the owner token itself; forgotten on sight. */
function legacyTokenKey(origin: string): string {
  return `svc-node.owner-token@${origin}`;
}

/** localStorage key of the node's data folder, remembered so a window whose session ended can name the command that signs in again. */
export function dataDirStorageKey(origin: string): string {
  return `svc-node.data-dir@${origin}`;
}

/**
 * The one-time code in a `#code=<one-time code>` fragment, or null when the fragment holds none
 * (a route, `#/mail`, is not one). Reads only: the fragment is cleared once the code is exchanged.
 */
export function codeInFragment(location: Pick<BrowserEnv['location'], 'hash'>): string | null {
  const hash = location.hash.replace(/^#/, '');
  if (hash === '' || hash.startsWith('/')) return null;
  const code = new URLSearchParams(hash).get('code');
  return code === null || code.trim() === '' ? null : code;
}

/** Takes the sign-in fragment out of the address bar, leaving `route` (a router fragment, `#/mail`) or none. */
export function clearFragment(env: Pick<BrowserEnv, 'location' | 'history'>, route = ''): void {
  env.history.replaceState(null, '', env.location.pathname + env.location.search + route);
}

/**
 * Calls `onCode` with the code of every sign-in link opened in this tab while it runs (pasted in
 * the address bar: the fragment changes, the page stays). It must be installed before the router:
 * the router then never sees `#code=…` as a route (the event stops here). Returns the uninstall.
 */
export function watchSignInLinks(
  target: Pick<Window, 'addEventListener' | 'removeEventListener' | 'location'>,
  onCode: (code: string) => Promise<void>,
): () => void {
  const pending = new Set<string>();
  const listener = (event: Event): void => {
    const code = codeInFragment(target.location);
    if (code === null) return;
    event.stopImmediatePropagation();
    // A fragment navigation fires popstate and then hashchange: one sign-in while it runs.
    if (pending.has(code)) return;
    pending.add(code);
    void onCode(code).finally(() => pending.delete(code));
  };
  target.addEventListener('popstate', listener);
  target.addEventListener('hashchange', listener);
  return () => {
    target.removeEventListener('popstate', listener);
    target.removeEventListener('hashchange', listener);
  };
}

/**
 * Why a sign-in link did not work, in words that say how to get a fresh one. The node answers
 * 401 for a used (or unknown) code and for an expired one, and says which (server/auth/owner.ts).
 */
export function linkRefusal(error: unknown): string {
  if (!(error instanceof ApiError) || error.status !== 401) return error instanceof Error ? error.message : String(error);
  const fresh = 'For a fresh one, run `svc-node ui` where the node runs (or use Settings → Open in a browser in a window already signed in).';
  return /expired/i.test(error.message)
    ? `That sign-in link has expired: links work for a few minutes after they are made. ${fresh}`
    : `That sign-in link was already used: each link works once. ${fresh}`;
}

/** Exchanges a one-time code for a browser session (`POST /v1/node/session`); its secret. */
export async function exchangeCode(fetchImpl: FetchLike, origin: string, code: string): Promise<string> {
  const body = await requestJson<Partial<SignedInSession>>(fetchImpl, `${origin}/v1/node/session`, 'POST', null, { code });
  if (typeof body.session_token !== 'string' || body.session_token === '') {
    throw new ApiError(500, 'The node did not return a session.');
  }
  return body.session_token;
}

/** The browser session saved for this origin, if any (an older build's saved owner token is dropped). */
export function savedSession(env: Pick<BrowserEnv, 'storage' | 'location'>): string | null {
  env.storage.removeItem(legacyTokenKey(env.location.origin));
  const token = env.storage.getItem(sessionStorageKey(env.location.origin));
  return token === null || token === '' ? null : token;
}

export function saveSession(env: Pick<BrowserEnv, 'storage' | 'location'>, token: string): void {
  env.storage.setItem(sessionStorageKey(env.location.origin), token);
}

/** Drops the saved browser session for this origin (sign out, or a session the node ended). */
export function forgetSession(env: Pick<BrowserEnv, 'storage' | 'location'>): void {
  env.storage.removeItem(sessionStorageKey(env.location.origin));
}

/** The refusals that mean the browser's session is over (the owner token one: a session from an older build). */
const SESSION_ENDED = new Set([
  'SVC_ERR_OWNER_SESSION_REVOKED',
  'SVC_ERR_OWNER_SESSION_EXPIRED',
  'SVC_ERR_OWNER_SESSION_UNKNOWN',
  'SVC_ERR_OWNER_TOKEN_REQUIRED',
]);

export interface SessionEnd {
  code: string;
  detail: string;
}

/**
 * `fetchImpl`, telling `onEnded` whenever the node answers that the browser's session is over,
 * whichever request heard it first (the owner feed usually: it ends the moment a session is
 * revoked). The answer itself goes on to its caller unchanged.
 */
export function watchSessionEnd(fetchImpl: FetchLike, onEnded: (end: SessionEnd) => void): FetchLike {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (response.status !== 401) return response;
    let body: unknown = null;
    try {
      body = JSON.parse(await response.clone().text()) as unknown;
    } catch {
      // Not JSON: not the node's refusal of a session.
    }
    const code = errorCode(body);
    if (code !== null && SESSION_ENDED.has(code)) onEnded({ code, detail: errorMessage(401, body) });
    return response;
  };
}

/** A word for the shell, quoted when it needs to be. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The exact command that prints a new sign-in link, for the node whose data folder is `dataDir` when known. */
export function signInCommand(dataDir: string | null): string {
  return dataDir === null ? 'npx svc-node ui --data DIR' : `npx svc-node ui --data ${shellWord(dataDir)}`;
}

/** Why this window's session ended, in words (the way back is shown beside it). */
export function sessionEndedReason(code: string): string {
  switch (code) {
    case 'SVC_ERR_OWNER_SESSION_REVOKED':
      return 'This browser’s session has ended: it was signed out, from Settings or another window.';
    case 'SVC_ERR_OWNER_SESSION_EXPIRED':
      return 'This browser’s session has expired: sessions end after 14 days without use, and 90 days after signing in.';
    default:
      return 'This browser’s session has ended: the node no longer knows it (its data was reset, or it is another node now).';
  }
}

export type Connection = { kind: 'connected'; client: NodeClient; token: string | null } | { kind: 'signed-out' };

/**
 * The owner client: the desktop bridge's, or one with the session saved for this origin. It does
 * not call the node: the caller checks the session with `client.info()`. `onEnded` hears the node
 * say the browser's session is over, on any request, with the session it was about.
 */
export function connect(env: BrowserEnv, onEnded: (end: SessionEnd, token: string) => void): Connection {
  if (env.svc !== undefined) {
    return {
      kind: 'connected',
      client: new NodeClient({ coreUrl: env.svc.coreUrl, token: env.svc.ownerToken, mode: 'desktop', fetch: env.fetch }),
      token: null,
    };
  }
  const token = savedSession(env);
  if (token === null) return { kind: 'signed-out' };
  const fetchImpl = watchSessionEnd(env.fetch, (end) => onEnded(end, token));
  return { kind: 'connected', client: new NodeClient({ coreUrl: env.location.origin, token, mode: 'browser', fetch: fetchImpl }), token };
}
