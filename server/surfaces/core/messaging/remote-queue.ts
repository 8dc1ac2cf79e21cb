/**
 * The way out to other nodes that mail and chat share: a signed message for an identity on
 * another node is queued durably, inside the send's transaction, and delivered after the commit.
 * The federation outbox implements it (federation/outbox.ts) and core/services.ts wires it in, so
 * federation depends on messaging, never the reverse.
 */
import type { FederatedMessage } from '../../../../contract/core/federation.ts';

/** The durable queue of signed messages to other nodes (federation/outbox.ts). */
export interface RemoteQueue {
  /** Queues a signed message; call it inside the send's transaction. */
  enqueue(fromAgentId: string, toDomain: string, message: FederatedMessage): void;
  /** Delivers what is due; call it after the commit. */
  nudge(): void;
}
