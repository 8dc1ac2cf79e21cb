/**
 * The one typed HTTP client between the UI and the node. Every request the renderer makes goes
 * through here; views and stores never call `fetch` themselves.
 *
 * Where the connection details come from:
 * - Desktop (Electron): the preload exposes `window.svc` with the owner token and the node's URLs.
 * - Browser (the headless node serves this build at /ui/): the node prints a link ending in
 *   `#code=<one-time code>`. At startup we take the code out of the address bar (so it is neither
 *   bookmarked nor reused), exchange it once at `POST /v1/node/session` for the owner token, and
 *   keep the token in localStorage under a key naming this origin. The core URL is the page origin.
 *
 * Errors: the node answers `{"detail": string | [{loc, msg, type}]}`. Every failure becomes an
 * `ApiError` whose `message` is that detail in plain words, ready to show next to the action.
 */
import type { SvcBridge } from '../../../preload/api.d.ts';

// ---------------------------------------------------------------------------------------------
// Wire types (owner API, /v1/node/...)
// ---------------------------------------------------------------------------------------------

export type Lifetime = 'ephemeral' | 'persistent';
export type IdentityStatus = 'active' | 'archived' | 'replaced' | 'deleted';
export type Reachability = 'public' | 'contacts-only';
export type VerificationStatus = 'unverified' | 'verified' | 'revoked';
export type CustodyBackend = 'safe-storage' | 'keyring' | 'passphrase' | 'key-file';

export interface NodeInfo {
  node_id: string;
  version: string;
  core_url: string;
  library_url: string;
  docs_url: string;
  ui_url: string | null;
  public_url: string | null;
  data_dir: string;
  custody_backend: CustodyBackend | string;
}

export interface Project {
  project_id: string;
  slug: string;
  name: string | null;
  namespace: string | null;
  identity_count: number;
  created_at: string;
}

export interface CreatedProject {
  project_id: string;
  slug: string;
  api_key: string;
  namespace: string | null;
}

export interface Identity {
  identity_id: string;
  agent_id: string;
  project_id: string;
  project_slug: string;
  alias: string;
  name: string;
  lifetime: Lifetime;
  status: IdentityStatus;
  custody: string;
  did_key: string;
  did_aw: string | null;
  address: string | null;
  address_reachability: Reachability;
  created_at: string;
}

export interface CreatedIdentity {
  status: 'ok';
  identity_id: string;
  agent_id: string;
  project_id: string;
  project_slug: string;
  alias: string;
  name: string;
  lifetime: 'persistent';
  did: string;
  stable_id: string;
  custody: string;
  address: string | null;
  address_reachability: Reachability;
  namespace: string | null;
  api_key: string;
  created_at: string;
  server_url: string;
}

export interface Namespace {
  domain: string;
  controller_did: string;
  verification_status: VerificationStatus;
  node_controlled: boolean;
  address_count: number;
  created_at: string;
}

export interface CreateProjectInput {
  slug: string;
  name?: string;
  namespace?: string;
}

export interface CreateIdentityInput {
  project_id: string;
  name: string;
  address_reachability?: Reachability;
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** A failed call, with the node's `detail` (or our own plain explanation) as the message. */
export class ApiError extends Error {
  /** HTTP status; 0 when the node could not be reached at all. */
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

function locLabel(loc: unknown): string {
  if (!Array.isArray(loc)) return '';
  const parts = loc.filter((part) => part !== 'body' && part !== 'query' && part !== 'path').map(String);
  return parts.join('.');
}

/**
 * The `detail` of an error body as one readable sentence: a string as it is; a validation list
 * (`[{loc, msg}]`) as "name: Field required; slug: too long". Null when there is none.
 */
export function formatDetail(detail: unknown): string | null {
  if (typeof detail === 'string') return detail.trim() === '' ? null : detail;
  if (Array.isArray(detail)) {
    const lines = detail
      .map((item: unknown) => {
        if (typeof item === 'string') return item;
        if (typeof item !== 'object' || item === null) return '';
        const { loc, msg } = item as { loc?: unknown; msg?: unknown };
        const text = typeof msg === 'string' ? msg : '';
        const label = locLabel(loc);
        return label && text ? `${label}: ${text}` : text;
      })
      .filter((line) => line !== '');
    return lines.length > 0 ? lines.join('; ') : null;
  }
  return null;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'The node could not use that request.',
  401: 'The node did not accept this session.',
  403: 'The node refused this request.',
  404: 'The node does not know that item.',
  409: 'That already exists.',
  413: 'That is too large for the node.',
  422: 'Some fields are not valid.',
  429: 'Too many requests; wait a moment and try again.',
};

/** The message for a non-2xx response, from its body when it has a usable `detail`. */
export function errorMessage(status: number, body: unknown): string {
  if (typeof body === 'object' && body !== null && 'detail' in body) {
    const text = formatDetail((body as { detail: unknown }).detail);
    if (text !== null) return text;
  }
  return STATUS_TEXT[status] ?? `The node answered with an error (HTTP ${status}).`;
}

// ---------------------------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------------------------

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

async function requestJson<T>(
  fetchImpl: FetchLike,
  url: string,
  method: 'GET' | 'POST',
  token: string | null,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, `Could not reach the node at ${new URL(url).origin}. Is it still running?`);
  }
  const data = await readJson(response);
  if (!response.ok) throw new ApiError(response.status, errorMessage(response.status, data));
  if (data === null) throw new ApiError(response.status, 'The node sent an empty or unreadable answer.');
  return data as T;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The owner API of one node, authenticated with its owner token. */
export class NodeClient {
  readonly coreUrl: string;
  readonly mode: 'desktop' | 'browser';
  readonly #token: string;
  readonly #fetch: FetchLike;

  constructor(options: { coreUrl: string; token: string; mode: 'desktop' | 'browser'; fetch: FetchLike }) {
    this.coreUrl = trimSlash(options.coreUrl);
    this.mode = options.mode;
    this.#token = options.token;
    this.#fetch = options.fetch;
  }

  #get<T>(path: string): Promise<T> {
    return requestJson<T>(this.#fetch, `${this.coreUrl}${path}`, 'GET', this.#token);
  }

  #post<T>(path: string, body: unknown = {}): Promise<T> {
    return requestJson<T>(this.#fetch, `${this.coreUrl}${path}`, 'POST', this.#token, body);
  }

  info(): Promise<NodeInfo> {
    return this.#get<NodeInfo>('/v1/node/info');
  }

  /** A fresh one-time sign-in link for a browser. */
  async uiLink(): Promise<string> {
    return (await this.#post<{ ui_url: string }>('/v1/node/ui-link')).ui_url;
  }

  async projects(): Promise<Project[]> {
    return (await this.#get<{ projects: Project[] }>('/v1/node/projects')).projects;
  }

  createProject(input: CreateProjectInput): Promise<CreatedProject> {
    return this.#post<CreatedProject>('/v1/node/projects', input);
  }

  async identities(): Promise<Identity[]> {
    return (await this.#get<{ identities: Identity[] }>('/v1/node/identities')).identities;
  }

  createIdentity(input: CreateIdentityInput): Promise<CreatedIdentity> {
    return this.#post<CreatedIdentity>('/v1/node/identities', input);
  }

  async namespaces(): Promise<Namespace[]> {
    return (await this.#get<{ namespaces: Namespace[] }>('/v1/node/namespaces')).namespaces;
  }

  createNamespace(domain: string): Promise<Namespace> {
    return this.#post<Namespace>('/v1/node/namespaces', { domain });
  }
}

// ---------------------------------------------------------------------------------------------
// Getting a session
// ---------------------------------------------------------------------------------------------

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
  | { kind: 'connected'; client: NodeClient }
  | { kind: 'signed-out'; reason: string | null };

/** Exchanges a one-time code for the owner token (`POST /v1/node/session`). */
export async function exchangeCode(fetchImpl: FetchLike, origin: string, code: string): Promise<string> {
  const body = await requestJson<{ owner_token?: unknown }>(fetchImpl, `${origin}/v1/node/session`, 'POST', null, {
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
      reason =
        error instanceof ApiError && error.status === 401
          ? 'That sign-in link was already used or has expired. Each link works once.'
          : error instanceof Error
            ? error.message
            : String(error);
    }
  }
  const token = env.storage.getItem(key);
  if (token === null || token === '') return { kind: 'signed-out', reason };
  return { kind: 'connected', client: new NodeClient({ coreUrl: origin, token, mode: 'browser', fetch: env.fetch }) };
}

/** Drops the saved browser session for this origin (sign out, or a token the node no longer knows). */
export function forgetSession(env: Pick<BrowserEnv, 'storage' | 'location'>): void {
  env.storage.removeItem(tokenStorageKey(env.location.origin));
}
