/**
 * The peer listener's connection caps (DESIGN §7). Some 20,000 half-open requests once
 * used up the process's file descriptors and took the loopback listener (owner API, UI) down with
 * them. Now each client (client-key.ts: an address, an IPv6 /64, or a tunnel's originator) may hold
 * a few connections, the listener a bounded number in all, and that total stays a fraction of the
 * descriptor limit so the loopback listener, the database and outbound fetches keep their headroom.
 *
 * A direct connection over a cap is destroyed in the `connection` event, before node:http reads a
 * byte of it: cheap, and its descriptor is free at once. A tunneled one is refused before the
 * tunnel even opens its channel, so it costs nothing here.
 */
import type { Server } from 'node:net';
import type { Duplex } from 'node:stream';
import { clientKey, tunnelKey } from './client-key.ts';
import { openFileLimit } from './fd-limit.ts';
import { ForwardedConnection, type Originator } from './forwarded-connection.ts';

export interface ConnectionCaps {
  /** Connections one client may hold open at once. */
  perClient: number;
  /** Connections the peer listener holds open in all, direct and tunneled. */
  total: number;
}

export const PEER_CONNECTIONS: ConnectionCaps = { perClient: 32, total: 512 };
/** The peer listener gets at most this share of the descriptor limit (a quarter of 1,024 is 256). */
export const PEER_FD_SHARE = 0.25;
/** The peer listener's total never drops below this, however low the descriptor limit. */
const MIN_PEER_TOTAL = 16;
/**
 * Descriptors the loopback listener's own cap leaves to everything else besides the peer
 * listener: the database (its file, WAL and shared memory), outbound fetches to other nodes (the
 * outbound client runs a few dozen at most), the tunnel's SSH connection, log and UI files.
 */
export const RESERVED_FDS = 256;
const MIN_LOOPBACK_TOTAL = 64;

export interface ConnectionBudget {
  peer: ConnectionCaps;
  /** The loopback listener's cap (net.Server.maxConnections); null: none (no descriptor limit). */
  loopback: number | null;
}

/** How a descriptor limit (null or Infinity: none known) is shared between the two listeners. */
export function connectionBudget(fdLimit: number | null): ConnectionBudget {
  if (fdLimit === null || fdLimit === Infinity) return { peer: PEER_CONNECTIONS, loopback: null };
  const total = Math.max(MIN_PEER_TOTAL, Math.min(PEER_CONNECTIONS.total, Math.floor(fdLimit * PEER_FD_SHARE)));
  return {
    peer: { perClient: Math.min(PEER_CONNECTIONS.perClient, total), total },
    loopback: Math.max(MIN_LOOPBACK_TOTAL, fdLimit - total - RESERVED_FDS),
  };
}

/** The budget for this process's own descriptor limit. */
export const processConnectionBudget = (): ConnectionBudget => connectionBudget(openFileLimit());

/** Open connections per client and in all, against the caps. */
export class ConnectionCounter {
  readonly #caps: ConnectionCaps;
  readonly #open = new Map<string, number>();
  #total = 0;

  constructor(caps: ConnectionCaps) {
    this.#caps = caps;
  }

  get total(): number {
    return this.#total;
  }

  /** Whether one more connection for `key` fits under both caps. */
  admits(key: string): boolean {
    return this.#total < this.#caps.total && (this.#open.get(key) ?? 0) < this.#caps.perClient;
  }

  /** Counts one connection for `key` and returns its release (safe to call twice); null when a cap is reached. */
  admit(key: string): (() => void) | null {
    if (!this.admits(key)) return null;
    this.#open.set(key, (this.#open.get(key) ?? 0) + 1);
    this.#total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const left = (this.#open.get(key) ?? 1) - 1;
      if (left > 0) this.#open.set(key, left);
      else this.#open.delete(key);
    };
  }
}

export interface PeerConnections {
  /**
   * Serves one tunneled connection from `origin` in process: `open` accepts it at the tunnel and
   * returns its stream. False, and `open` is never called, when a cap refuses it.
   */
  forward(origin: Originator, open: () => Duplex): boolean;
}

export function limitConnections(server: Server, caps: ConnectionCaps): PeerConnections {
  const counter = new ConnectionCounter(caps);
  // Ahead of node:http's own listener, so a refused socket is closed before any parser reads it.
  server.prependListener('connection', (socket: Duplex & { remoteAddress?: string }) => {
    const release = counter.admit(clientKey(socket));
    if (release === null) {
      socket.destroy();
      return;
    }
    socket.once('close', release);
  });
  return {
    forward(origin, open) {
      // Checked here so a refused channel is never opened; the listener above then counts it.
      if (!counter.admits(tunnelKey(origin.address))) return false;
      server.emit('connection', new ForwardedConnection(open(), origin));
      return true;
    },
  };
}
