/**
 * The core as federation sees it: federation's port (federation/core-port.ts) implemented with the
 * core's own services and its one writer of mail rows. This is the only module through which
 * federation reaches the core, so where the core moves a function federation needs, this is the
 * one file that follows it.
 */
import type { FederatedChat, FederatedMail, FederatedMessage } from '../../../contract/core/federation.ts';
import type { NodeContext } from '../../context.ts';
import type { ArrivedEnvelope, Bounce, CheckedSender, FederationCore, SenderKeys } from '../../federation/core-port.ts';
import type { FoundEncryptionKey } from '../../federation/remote-encryption-keys.ts';
import { conflict } from '../../errors.ts';
import { claimedIds, type EndToEnd } from './messaging/end-to-end.ts';
import { assertAcceptsPlaintext } from './messaging/plaintext-policy.ts';
import { signMessage } from './messaging/signing.ts';
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
  endToEnd: EndToEnd;
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

  checkArrivedEnvelope(mail: FederatedMail, recipient: LocalRecipient): ArrivedEnvelope {
    const party = this.#parts.recipients.party(recipient);
    // The sender is proven (inbound.ts): the recipient's key next, a missing one apart from a wrong one, then the ingestion checks.
    this.#parts.endToEnd.checkRecipientKey(mail.encrypted_envelope, party);
    const { envelope, opened } = this.#parts.endToEnd.receiveMail(
      mail.encrypted_envelope,
      { messageId: mail.message_id, conversationId: claimedIds(mail.encrypted_envelope).conversationId },
      { did: mail.from_did, stableId: mail.from_stable_id, address: mail.from },
      party,
    );
    return {
      envelopeJson: JSON.stringify(envelope),
      signature: envelope.signature,
      opened: opened === null ? null : { subject: opened.subject ?? '', body: opened.body },
    };
  }

  checkArrivedPlaintext(recipient: LocalRecipient): void {
    assertAcceptsPlaintext(this.#parts.recipients.party(recipient));
  }

  storeArrivedMail(mail: FederatedMail, recipient: LocalRecipient, sender: CheckedSender, now: string, encrypted?: ArrivedEnvelope): boolean {
    return storeArrivedMail(this.#ctx.db, mail, recipient, sender, now, encrypted);
  }

  sealMail(fromAgentId: string, mail: FederatedMail, recipientKey: FoundEncryptionKey): FederatedMail {
    const row = findIdentity(this.#ctx.db, fromAgentId);
    if (row?.status !== 'active') throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', 'the sender no longer sends');
    const sender = this.#parts.recipients.party(row);
    // Signed again with the content left out: the signature says who sent what to whom, the envelope what it says.
    const signed = signMessage(
      this.#ctx,
      sender,
      { to: mail.to, didKey: '', stableId: null },
      { type: 'mail', subject: '', body: '', priority: mail.priority },
      mail.message_id,
    );
    const to = { address: recipientKey.address, didKey: recipientKey.didKey, stableId: recipientKey.stableId, key: recipientKey.assertion };
    const ids = { messageId: mail.message_id, conversationId: mail.thread_id ?? mail.message_id };
    const envelope = this.#parts.endToEnd.seal('mail', sender, [to], { subject: mail.subject, body: mail.body }, ids, signed.timestamp);
    return {
      ...mail,
      from: signed.from,
      from_did: signed.from_did,
      from_stable_id: signed.from_stable_id,
      subject: '',
      body: '',
      timestamp: signed.timestamp,
      signature: signed.signature,
      signed_payload: signed.signed_payload,
      content_mode: 'encrypted_v2',
      message_version: 2,
      encrypted_envelope: envelope as unknown as FederatedMail['encrypted_envelope'],
    };
  }

  storeArrivedChat(
    message: FederatedChat,
    recipient: LocalRecipient,
    sender: { contact: boolean; namespaceTrust: CheckedSender['namespaceTrust'] },
    encrypted?: ArrivedEnvelope,
  ): void {
    this.#parts.chat().receiveRemote(message, recipient, sender, encrypted);
  }

  checkArrivedChatEnvelope(chat: FederatedChat, recipient: LocalRecipient): ArrivedEnvelope {
    const party = this.#parts.recipients.party(recipient);
    // As mail's: the sender is proven (inbound.ts), the recipient's key next, a missing one apart from a wrong one, then the ingestion checks.
    this.#parts.endToEnd.checkRecipientKey(chat.encrypted_envelope, party);
    // The sender's session is its own node's: this node's copy of it has another id, so the envelope names the conversation.
    const { envelope, opened } = this.#parts.endToEnd.receiveChat(
      chat.encrypted_envelope,
      { messageId: chat.message_id, conversationId: claimedIds(chat.encrypted_envelope).conversationId },
      { did: chat.from_did, stableId: chat.from_stable_id, address: chat.from },
      [party],
    );
    const [mine] = opened;
    return {
      envelopeJson: JSON.stringify(envelope),
      signature: envelope.signature,
      opened: mine === undefined ? null : { subject: '', body: mine.content.body },
    };
  }

  sealChat(fromAgentId: string, chat: FederatedChat, recipientKey: FoundEncryptionKey): FederatedChat {
    const row = findIdentity(this.#ctx.db, fromAgentId);
    if (row?.status !== 'active') throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', 'the sender no longer sends');
    const sender = this.#parts.recipients.party(row);
    const { reply_to, wait_seconds, hang_on, sender_leaving } = chat;
    // Signed again with the body left out: the signature says who sent it to whom, the envelope what it says.
    const signed = signMessage(
      this.#ctx,
      sender,
      { to: chat.to, didKey: '', stableId: null },
      { type: 'chat', subject: '', body: '', reply_to, wait_seconds, hang_on, sender_leaving },
      chat.message_id,
    );
    const to = { address: recipientKey.address, didKey: recipientKey.didKey, stableId: recipientKey.stableId, key: recipientKey.assertion };
    const ids = {
      messageId: chat.message_id,
      conversationId: this.#parts.chat().sessionOf(chat.message_id) ?? chat.message_id,
      replyToMessageId: reply_to ?? undefined,
    };
    const envelope = this.#parts.endToEnd.seal('chat', sender, [to], { body: chat.body }, ids, signed.timestamp);
    return {
      ...chat,
      from: signed.from,
      from_did: signed.from_did,
      from_stable_id: signed.from_stable_id,
      body: '',
      timestamp: signed.timestamp,
      signature: signed.signature,
      signed_payload: signed.signed_payload,
      content_mode: 'encrypted_v2',
      message_version: 2,
      encrypted_envelope: envelope as unknown as FederatedChat['encrypted_envelope'],
    };
  }

  storeBounce(agentId: string, bounce: Bounce): void {
    const sender = findIdentity(this.#ctx.db, agentId);
    if (sender !== undefined) storeBounce(this.#ctx.db, sender, bounce);
  }
}
