/**
 * The connection to the node: which client to use, and whether we have one at all.
 * `connecting` → `connected` (node info loaded) | `signed-out` (no token; the sign-in screen)
 * | `unreachable` (the node does not answer; a retry screen).
 */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import { browserEnv, connect, forgetSession } from '../api/connect.ts';
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
  const client = shallowRef<NodeClient | null>(null);
  const info = ref<NodeInfo | null>(null);
  /**
   * Session keys acting as each identity, minted with the owner token on first use. In memory
   * only (this store, never localStorage): a reload or sign-out forgets them.
   */
  let keys: SessionKeys | null = null;
  const identityClients = new Map<string, IdentityClient>();

  /** Connects once at startup; `code` is the one-time code taken from the address bar, if any. */
  async function start(code: string | null): Promise<void> {
    status.value = 'connecting';
    reason.value = null;
    const env = browserEnv();
    const connection = await connect(env, code);
    if (connection.kind === 'signed-out') {
      status.value = 'signed-out';
      reason.value = connection.reason;
      return;
    }
    client.value = connection.client;
    resetKeys();
    await refreshInfo(connection.linkProblem ?? null);
  }

  /**
   * Loads /v1/node/info, which also proves the token is still good. `linkProblem`: a sign-in link
   * that did not work just now; when the saved session is gone too, that is what the person needs
   * to hear (they followed a link), not that an older session ended.
   */
  async function refreshInfo(linkProblem: string | null = null): Promise<void> {
    const current = client.value;
    if (current === null) return;
    try {
      info.value = await current.info();
      status.value = 'connected';
      reason.value = null;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401 && current.mode === 'browser') {
        forgetSession(browserEnv());
        client.value = null;
        status.value = 'signed-out';
        reason.value = linkProblem ?? 'This browser’s session has ended (the node was restarted, or the session was signed out).';
        return;
      }
      status.value = 'unreachable';
      reason.value = errorMessage(error);
    }
  }

  /** Browser only: forget the token saved for this node. */
  function signOut(): void {
    forgetSession(browserEnv());
    resetKeys();
    client.value = null;
    info.value = null;
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

  return { status, reason, client, info, start, refreshInfo, signOut, api, asIdentity };
});
