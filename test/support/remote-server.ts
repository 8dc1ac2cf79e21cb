/**
 * A stand-in for whatever the node's outbound client may reach: a hostile or slow sender node, a
 * redirect, an "internal service" on loopback. A real HTTP server on 127.0.0.1 that counts what
 * reaches it (TCP connections, requests, the most requests open at once, body bytes it managed
 * to write), so a test can prove the node never connected, or stopped reading at its cap.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type RemoteHandler = (request: IncomingMessage, response: ServerResponse) => unknown;

export interface RemoteServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** TCP connections accepted. */
  connections: number;
  /** Requests seen (method and path). */
  requests: string[];
  /** The most requests open at the same time. */
  maxOpen: number;
  /** Requests open now. */
  open: number;
  /** Body bytes the handlers' `stream` calls got written before the client hung up. */
  bytesWritten: number;
  close(): Promise<void>;
}

export async function startRemoteServer(handler: RemoteHandler): Promise<RemoteServer> {
  const sockets = new Set<Socket>();
  const state: RemoteServer = {
    url: '',
    port: 0,
    connections: 0,
    requests: [],
    maxOpen: 0,
    open: 0,
    bytesWritten: 0,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    state.requests.push(`${request.method} ${request.url}`);
    state.open++;
    state.maxOpen = Math.max(state.maxOpen, state.open);
    response.on('close', () => state.open--);
    void Promise.resolve(handler(request, response)).catch(() => response.destroy());
  });
  server.on('connection', (socket: Socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  state.port = typeof address === 'object' && address ? address.port : 0;
  state.url = `http://127.0.0.1:${state.port}`;
  return state;
}

/** Answers JSON with `status`. */
/** Starts servers for a test file and closes every one it started: `closeAll` in afterAll/afterEach. */
export function remoteServers(): { start(handler: RemoteHandler): Promise<RemoteServer>; closeAll(): Promise<void> } {
  const started: RemoteServer[] = [];
  return {
    async start(handler) {
      const server = await startRemoteServer(handler);
      started.push(server);
      return server;
    },
    async closeAll() {
      await Promise.all(started.splice(0).map((server) => server.close()));
    },
  };
}

export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/**
 * Streams `total` bytes of a never-ending JSON-looking answer in 64 KiB chunks, respecting
 * backpressure, and counts on `server.bytesWritten` what the socket took before the client left.
 */
export async function stream(server: RemoteServer, response: ServerResponse, total: number, headers: Record<string, string> = {}): Promise<void> {
  response.writeHead(200, { 'content-type': 'application/json', ...headers });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  while (sent < total && !response.destroyed) {
    const ok = response.write(chunk);
    sent += chunk.length;
    server.bytesWritten += chunk.length;
    if (!ok) await drainedOrClosed(response);
  }
  response.end();
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
