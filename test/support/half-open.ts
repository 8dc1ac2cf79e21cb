/**
 * Half-open requests, as a connection flood sends them: a TCP connection from a chosen loopback
 * address (Linux routes all of 127.0.0.0/8 to `lo`, so each address is a client of its own), the
 * start of a request line, then nothing. `closed` tells how the server ended it: without a byte
 * (refused at accept) or with an answer (the 408 of a header timeout).
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';

export interface HalfOpen {
  socket: net.Socket;
  /** Resolves when the connection closes: what the server sent, and when (ms after connecting). */
  closed: Promise<{ answer: string; afterMs: number }>;
  isClosed(): boolean;
}

/** Connects to `url`'s port from `from`, sends `partial` and waits; resolves once it is sent. */
export function halfOpen(url: string, from: string, partial = 'GET /v1/blueprints HT'): Promise<HalfOpen> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress: from });
    const chunks: Buffer[] = [];
    let connectedAt = 0;
    let done = false;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset (writing to a refused connection) is one more way of being closed.
    socket.on('error', () => {});
    const closed = new Promise<{ answer: string; afterMs: number }>((resolveClosed) => {
      socket.on('close', () => {
        done = true;
        resolveClosed({ answer: Buffer.concat(chunks).toString('utf8'), afterMs: performance.now() - connectedAt });
      });
    });
    socket.once('connect', () => {
      connectedAt = performance.now();
      socket.write(partial, () => resolve({ socket, closed, isClosed: () => done }));
    });
    socket.once('error', (error) => {
      if (connectedAt === 0) reject(error);
      else resolve({ socket, closed, isClosed: () => done });
    });
  });
}

/** Opens `count` half-open requests from `from`, a few at a time. */
export async function halfOpenMany(url: string, from: string, count: number): Promise<HalfOpen[]> {
  const opened: HalfOpen[] = [];
  for (let i = 0; i < count; i += 20) {
    opened.push(...(await Promise.all(Array.from({ length: Math.min(20, count - i) }, () => halfOpen(url, from)))));
  }
  return opened;
}
