/**
 * The peer listener's timeouts (issue 13): a connection from the internet gets a short time to say
 * what it wants, and none to sit idle holding a slot.
 * - headers: the whole header block within 10 s of the connection opening (a later request on it:
 *   of its first byte); a half-open request gets a JSON 408 and is closed.
 * - request: the whole request, body included, within 30 s. It bounds receiving only, never the
 *   response: an event stream (up to 300 s) or a chat send awaiting its reply lives on. The peer
 *   listener hands out no upload URL (a direct video upload is given the loopback one), so 30 s is
 *   all any body may take through it.
 * - keep-alive: an idle connection between requests closes after 5 s (Node adds 1 s of grace).
 * - idle: 60 s without a byte either way closes a connection, unless a response is under way with
 *   nothing waiting to be sent (a quiet event stream, a chat send awaiting its reply), which ends
 *   at its own deadline. So a client that stops reading its response is cut.
 * Node checks the header and request deadlines every `checkEveryMs`; its default, 30 s, would let a
 * half-open request live 40 s.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

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

/**
 * Decides what a socket's idle timeout (connectionTimeout, and the keep-alive one) does: with a
 * 'timeout' listener on the server, node:http leaves that to us instead of always destroying.
 */
export function installIdleRule(server: Server): void {
  const responding = new WeakMap<object, number>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    responding.set(socket, (responding.get(socket) ?? 0) + 1);
    response.once('close', () => responding.set(socket, (responding.get(socket) ?? 1) - 1));
  });
  server.on('timeout', (socket: Duplex) => {
    const quietlyWaiting = (responding.get(socket) ?? 0) > 0 && socket.writableLength === 0;
    if (!quietlyWaiting) socket.destroy();
  });
}
