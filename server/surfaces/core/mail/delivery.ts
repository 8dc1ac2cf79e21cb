/**
 * Where every mail row comes from: mail sent on this node (mail/service.ts), stored in the inbox
 * of its recipient here or queued, signed, for the recipient's node; mail arriving from another
 * node (federation/inbound.ts); and a bounce of mail another node did not take
 * (federation/outbox.ts). Each kind is stored through here, so every row is written the same way
 * and each kind says what it fills in; the SQL is the mail store's (store/messages.ts).
 *
 * The federation outbox is reached only through messaging's `RemoteQueue`, which it satisfies
 * (wired in core/services.ts). Federation calls in only through its port (federation/core-port.ts,
 * whose CheckedSender and Bounce these functions take), which core/federation-core.ts implements:
 * mail may use federation's types, federation never reaches up into the core.
 */
import { randomUUID } from 'node:crypto';
import { signingTimestamp } from '../../../clock.ts';
import { FEDERATION_VERSION, type FederatedMail } from '../../../../contract/core/federation.ts';
import type { Delivery, SendMailInput } from '../../../../contract/core/mail.ts';
import type { Db, NodeContext } from '../../../context.ts';
import type { E2eeEnvelope } from '../../../crypto/e2ee/envelope.ts';
import type { ArrivedEnvelope, Bounce, CheckedSender } from '../../../federation/core-port.ts';
import { conflict, invalid } from '../../../errors.ts';
import { splitAddress } from '../../../../contract/core-rules.ts';
import { conflictOnConstraint } from '../../../store/db-errors.ts';
import type { AgentRow } from '../identities/store/agents.ts';
import {
  assertSignedFromAddress,
  assertSignedRecipients,
  signedRecipient,
  type SignedRecipient,
  type VerifiedClientMessage,
} from '../messaging/client-signed.ts';
import type { Party, Recipient } from '../messaging/participants.ts';
import type { RemoteRecipient } from '../messaging/recipients.ts';
import type { RemoteQueue } from '../messaging/remote-queue.ts';
import { signMessage, type SignedMessage } from '../messaging/signing.ts';
import { findMailOrigin, insertMailRow, type OpenedMail, type OpenedMailReaders } from './store/messages.ts';
import { clientSealedWire } from '../messaging/client-sealed-wire.ts';

/**
 * What a mail says, and optionally the thread it is in and the client's own id for it (one
 * recipient only); `clientSigned` when the client signed it (checked by messaging/client-signed.ts), else
 * the node signs it in custody.
 */
export type MailContent = Pick<SendMailInput, 'subject' | 'body' | 'priority'> &
  Partial<Pick<SendMailInput, 'thread_id' | 'message_id'>> & {
    clientSigned?: VerifiedClientMessage | null;
    /** For a recipient on this node: the envelope made or checked, and what the node opened. */
    encrypted?: EncryptedMail;
    /** For a recipient on another node: sealed end to end by the outbox as it leaves (outbox-sealing.ts). */
    sealRemote?: boolean;
    /**
     * For a recipient on another node: the envelope the sender's client sealed (checked by
     * messaging/end-to-end.ts), queued to go as it is, with no plaintext signature beside it.
     */
    clientSealed?: E2eeEnvelope;
  };

/**
 * An end-to-end encrypted mail (messaging/end-to-end.ts made or checked the envelope): stored as
 * the envelope alone, and what the node opened kept once for those of its parties whose keys it
 * holds.
 */
export interface EncryptedMail {
  envelope: E2eeEnvelope;
  /** When it was sent: the node's clock, second precision. */
  createdAt: string;
  /** Which of its two parties the node is the client of, and what they read; null for neither. */
  readers: MailReaders | null;
}

/** The parties the node reads a mail for, and the text they read: the same words for both, since every wrap opens the same content. */
export interface MailReaders extends OpenedMailReaders {
  opened: OpenedMail;
}

export interface MailDelivered {
  delivery: Delivery;
  /** The identity of this node whose streams learn of it; null when it was queued for another node. */
  agentId: string | null;
  deliveredAt: string;
}

/** Signs `content` as `sender` for `recipient`: stored here, or queued for the recipient's node. */
export function deliverMail(ctx: NodeContext, queue: RemoteQueue, sender: Party, recipient: Recipient | RemoteRecipient, content: MailContent): MailDelivered {
  return 'remote' in recipient ? queueMail(ctx, queue, sender, recipient, content) : storeMail(ctx, sender, recipient, content);
}

/** Only these fields are signed and stored: `content` may be the whole send request. */
const signedContent = (content: MailContent) => ({ type: 'mail' as const, subject: content.subject, body: content.body, priority: content.priority });

/** The client's signature when it signed (naming this recipient), else the node's in custody. */
function mailSignature(
  ctx: NodeContext,
  sender: Party,
  to: Pick<Recipient, 'to' | 'didKey' | 'stableId'>,
  names: SignedRecipient,
  content: MailContent,
): SignedMessage {
  if (content.clientSigned) {
    assertSignedRecipients(content.clientSigned, [names]);
    return content.clientSigned.signed;
  }
  return signMessage(ctx, sender, to, signedContent(content), content.message_id);
}

function storeMail(ctx: NodeContext, sender: Party, recipient: Recipient, content: MailContent): MailDelivered {
  if (content.encrypted) return storeEncryptedMail(ctx, sender, recipient, content, content.encrypted);
  const signed = mailSignature(ctx, sender, recipient, signedRecipient(recipient), content);
  conflictOnConstraint('SVC_ERR_MESSAGE_ID_TAKEN', 'message_id already exists', () =>
    insertMailRow(ctx.db, {
      ...localParties(sender, recipient),
      message_id: signed.message_id,
      from_did: signed.from_did,
      from_stable_id: signed.from_stable_id,
      subject: content.subject,
      body: content.body,
      priority: content.priority,
      signature: signed.signature,
      signed_payload: signed.signed_payload,
      created_at: signed.timestamp,
      thread_id: content.thread_id ?? null,
    }),
  );
  return { delivery: localDelivery(sender, recipient, signed.message_id), agentId: recipient.agent.agent_id, deliveredAt: signed.timestamp };
}

/** Who a mail sent on this node is from and to, as its row names them (the keys it was signed with aside). */
function localParties(sender: Party, recipient: Recipient) {
  return {
    from_agent_id: sender.agent.agent_id,
    from_alias: sender.alias,
    from_address: sender.address,
    to_agent_id: recipient.agent.agent_id,
    to_text: recipient.to,
    to_alias: recipient.alias,
    to_address: recipient.address,
    to_did: recipient.didKey,
    to_stable_id: recipient.stableId,
    origin: 'local' as const,
    from_node: null,
  };
}

function localDelivery(sender: Party, recipient: Recipient, messageId: string): Delivery {
  return {
    message_id: messageId,
    to: recipient.to,
    // Aliases are project-scoped: another project's alias means nothing to the sender.
    to_alias: recipient.agent.project_id === sender.agent.project_id ? recipient.alias : null,
    to_address: recipient.address,
    to_did: recipient.didKey,
    to_stable_id: recipient.stableId,
    status: 'delivered',
  };
}

/** The envelope in the recipient's inbox (subject and body empty), and the plaintext only for those the node reads for. */
function storeEncryptedMail(ctx: NodeContext, sender: Party, recipient: Recipient, content: MailContent, encrypted: EncryptedMail): MailDelivered {
  const { envelope, createdAt } = encrypted;
  conflictOnConstraint('SVC_ERR_MESSAGE_ID_TAKEN', 'message_id already exists', () => {
    insertMailRow(ctx.db, {
      ...localParties(sender, recipient),
      message_id: envelope.message_id,
      from_did: envelope.from.did,
      from_stable_id: envelope.from.stable_id ?? null,
      subject: '',
      body: '',
      priority: content.priority,
      signature: envelope.signature,
      signed_payload: '',
      created_at: createdAt,
      thread_id: content.thread_id ?? null,
      content_mode: 'encrypted_v2',
      encrypted_envelope: JSON.stringify(envelope),
      opened: encrypted.readers === null ? null : { readers: encrypted.readers, text: encrypted.readers.opened },
    });
  });
  return { delivery: localDelivery(sender, recipient, envelope.message_id), agentId: recipient.agent.agent_id, deliveredAt: createdAt };
}

/** A recipient on another node, which can only check a sender with an address. */
function queueMail(ctx: NodeContext, queue: RemoteQueue, sender: Party, recipient: RemoteRecipient, content: MailContent): MailDelivered {
  if (sender.address === null) {
    throw invalid(
      'SVC_ERR_SENDER_ADDRESS_REQUIRED',
      `Mail to ${recipient.to} goes to another node, which can only check a sender with an address: give this identity an address first`,
    );
  }
  if (content.clientSealed) return queueClientSealedMail(ctx, queue, sender, recipient, content, content.clientSealed);
  const names: SignedRecipient = { names: [recipient.to, recipient.address], didKey: '', stableId: null, remote: true };
  if (content.clientSigned) assertSignedFromAddress(content.clientSigned, sender);
  const signed = mailSignature(ctx, sender, { to: recipient.address, didKey: '', stableId: null }, names, content);
  queue.enqueue(
    sender.agent.agent_id,
    recipient.domain,
    {
      v: FEDERATION_VERSION,
      kind: 'mail',
      message_id: signed.message_id,
      from: signed.from,
      from_did: signed.from_did,
      from_stable_id: signed.from_stable_id,
      to: recipient.address,
      subject: content.subject,
      body: content.body,
      priority: content.priority,
      timestamp: signed.timestamp,
      signature: signed.signature,
      signed_payload: signed.signed_payload,
      // Sent only when it has one: a node older than the field refuses a field it does not know.
      ...(content.thread_id === undefined ? {} : { thread_id: content.thread_id }),
    },
    { sealed: content.sealRemote === true && !content.clientSigned },
  );
  const delivery: Delivery = {
    message_id: signed.message_id,
    to: recipient.to,
    to_alias: null,
    to_address: recipient.address,
    to_did: '',
    to_stable_id: null,
    status: 'queued',
  };
  return { delivery, agentId: null, deliveredAt: signed.timestamp };
}

/**
 * A client's envelope for a recipient on another node, queued as the wire form it crosses in:
 * no subject, body or plaintext signature (the node has none to give), the envelope's own
 * signature the proof, and the fields the receiving node checks the sender and the recipient by
 * taken from what the envelope signed (federation/wire.ts checks they are). The outbox sends it as
 * it is, or bounces it once it would be stale for its receiver (outbox-sealing.ts).
 */
function queueClientSealedMail(
  ctx: NodeContext,
  queue: RemoteQueue,
  sender: Party,
  recipient: RemoteRecipient,
  content: MailContent,
  envelope: E2eeEnvelope,
): MailDelivered {
  queue.enqueue(
    sender.agent.agent_id,
    recipient.domain,
    {
      ...clientSealedWire(envelope, recipient.address),
      kind: 'mail',
      subject: '',
      priority: content.priority,
      ...(content.thread_id === undefined ? {} : { thread_id: content.thread_id }),
    },
    { sealedByClient: true },
  );
  const delivery: Delivery = {
    message_id: envelope.message_id,
    to: recipient.to,
    to_alias: null,
    to_address: recipient.address,
    to_did: '',
    to_stable_id: null,
    status: 'queued',
  };
  return { delivery, agentId: null, deliveredAt: signingTimestamp(ctx.clock) };
}

// ------------------------------------------------------------------ mail from another node

/**
 * Whether this mail was stored before: the same message again (a retry after a lost answer) is;
 * another message under its id is refused.
 */
export function arrivedBefore(db: Db, mail: FederatedMail): boolean {
  const seen = findMailOrigin(db, mail.message_id);
  if (seen === undefined) return false;
  if (seen.origin !== 'remote' || seen.from_did !== mail.from_did)
    throw conflict('SVC_ERR_MESSAGE_ID_TAKEN', `Refused: message_id ${mail.message_id} is already taken`);
  return true;
}

/**
 * Stores checked mail from another node in its recipient's inbox. False when another delivery of
 * the same id got there first (two deliveries raced); ask `arrivedBefore` what that one was.
 */
export function storeArrivedMail(
  db: Db,
  mail: FederatedMail,
  recipient: AgentRow & { address: string },
  sender: CheckedSender,
  now: string,
  encrypted?: ArrivedEnvelope,
): boolean {
  // An encrypted mail is stored as its envelope, signed by its sender; the wire's signature over
  // its other fields has done its work (inbound.ts checked who sent it to whom).
  const signature = encrypted === undefined ? mail.signature : encrypted.signature;
  try {
    insertMailRow(db, {
      message_id: mail.message_id,
      from_agent_id: null,
      // inbound.ts checked that `from` is an address.
      from_alias: splitAddress(mail.from)!.name,
      from_address: mail.from,
      from_did: mail.from_did,
      from_stable_id: mail.from_stable_id,
      to_agent_id: recipient.agent_id,
      to_text: mail.to,
      to_alias: recipient.alias,
      to_address: recipient.address,
      to_did: recipient.did_key,
      to_stable_id: recipient.did_aw,
      subject: mail.subject,
      body: mail.body,
      priority: mail.priority,
      signature,
      signed_payload: encrypted === undefined ? mail.signed_payload : '',
      created_at: now,
      origin: 'remote',
      from_node: sender.nodeUrl,
      from_namespace_trust: sender.namespaceTrust,
      thread_id: mail.thread_id ?? null,
      ...(encrypted === undefined ? {} : { content_mode: 'encrypted_v2' as const, encrypted_envelope: encrypted.envelopeJson }),
      // Opened with the recipient's key: the node reads it for the recipient; its sender is on another node.
      opened: encrypted?.opened ? { readers: { sender: false, recipient: true }, text: { ...encrypted.opened, signature: '', signed_payload: '' } } : null,
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
    throw error;
  }
  return true;
}

// ------------------------------------------------------------------ bounces

/** The bounce in its sender's own inbox, from `postmaster`, unsigned (origin `bounce`). */
export function storeBounce(db: Db, sender: AgentRow, bounce: Bounce): void {
  insertMailRow(db, {
    message_id: randomUUID(),
    from_agent_id: null,
    from_alias: 'postmaster',
    from_address: null,
    from_did: '',
    from_stable_id: null,
    to_agent_id: sender.agent_id,
    to_text: bounce.from,
    to_alias: sender.alias,
    to_address: bounce.from,
    to_did: sender.did_key,
    to_stable_id: sender.did_aw,
    subject: bounce.subject,
    body: bounce.body,
    priority: 'normal',
    signature: '',
    signed_payload: '',
    created_at: bounce.at,
    origin: 'bounce',
    from_node: null,
  });
}
