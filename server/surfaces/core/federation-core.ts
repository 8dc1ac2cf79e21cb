/**
 * The core as federation sees it: federation's port (federation/core-port.ts) implemented with the
 * core's own services and its one writer of mail rows. This is the only module through which
 * federation reaches the core, so where the core moves a function federation needs, this is the
 * one file that follows it.
 */
import type { FederatedChat, FederatedMail, FederatedMessage } from '../../../contract/core/federation.ts';
import type { NodeContext } from '../../context.ts';
import type { Bounce, CheckedSender, FederationCore, SenderKeys } from '../../federation/core-port.ts';
import type { ChatService } from './chat/service.ts';
import { findIdentity, type AgentRow } from './identities/store/agents.ts';
import { arrivedBefore, storeArrivedMail, storeBounce } from './mail/delivery.ts';
import { isContact } from './messaging/reachability.ts';
import type { Recipients } from './messaging/recipients.ts';
import type { NamespaceService } from './namespaces/service.ts';

/** An identity of this node a message from another node is for, as the core stores messages for it. */
export type LocalRecipient = AgentRow & { address: string };

export interface FederationCoreParts {
  recipients: Recipients;
  namespaces: NamespaceService;
  /**
   * The chat service, asked for when a chat message arrives: it is made after the federation
   * outbox it sends through, and the outbox is made with this.
   */
  chat: () => ChatService;
}

export class CoreForFederation implements FederationCore<LocalRecipient> {
  readonly #ctx: NodeContext;
  readonly #parts: FederationCoreParts;

  constructor(ctx: NodeContext, parts: FederationCoreParts) {
    this.#ctx = ctx;
    this.#parts = parts;
  }

  isLocal(domain: string): boolean {
    return this.#parts.namespaces.isLocal(domain);
  }

  hostedRecipient(address: string): LocalRecipient {
    return this.#parts.recipients.hosted(address);
  }

  isContact(agentId: string, sender: SenderKeys): boolean {
    return isContact(this.#ctx.db, agentId, sender);
  }

  arrivedBefore(message: FederatedMessage): boolean {
    return message.kind === 'mail' ? arrivedBefore(this.#ctx.db, message) : this.#parts.chat().hasMessage(message.message_id, message.from_did);
  }

  storeArrivedMail(mail: FederatedMail, recipient: LocalRecipient, sender: CheckedSender, now: string): boolean {
    return storeArrivedMail(this.#ctx.db, mail, recipient, sender, now);
  }

  storeArrivedChat(message: FederatedChat, recipient: LocalRecipient, sender: { contact: boolean; namespaceTrust: CheckedSender['namespaceTrust'] }): void {
    this.#parts.chat().receiveRemote(message, recipient, sender);
  }

  storeBounce(agentId: string, bounce: Bounce): void {
    const sender = findIdentity(this.#ctx.db, agentId);
    if (sender !== undefined) storeBounce(this.#ctx.db, sender, bounce);
  }
}
