/**
 * The one outbound HTTP client for everything the node asks of other nodes (DESIGN §7): sender
 * checks, delivery, and whatever else federation fetches. Built on node:http / node:https rather
 * than fetch() so that every property below is ours to enforce:
 *
 * - where it connects: through the node's DnsResolver, and for nodes found through DNS only at
 *   public addresses, checked on the address connected (guarded-connect.ts);
 * - no redirects: a 3xx is a failure, never followed;
 * - a size cap per request, enforced while the answer streams in (the socket is cut the moment
 *   it is exceeded, or at once when Content-Length already says so);
 * - a connect timeout and a total timeout (the total includes any wait for a free slot);
 * - concurrency caps per remote origin and in all (concurrency-gate.ts);
 * - kept-alive connections per remote origin (connection-pools.ts). Only a socket whose answer was
 *   read to its end goes back to its pool; any failure destroys it. A request that a reused socket
 *   fails before any answer arrived (the other side closed it as it was picked) is sent once more
 *   on a fresh connection, when sending it twice is harmless: a GET, or a POST its caller says is
 *   idempotent.
 *
 * Failures are RemoteErrors whose messages are our words; answers come back as bytes plus status
 * and content type, and the callers decide what, if anything, of them to use.
 */
import { request as httpRequest, type Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { DnsResolver } from '../dns/resolver.ts';
import { ConcurrencyGate } from './concurrency-gate.ts';
import { ConnectionPools } from './connection-pools.ts';
import { connectTarget, guardedConnect, whenConnected, type ConnectTarget } from './guarded-connect.ts';
import { asRemoteError, httpStatus, notJson, redirected, RemoteError, timedOut, tooLarge, unreachable } from './remote-error.ts';
import { retryAfterSeconds } from './retry-after.ts';

export interface RemoteClientOptions {
  /** DNS lookup, TCP connect and (https) TLS handshake together. */
  connectTimeoutMs: number;
  /** The whole request: waiting for a slot, connecting, sending and reading the answer. */
  timeoutMs: number;
  /** Requests running at once to one origin. */
  perOriginConcurrency: number;
  /** Requests running at once in all. */
  totalConcurrency: number;
  /** Requests waiting for a slot to one origin; more are refused as busy. */
  perOriginWaiting: number;
  /** Requests waiting for a slot in all. */
  totalWaiting: number;
  /** How long a kept-alive socket may sit unused: under the peer listener's 5 s keep-alive. */
  idleSocketMs: number;
  /** Remote origins whose connections are kept (beyond those with requests in flight). */
  pooledOrigins: number;
}

export const DEFAULT_REMOTE_CLIENT_OPTIONS: RemoteClientOptions = {
  connectTimeoutMs: 5_000,
  timeoutMs: 10_000,
  perOriginConcurrency: 4,
  totalConcurrency: 32,
  perOriginWaiting: 16,
  totalWaiting: 256,
  idleSocketMs: 4_000,
  pooledOrigins: 256,
};

/** Response headers larger than this are an answer too large (Node's default, said out loud). */
const MAX_HEADER_BYTES = 16 * 1024;

/** A node to ask: its origin, and how the node learned it. */
export interface RemoteTarget {
  url: string;
  /** 'peer': the owner's peer table, any address allowed. 'dns': a `node=` record, public addresses only. */
  via: 'peer' | 'dns';
}

export interface RemoteRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path (and query) on the target's origin. */
  path: string;
  /** A JSON body, sent as application/json. */
  json?: string;
  /** More request headers (a signed envelope, a bearer token); the client's own win over these. */
  headers?: Readonly<Record<string, string>>;
  /** The largest answer body accepted, in bytes. */
  maxBytes: number;
  /** Overrides the client's total timeout for this request. */
  timeoutMs?: number;
  /** A POST that may safely arrive twice (the receiver deduplicates), so it may be sent again once. */
  idempotent?: boolean;
}

export interface RemoteAnswer {
  status: number;
  /** The media type, lower-cased, without parameters ('' when absent). */
  contentType: string;
  body: Buffer;
  /** The answer's `Retry-After`, in seconds from now (0..3600); null when absent or unparseable. */
  retryAfterSeconds: number | null;
}

/** What an exchange ends with when a reused socket broke before any answer: try a fresh one. */
const STALE = Symbol('stale socket');
type Stale = typeof STALE;
/** How a kept-alive socket the other side closed fails a request written to it. */
const STALE_CODES = new Set(['ECONNRESET', 'EPIPE']);

export class RemoteClient {
  readonly #resolver: DnsResolver;
  readonly #options: RemoteClientOptions;
  readonly #gate: ConcurrencyGate;
  readonly #pools: ConnectionPools;

  constructor(resolver: DnsResolver, options: Partial<RemoteClientOptions> = {}) {
    this.#resolver = resolver;
    this.#options = { ...DEFAULT_REMOTE_CLIENT_OPTIONS, ...options };
    const o = this.#options;
    this.#gate = new ConcurrencyGate({
      perOrigin: o.perOriginConcurrency,
      total: o.totalConcurrency,
      waitingPerOrigin: o.perOriginWaiting,
      waiting: o.totalWaiting,
    });
    this.#pools = new ConnectionPools(resolver, { socketsPerOrigin: o.perOriginConcurrency, idleSocketMs: o.idleSocketMs, maxOrigins: o.pooledOrigins });
  }

  /** The total timeout a request gets unless it asks for less (callers with a deadline of their own take the shorter). */
  get timeoutMs(): number {
    return this.#options.timeoutMs;
  }

  /** Remote origins with kept connections now (for tests and diagnostics). */
  get pooledOrigins(): number {
    return this.#pools.size;
  }

  /** The answer to one request (any non-3xx status), or a RemoteError saying why there is none. */
  async request(target: RemoteTarget, request: RemoteRequest): Promise<RemoteAnswer> {
    const deadline = Date.now() + (request.timeoutMs ?? this.#options.timeoutMs);
    const url = URL.parse(request.path, target.url);
    // A path must not move the request to another origin (`//evil`, an absolute URL).
    if (url === null || url.origin !== URL.parse(target.url)?.origin || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw unreachable();
    const release = await this.#gate.acquire(url.origin, deadline);
    try {
      if (Date.now() >= deadline) throw timedOut();
      const to = connectTarget(url, target.via === 'dns');
      const answer = await this.#exchange(url, to, request, deadline, this.#pools.agentFor(to));
      if (answer !== STALE) return answer;
      if (request.method !== 'GET' && request.idempotent !== true) throw unreachable();
      // A connection of its own, outside the pool: certainly fresh, and closed after.
      const again = await this.#exchange(url, to, request, deadline, null);
      if (again === STALE) throw unreachable();
      return again;
    } finally {
      release();
    }
  }

  /** GET a JSON value: null for 404, RemoteError for any other non-2xx status or a non-JSON answer. */
  async getJson(target: RemoteTarget, path: string, maxBytes: number): Promise<unknown> {
    const answer = await this.request(target, { method: 'GET', path, maxBytes });
    if (answer.status === 404) return null;
    if (answer.status < 200 || answer.status > 299) throw httpStatus(answer.status);
    return answerJson(answer);
  }

  /** Destroys every kept connection (and fails requests running on one); later requests open new ones. */
  close(): void {
    this.#pools.close();
  }

  /**
   * One request on a socket from `agent` (null: a connection of its own). STALE when the socket
   * was a reused one and broke before any answer arrived.
   */
  #exchange(url: URL, to: ConnectTarget, request: RemoteRequest, deadline: number, agent: Agent | null): Promise<RemoteAnswer | Stale> {
    return new Promise((resolve, reject) => {
      let settled = false;
      // Called only from timers and events, so after `req` below exists.
      const finish = (outcome: RemoteAnswer | RemoteError | Stale): void => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        clearTimeout(totalTimer);
        if (outcome instanceof RemoteError) reject(outcome);
        else resolve(outcome);
        // Anything but a whole answer leaves the socket mid-exchange: it is cut, never pooled.
        if (outcome === STALE || outcome instanceof RemoteError) req.destroy();
      };
      const totalTimer = setTimeout(() => finish(timedOut()), Math.max(0, deadline - Date.now()));
      const connectTimer = setTimeout(() => finish(timedOut()), Math.min(this.#options.connectTimeoutMs, Math.max(0, deadline - Date.now())));
      const body = request.json === undefined ? undefined : Buffer.from(request.json);
      const send = to.protocol === 'https:' ? httpsRequest : httpRequest;
      const req: ClientRequest = send({
        method: request.method,
        host: to.host,
        port: to.port,
        path: `${url.pathname}${url.search}`,
        headers: {
          ...request.headers,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(body.length) }),
        },
        maxHeaderSize: MAX_HEADER_BYTES,
        ...(agent === null ? { createConnection: () => guardedConnect(to, this.#resolver) } : { agent }),
      });
      // Node flags only some reused sockets (`req.reusedSocket`, not one handed over from the
      // agent's queue); a socket already connected when it is handed out is one, always.
      let reused = false;
      let answered = false;
      req.on('socket', (socket: Socket) => {
        reused = !socket.connecting;
        // The connect timeout is for a new connection; a reused one is connected already.
        whenConnected(socket, () => clearTimeout(connectTimer));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        const stale = reused && !answered && STALE_CODES.has(error.code ?? '');
        finish(stale ? STALE : asRemoteError(error));
      });
      req.on('response', (response) => {
        answered = true;
        this.#read(response, request.maxBytes, finish);
      });
      req.end(body);
    });
  }

  /** Reads the answer up to `maxBytes`, cutting the connection the moment it would go over. */
  #read(response: IncomingMessage, maxBytes: number, finish: (outcome: RemoteAnswer | RemoteError) => void): void {
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400) return finish(redirected());
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) return finish(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish(tooLarge());
      else chunks.push(chunk);
    });
    response.on('end', () => {
      // A connection cut before the declared length arrived is not an answer.
      if (!response.complete) return finish(unreachable());
      const contentType = (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      finish({ status, contentType, body: Buffer.concat(chunks, size), retryAfterSeconds: retryAfterSeconds(response.headers['retry-after'], Date.now()) });
    });
    // Cut off mid-answer (no 'end'): a no-op once the answer has been taken.
    response.on('error', () => finish(unreachable()));
    response.on('close', () => finish(unreachable()));
  }
}

/** The answer's JSON value: it must say it is JSON (application/json or +json) and parse. */
export function answerJson(answer: RemoteAnswer): unknown {
  if (answer.contentType !== 'application/json' && !answer.contentType.endsWith('+json')) throw notJson();
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw notJson();
  }
}
