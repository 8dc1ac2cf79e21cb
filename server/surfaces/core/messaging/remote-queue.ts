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
  /**
   * `sealed`: mail the outbox seals end to end for the recipient's published key at delivery
   * (`message` is then the sender's own signed copy, never sent as it is). `sealedByClient`: mail
   * whose envelope the sender's client sealed (`message` carries it), sent as it is while the
   * envelope is fresh for its receiver, bounced after.
   */
  enqueue(fromAgentId: string, toDomain: string, message: FederatedMessage, options?: { sealed?: boolean; sealedByClient?: boolean }): void;
  /** Delivers what is due; call it after the commit. */
  nudge(): void;
}
