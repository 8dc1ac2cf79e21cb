/**
 * The peer listener's timeouts: a connection from the internet gets a short time to say what it
 * wants, and none to sit idle holding a slot (a flood of half-open requests once held every
 * descriptor the process had; connection-limits.ts).
 * - headers: the whole header block within 10 s of the connection opening (a later request on it:
 *   of its first byte); a half-open request gets a JSON 408 and is closed.
 * - request: the whole request, body included, within 30 s; and its answer begun within those
 *   30 s too, or the node answers a JSON 503 (SVC_ERR_RESPONSE_TIMEOUT, with Retry-After) and closes
 *   the connection, so no handler can hold a peer's connection for minutes whatever it waits on.
 *   An answer under way lives on: an event stream (up to 300 s) writes its head at once, a
 *   download its bytes. The peer listener hands out no upload URL (a direct video upload is given
 *   the loopback one), so 30 s is all any body may take through it.
 * - keep-alive: an idle connection between requests closes after 5 s (Node adds 1 s of grace).
 * - idle: 60 s without a byte either way closes a connection, unless a response is under way with
 *   nothing waiting to be sent (a quiet event stream), which ends
 *   at its own deadline. So a client that stops reading its response is cut.
 * Node checks the header and request deadlines every `checkEveryMs`; its default, 30 s, would let a
 * half-open request live 40 s.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../contract/errors.ts';

export interface PeerTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
  idleMs: number;
  checkEveryMs: number;
}

export const PEER_TIMEOUTS: PeerTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000, idleMs: 60_000, checkEveryMs: 1_000 };

/** Fastify's options for these timeouts (`http` reaches node:http's createServer). */
export function peerServerOptions(timeouts: PeerTimeouts): {
  connectionTimeout: number;
  keepAliveTimeout: number;
  requestTimeout: number;
  http: ServerOptions;
} {
  return {
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    http: { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: timeouts.checkEveryMs },
  };
}

/** How long a peer whose request was not answered in time is asked to wait before trying again. */
export const RESPONSE_TIMEOUT_RETRY_AFTER_S = 5;

/**
 * Decides what a socket's idle timeout (connectionTimeout, and the keep-alive one) does: with a
 * 'timeout' listener on the server, node:http leaves that to us instead of always destroying.
 * And answers for any request whose handler has not begun its answer by the request timeout.
 */
export function installIdleRule(server: Server): void {
  const responding = new WeakMap<object, number>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    responding.set(socket, (responding.get(socket) ?? 0) + 1);
    const late = server.requestTimeout > 0 ? setTimeout(() => answerLate(request, response, server.requestTimeout), server.requestTimeout) : null;
    response.once('close', () => {
      if (late !== null) clearTimeout(late);
      responding.set(socket, (responding.get(socket) ?? 1) - 1);
    });
    response.once('finish', () => {
      if (late !== null) clearTimeout(late);
    });
  });
  server.on('timeout', (socket: Duplex) => {
    const quietlyWaiting = (responding.get(socket) ?? 0) > 0 && socket.writableLength === 0;
    if (!quietlyWaiting) socket.destroy();
  });
}

/**
 * The answer to a request whose handler did not begin one in time: a 503 the peer retries after,
 * and the connection closed. The handler may still finish; its answer is dropped (the response
 * has ended), and what it stored stays stored, which the federation routes' retries allow for.
 */
function answerLate(request: IncomingMessage, response: ServerResponse, limitMs: number): void {
  // A body still arriving is node:http's to answer (its 408), at its next check.
  if (!request.complete || response.headersSent || response.writableEnded || response.destroyed) return;
  const code: ErrorCode = 'SVC_ERR_RESPONSE_TIMEOUT';
  const body = JSON.stringify({ detail: `The node could not answer within ${limitMs / 1000} s; try again in ${RESPONSE_TIMEOUT_RETRY_AFTER_S} s`, code });
  response.shouldKeepAlive = false;
  response.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'retry-after': String(RESPONSE_TIMEOUT_RETRY_AFTER_S),
    connection: 'close',
  });
  response.end(body);
}
