/**
 * A tunnel makes the node's peer listener reachable from the internet when the node itself is
 * not (home NAT, laptop). Providers differ (SSH reverse forward built in, others later), so the
 * node only ever sees this small contract.
 */
import type { Duplex } from 'node:stream';
import type { Originator } from '../http/forwarded-connection.ts';

/** Where a tunnel is in its life. */
export type TunnelState =
  /** Not running: never started, or `stop()` was called. */
  | 'stopped'
  /** First attempt to bring the tunnel up is under way. */
  | 'connecting'
  /** The public endpoint forwards to the local listener. */
  | 'up'
  /** It was up (or trying) and dropped; the provider is retrying on its own. */
  | 'reconnecting'
  /** It cannot come up for a reason the user must fix (auth, host key); the provider keeps retrying. */
  | 'failed';

export interface TunnelStatus {
  /** Where the tunnel is in its life. */
  state: TunnelState;
  /** The URL peers reach the node at while `up`; null when not known. */
  public_url: string | null;
  /** A human-readable reason or note for the state (never key material); null when none. */
  detail: string | null;
  /** ISO 8601 time the state or detail last changed. */
  since: string;
}

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
