/**
 * A tunnel makes the node's peer listener reachable from the internet when the node itself is
 * not (home NAT, laptop). Providers differ (SSH reverse forward built in, others later), so the
 * node only ever sees this small contract.
 */
import type { Duplex } from 'node:stream';
import type { Originator } from '../http/forwarded-connection.ts';
import type { TunnelState, TunnelStatus } from '../../contract/node/tunnel.ts';

// A tunnel's state and status are on the owner API's wire: the contract defines them (contract/node/tunnel.ts).
export type { TunnelState, TunnelStatus };

export interface Tunnel {
  /** The current status. */
  status(): TunnelStatus;
  /** Calls `listener` on every status change; returns a function that unsubscribes. */
  onStatus(listener: (status: TunnelStatus) => void): () => void;
  /** Tears the tunnel down for good (no reconnects); resolves once it is closed. */
  stop(): Promise<void>;
}

/** The local listener a tunnel exposes: the node's peer listener on loopback. */
export interface TunnelTarget {
  /** Where a provider that runs outside this process connects. */
  host: string;
  port: number;
  /**
   * How an in-process provider hands over one forwarded connection, with the client address it
   * reports for it (the SSH `forwarded-tcpip` originator): the peer listener rate-limits and caps
   * connections by that address. `open` accepts the connection and returns its stream; it is never
   * called, and the result is false, when a connection cap refuses it.
   */
  forward(origin: Originator, open: () => Duplex): boolean;
}

export interface TunnelProvider {
  /** Which provider this is (e.g. `ssh`), for settings and status display. */
  readonly kind: string;
  /** Starts a tunnel to `target`; it connects in the background and reports through its status. */
  start(target: TunnelTarget): Tunnel;
}
