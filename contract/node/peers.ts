/**
 * The owner's peer table (`/v1/node/peers`, DESIGN §8): which node answers for a namespace domain
 * when DNS does not say (or should not be asked). Field rules are the contract's
 * (contract/core-rules.ts), as Settings checks them before sending.
 */
import { z } from 'zod';
import { peerUrlProblem } from '../core-rules.ts';
import { domainName, ruled } from './fields.ts';

export const PeerBody = z.strictObject({ domain: domainName, url: ruled(peerUrlProblem) });
export type PeerInput = z.input<typeof PeerBody>;

export const PeerParams = z.strictObject({ domain: z.string().max(253) });

/** The mail and chat waiting in the outbox for a domain: how much, since when, and why. */
export const PeerQueue = z.object({
  queued: z.number().int().min(0),
  /** When the longest-waiting message was sent; null when nothing waits. */
  oldest_queued_at: z.string().nullable(),
  /** The next try (a delivery in flight, a backoff, or the node's own Retry-After); null when nothing waits. */
  next_attempt_at: z.string().nullable(),
  /** Why the last try of a waiting message failed, in the node's words; null when none has. */
  last_error: z.string().nullable(),
});
export type PeerQueue = z.output<typeof PeerQueue>;

/** A peer: the node that answers for a domain, and what waits for it. */
export const Peer = z.object({
  domain: z.string(),
  /** The peer node's http(s) origin. */
  url: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  queue: PeerQueue,
});
export type Peer = z.output<typeof Peer>;

export const PeerList = z.object({ peers: z.array(Peer) });

export const PeerRemoved = z.object({ domain: z.string(), removed: z.literal(true) });
export type PeerRemoved = z.output<typeof PeerRemoved>;
