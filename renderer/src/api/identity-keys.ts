/**
 * Acting as an identity: the owner has no identity keys (they are shown once, at creation). The
 * UI mints a short-lived session key per identity with the owner token when it first needs one
 * (`SessionKeys`, memory only) and calls the ordinary identity API with it (`IdentityRequests`,
 * which the mail, chat and contacts clients share), minting a fresh one once when the node
 * answers 401.
 */
import type { SessionKey } from '../../../contract/node/identities.ts';
import { ApiError } from './errors.ts';
import { requestJson, trimSlash, type HttpMethod } from './http.ts';
import { openStream } from './sse.ts';
import type { FetchLike, SseFrame, StreamHandle, StreamState } from './sse.ts';

/** Where an identity's requests get their bearer key. */
export interface KeySource {
  /** A key believed valid (minted when there is none, or it expires within a few minutes). */
  current(): Promise<string>;
  /** A new key, because `stale` was refused; concurrent refusals share one mint. */
  renew(stale: string): Promise<string>;
}

/** Renew a key this long before it expires, so no request races the expiry. */
const KEY_MARGIN_MS = 5 * 60 * 1000;

/**
 * Session keys per identity, minted with the owner token on first use and kept in memory only
 * (never in storage: a reload mints new ones). One mint at a time per identity.
 */
export class SessionKeys {
  readonly #mint: (agentId: string) => Promise<SessionKey>;
  readonly #now: () => number;
  readonly #keys = new Map<string, { key: string; expiresAt: number }>();
  readonly #minting = new Map<string, Promise<string>>();

  constructor(mint: (agentId: string) => Promise<SessionKey>, now: () => number = Date.now) {
    this.#mint = mint;
    this.#now = now;
  }

  async current(agentId: string): Promise<string> {
    const held = this.#keys.get(agentId);
    if (held !== undefined && held.expiresAt - KEY_MARGIN_MS > this.#now()) return held.key;
    return this.#mintOnce(agentId);
  }

  async renew(agentId: string, stale: string): Promise<string> {
    const held = this.#keys.get(agentId);
    // Another request already replaced the refused key: use that one.
    if (held !== undefined && held.key !== stale) return held.key;
    this.#keys.delete(agentId);
    return this.#mintOnce(agentId);
  }

  source(agentId: string): KeySource {
    return { current: () => this.current(agentId), renew: (stale) => this.renew(agentId, stale) };
  }

  /** Forgets every key (sign-out). */
  clear(): void {
    this.#keys.clear();
  }

  #mintOnce(agentId: string): Promise<string> {
    const inFlight = this.#minting.get(agentId);
    if (inFlight !== undefined) return inFlight;
    const promise = this.#mint(agentId)
      .then((minted) => {
        const expiresAt = Date.parse(minted.expires_at);
        this.#keys.set(agentId, { key: minted.api_key, expiresAt: Number.isNaN(expiresAt) ? this.#now() + KEY_MARGIN_MS * 2 : expiresAt });
        return minted.api_key;
      })
      .finally(() => this.#minting.delete(agentId));
    this.#minting.set(agentId, promise);
    return promise;
  }
}

/** Requests and streams of the identity API as one identity, authenticated with its session key. */
export class IdentityRequests {
  readonly coreUrl: string;
  readonly #fetch: FetchLike;
  readonly #keys: KeySource;

  constructor(options: { coreUrl: string; fetch: FetchLike; keys: KeySource }) {
    this.coreUrl = trimSlash(options.coreUrl);
    this.#fetch = options.fetch;
    this.#keys = options.keys;
  }

  /** One call; on a 401 a fresh key is minted and the call made once more. */
  async call<T>(method: Exclude<HttpMethod, 'PUT'>, path: string, body?: unknown): Promise<T> {
    const url = `${this.coreUrl}${path}`;
    const key = await this.#keys.current();
    try {
      return await requestJson<T>(this.#fetch, url, method, key, body);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      return requestJson<T>(this.#fetch, url, method, await this.#keys.renew(key), body);
    }
  }

  /** A live stream at `path(deadline)`; a 401 mid-stream renews the key once per refusal. */
  stream(options: {
    path: (deadline: string) => string;
    onFrame: (frame: SseFrame) => void;
    onState?: ((state: StreamState, detail: string | null) => void) | undefined;
  }): StreamHandle {
    let held: string | null = null;
    return openStream({
      url: (deadline) => `${this.coreUrl}${options.path(deadline)}`,
      token: async (renew) => (held = renew && held !== null ? await this.#keys.renew(held) : await this.#keys.current()),
      fetch: this.#fetch,
      onState: options.onState,
      onFrame: options.onFrame,
    });
  }
}
