/**
 * Getting a session with the node, and so its owner client (owner.ts).
 * - Desktop (Electron): the preload exposes `window.svc` with the owner token and the node's URLs.
 * - Browser (the headless node serves this build at /ui/): the node prints a link ending in
 *   `#code=<one-time code>`. At startup we take the code out of the address bar (so it is neither
 *   bookmarked nor reused), exchange it once at `POST /v1/node/session` for the owner token, and
 *   keep the token in localStorage under a key naming this origin. The core URL is the page origin.
 */
import type { OwnerSession } from '../../../contract/node/owner.ts';
import type { SvcBridge } from '../../../preload/api.d.ts';
import { ApiError } from './errors.ts';
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

/** localStorage key of the owner token: one per node origin (several nodes, one browser). */
export function tokenStorageKey(origin: string): string {
  return `svc-node.owner-token@${origin}`;
}

/**
 * Takes a `#code=<one-time code>` out of the address bar. Returns the code, or null when the
 * fragment holds none; the fragment is removed either way it had one, so the code can neither be
 * bookmarked nor end up in the router. Must run before the router reads the location.
 */
export function takeCodeFromFragment(env: Pick<BrowserEnv, 'location' | 'history'>): string | null {
  const hash = env.location.hash.replace(/^#/, '');
  if (hash === '' || hash.startsWith('/')) return null;
  const code = new URLSearchParams(hash).get('code');
  if (code === null) return null;
  env.history.replaceState(null, '', env.location.pathname + env.location.search);
  return code.trim() === '' ? null : code;
}

export type Connection =
  /** `linkProblem`: a sign-in link that did not work, while a saved session may still (it is checked next). */
  | { kind: 'connected'; client: NodeClient; linkProblem?: string | null }
  | { kind: 'signed-out'; reason: string | null };

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

/** Exchanges a one-time code for the owner token (`POST /v1/node/session`). */
export async function exchangeCode(fetchImpl: FetchLike, origin: string, code: string): Promise<string> {
  const body = await requestJson<Partial<OwnerSession>>(fetchImpl, `${origin}/v1/node/session`, 'POST', null, {
    code,
  });
  if (typeof body.owner_token !== 'string' || body.owner_token === '') {
    throw new ApiError(500, 'The node did not return a session token.');
  }
  return body.owner_token;
}

/**
 * Finds the owner token (desktop bridge, one-time code, or the one saved for this origin) and
 * returns a client for it. It does not call the node beyond the code exchange: the caller checks
 * the session with `client.info()` and calls `forgetSession` when that answers 401.
 */
export async function connect(env: BrowserEnv, code: string | null): Promise<Connection> {
  if (env.svc !== undefined) {
    return {
      kind: 'connected',
      client: new NodeClient({ coreUrl: env.svc.coreUrl, token: env.svc.ownerToken, mode: 'desktop', fetch: env.fetch }),
    };
  }
  const origin = env.location.origin;
  const key = tokenStorageKey(origin);
  let reason: string | null = null;
  if (code !== null) {
    try {
      env.storage.setItem(key, await exchangeCode(env.fetch, origin, code));
    } catch (error) {
      reason = linkRefusal(error);
    }
  }
  const token = env.storage.getItem(key);
  if (token === null || token === '') return { kind: 'signed-out', reason };
  return { kind: 'connected', client: new NodeClient({ coreUrl: origin, token, mode: 'browser', fetch: env.fetch }), linkProblem: reason };
}

/** Drops the saved browser session for this origin (sign out, or a token the node no longer knows). */
export function forgetSession(env: Pick<BrowserEnv, 'storage' | 'location'>): void {
  env.storage.removeItem(tokenStorageKey(env.location.origin));
}
