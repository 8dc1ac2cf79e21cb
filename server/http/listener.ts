/**
 * Which listener a request came in on: the owner's loopback listener or the peer-facing one.
 * Work that waits its turn (rendering, render/pool.ts) serves the loopback listener first, so
 * peers keeping a queue full cannot make the owner's own app wait behind them.
 */
import type { FastifyInstance } from 'fastify';

export type Listener = 'loopback' | 'peer';

declare module 'fastify' {
  interface FastifyRequest {
    listener: Listener;
  }
}

export function markListener(app: FastifyInstance, listener: Listener): void {
  app.decorateRequest('listener', listener);
}
