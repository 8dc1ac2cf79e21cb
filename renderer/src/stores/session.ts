/**
 * The connection to the node: which client to use, and whether we have one at all.
 * `connecting` → `connected` (node info loaded) | `signed-out` (no session, or it ended; the
 * sign-in screen says why and how to get a new link) | `unreachable` (the node does not answer
 * the first read; a retry screen). A node restarting while the window is open is none of these:
 * the browser session outlives it, and the live feed reconnects by itself.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import {
  browserEnv,
  clearFragment,
  connect,
  dataDirStorageKey,
  exchangeCode,
  forgetSession,
  linkRefusal,
  saveSession,
  savedSession,
  sessionEndedReason,
  signInCommand,
  type SessionEnd,
} from '../api/connect.ts';
import { ApiError } from '../api/errors.ts';
import type { IdentityClient } from '../api/identity.ts';
import { SessionKeys } from '../api/identity-keys.ts';
import type { NodeClient, NodeInfo } from '../api/owner.ts';
import { errorMessage } from '../lib/format.ts';

export type SessionStatus = 'connecting' | 'connected' | 'signed-out' | 'unreachable';

export const useSessionStore = defineStore('session', () => {
  const status = ref<SessionStatus>('connecting');
  /** Why we are signed out or unreachable, in words; null when there is nothing to explain. */
  const reason = ref<string | null>(null);
  /** True while the sign-in screen shows because a session ended (not because there never was one). */
  const ended = ref(false);
  const client = shallowRef<NodeClient | null>(null);
  const info = ref<NodeInfo | null>(null);
  /** The node's data folder as last seen (remembered per origin), for the command that signs in again. */
  const dataDir = ref<string | null>(null);
  /** The command that prints a new sign-in link for this node. */
  const command = computed(() => signInCommand(dataDir.value));
  /** The session secret the client uses (browser only). */
  let token: string | null = null;
  /** A sign-in link that did not work, to say so once the saved session (if any) is checked. */
  let linkProblem: string | null = null;
  /**
   * Session keys acting as each identity, minted with the owner credential on first use. In memory
   * only (this store, never localStorage): a reload or sign-out forgets them.
   */
  let keys: SessionKeys | null = null;
  const identityClients = new Map<string, IdentityClient>();

  /**
   * Trades a sign-in link's code for a browser session and saves it; a refusal is kept to be
   * said (`linkProblem`). True when a session was saved. The desktop app needs none.
   */
  async function redeem(code: string): Promise<boolean> {
    const env = browserEnv();
    if (env.svc !== undefined) return false;
    try {
      const fresh = await exchangeCode(env.fetch, env.location.origin, code);
      const replaced = savedSession(env);
      saveSession(env, fresh);
      linkProblem = null;
      // The session this one replaces is nobody's any more: end it rather than let it idle out.
      if (replaced !== null && replaced !== fresh && client.value !== null) void revokeOwn(client.value);
      return true;
    } catch (error) {
      linkProblem = linkRefusal(error);
      return false;
    }
  }

  async function revokeOwn(old: NodeClient): Promise<void> {
    try {
      const own = (await old.sessions()).sessions.find((s) => s.current);
      if (own !== undefined) await old.revokeSession(own.session_id);
    } catch {
      // Best effort: an old session left behind still ends after its idle time.
    }
  }

  /** Connects with the saved session (or the desktop bridge) and checks it by loading the node's info. */
  async function start(): Promise<void> {
    status.value = 'connecting';
    reason.value = null;
    const env = browserEnv();
    dataDir.value ??= env.svc === undefined ? env.storage.getItem(dataDirStorageKey(env.location.origin)) : null;
    const connection = connect(env, onEnded);
    resetKeys();
    if (connection.kind === 'signed-out') {
      client.value = null;
      token = null;
      status.value = 'signed-out';
      reason.value = linkProblem;
      return;
    }
    client.value = connection.client;
    token = connection.token;
    ended.value = false;
    await refreshInfo();
  }

  /**
   * A sign-in link opened in this tab while it runs: exchanged first, then taken out of the
   * address bar (leaving `route`, the route the tab shows), then this window uses the new session.
   */
  async function signIn(code: string, route: string): Promise<void> {
    const saved = await redeem(code);
    clearFragment(browserEnv(), route);
    if (saved || status.value !== 'connected') await start();
    // Still signed in with the session it had: the link's refusal is moot, and must not be said later about an end it did not cause.
    else linkProblem = null;
  }

  /**
   * Another tab saved a session (it followed a sign-in link): a window without a working one
   * takes it up.
   */
  async function adopt(): Promise<void> {
    const saved = savedSession(browserEnv());
    if (saved !== null && saved !== token) await start();
  }

  /** The node says this window's session (`of`) is over: say so at once, with the way back. */
  function onEnded(end: SessionEnd, of: string): void {
    // A client this window has already replaced (a new sign-in) hears its old session end.
    if (of !== token) return;
    const env = browserEnv();
    const saved = savedSession(env);
    // Another tab signed in again meanwhile: use its session instead.
    if (saved !== null && saved !== token) {
      void start();
      return;
    }
    if (status.value === 'signed-out') return;
    forgetSession(env);
    resetKeys();
    client.value = null;
    token = null;
    ended.value = true;
    status.value = 'signed-out';
    reason.value = sessionEndedReason(end.code);
  }

  /**
   * Loads /v1/node/info, which also proves the session is still good. When a sign-in link did not
   * work just now and the saved session is gone too, that is what the person needs to hear (they
   * followed a link), not that an older session ended.
   */
  async function refreshInfo(): Promise<void> {
    const current = client.value;
    if (current === null) return;
    try {
      info.value = await current.info();
      rememberDataDir(info.value.data_dir);
      status.value = 'connected';
      reason.value = null;
      linkProblem = null;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401 && current.mode === 'browser') {
        // The watched fetch has usually said why already (onEnded); a link that failed just now says more.
        if (status.value !== 'signed-out' && token !== null) onEnded({ code: error.code ?? 'SVC_ERR_OWNER_SESSION_UNKNOWN', detail: error.message }, token);
        if (linkProblem !== null) {
          reason.value = linkProblem;
          ended.value = false;
          linkProblem = null;
        }
        return;
      }
      status.value = 'unreachable';
      reason.value = errorMessage(error);
    }
  }

  function rememberDataDir(dir: string): void {
    dataDir.value = dir;
    const env = browserEnv();
    if (env.svc === undefined) env.storage.setItem(dataDirStorageKey(env.location.origin), dir);
  }

  /** Browser only: ends this browser's session on the node (when it answers) and forgets it here. */
  async function signOut(): Promise<void> {
    const current = client.value;
    if (current !== null) await revokeOwn(current);
    forgetSession(browserEnv());
    resetKeys();
    client.value = null;
    token = null;
    info.value = null;
    ended.value = false;
    status.value = 'signed-out';
    reason.value = 'You signed out of this browser.';
  }

  /** The client, for stores that only run while connected. */
  function api(): NodeClient {
    if (client.value === null) throw new ApiError(401, 'Not connected to the node.');
    return client.value;
  }

  function resetKeys(): void {
    keys?.clear();
    keys = null;
    identityClients.clear();
  }

  /** The identity API as `agentId` (mail, contacts, chat), for stores that only run while connected. */
  function asIdentity(agentId: string): IdentityClient {
    const owner = api();
    let held = identityClients.get(agentId);
    if (held === undefined) {
      keys ??= new SessionKeys((id) => owner.mintSessionKey(id));
      held = owner.asIdentity(agentId, keys);
      identityClients.set(agentId, held);
    }
    return held;
  }

  return { status, reason, ended, client, info, dataDir, command, redeem, start, signIn, adopt, refreshInfo, signOut, api, asIdentity };
});
