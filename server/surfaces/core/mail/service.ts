/**
 * Mail (spec §4.4; bodies as upstream's, docs/adr/0001-upstream-wire-primitives.md): one signed,
 * stored message per recipient, the inbox, and acknowledgement. Each mail is signed in custody with
 * the sender's current key and delivered (delivery.ts: stored here, or queued in the same
 * transaction for a recipient on another node); the recipients' streams are nudged, and the
 * federation outbox told, once the whole send has committed.
 *
 * The mail module owns every mail row; the rest of the node reaches them through two doors only:
 * this object (MCP, the event streams, chat's count of unread mail) and delivery.ts, through which
 * federation stores mail arriving from another node and bounces. All of mail's SQL is in store/;
 * search's index reads the rows for itself (server/search/store/mail.ts).
 */
import { randomUUID } from 'node:crypto';
import { signingTimestamp } from '../../../clock.ts';
import { writeCounter } from '../../../store/write-counter.ts';
import type { NodeContext } from '../../../context.ts';
import {
  MAX_BODY_BYTES,
  SINGLE_SELECTORS,
  type InboxInput,
  type InboxPage,
  type MailAcknowledged,
  type MailMessage,
  type SendMailInput,
  type SendMailResult,
} from '../../../../contract/core/mail.ts';
import { conflict, invalid, notFound, ServiceError, tooLarge, type ValidationIssue } from '../../../errors.ts';
import type { EncryptionKeyAssertion } from '../../../crypto/e2ee/key-assertion.ts';
import { identityTopic } from '../../../events/bus.ts';
import type { E2eeEnvelope } from '../../../crypto/e2ee/envelope.ts';
import type { IdentityService } from '../identities/service.ts';
import type { RemoteEncryptionKey, RemoteEncryptionKeys } from '../identities/remote-encryption-keys.ts';
import { findIdentity, type AgentRow } from '../identities/store/agents.ts';
import { announcementsFor, signingKeyId } from '../messaging/announcements.ts';
import { assertNamesItself, clientSignatureOf, verifyClientSigned } from '../messaging/client-signed.ts';
import type { RemoteQueue } from '../messaging/remote-queue.ts';
import { earlierAnswer, keyedSend, recordAnswer } from '../messaging/idempotency.ts';
import { assertReachable, isContact } from '../messaging/reachability.ts';
import type { Party, Recipient } from '../messaging/participants.ts';
import type { RecipientSelector, Recipients, RemoteRecipient } from '../messaging/recipients.ts';
import { senderNamespaceTrust } from '../messaging/sender-trust.ts';
import { messageSigningPayload, signMessage } from '../messaging/signing.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import { deliverMail, type EncryptedMail } from './delivery.ts';
import { conversationId } from './conversation.ts';
import { asRead, claimedIds, type EndToEnd, type SealedAhead } from '../messaging/end-to-end.ts';
import { MailFolders, publishMailChange } from './folders.ts';
import { SentMail } from './sent.ts';
import {
  acknowledgeMail,
  inboxRowId,
  inboxRows,
  lastMailRowId,
  mailStoredSince,
  newestPendingMail,
  pendingMailAfter,
  toInboxItem,
  unreadMailCount,
  type MessageRow,
} from './store/messages.ts';

// The rows deliveredSince and unread hand to the event streams.

/** The lists, in the order their recipients are listed in the response. */
const PLURAL_SELECTORS = [
  ['to_aliases', 'alias'],
  ['to_addresses', 'address'],
  ['to_dids', 'did'],
] as const;

type SelectorKind = 'did' | 'address' | 'alias' | 'agent_id';

const SINGLE_KIND: Record<(typeof SINGLE_SELECTORS)[number], SelectorKind> = {
  to_stable_id: 'did',
  to_did: 'did',
  to_address: 'address',
  to_agent_id: 'agent_id',
  to_alias: 'alias',
};

function selectorOf(kind: SelectorKind, value: string): RecipientSelector {
  return kind === 'did' ? { did: value } : kind === 'address' ? { address: value } : kind === 'agent_id' ? { agent_id: value } : { alias: value };
}

const issue = (loc: (string | number)[], msg: string): ValidationIssue => ({ loc: ['body', ...loc], msg, type: 'value_error' });

type Target = Recipient | RemoteRecipient;

const isRemote = (target: Target): target is RemoteRecipient => 'remote' in target;
/** Who a target is, for "named twice" and "must match": the local identity, or the remote address. */
const targetKey = (target: Target): string => (isRemote(target) ? `remote:${target.address}` : target.agent.agent_id);

export class MailService {
  readonly #ctx: NodeContext;
  readonly #identities: IdentityService;
  readonly #recipients: Recipients;
  readonly #queue: RemoteQueue;
  readonly #namespaces: NamespaceService;
  readonly #endToEnd: EndToEnd;
  /** Ours: archive, delete, mark unread (the recipient's side of a message). */
  readonly folders: MailFolders;
  /** Ours: everything the identity sent, here and to other nodes. */
  readonly sent: SentMail;

  readonly #remoteKeys: RemoteEncryptionKeys;
  /** A stamp of the rows written to PARTY_TABLES so far (store/write-counter.ts). */
  readonly #partyWrites: () => string;

  constructor(
    ctx: NodeContext,
    identities: IdentityService,
    recipients: Recipients,
    queue: RemoteQueue,
    namespaces: NamespaceService,
    endToEnd: EndToEnd,
    remoteKeys: RemoteEncryptionKeys,
  ) {
    this.#ctx = ctx;
    this.#remoteKeys = remoteKeys;
    this.#partyWrites = writeCounter(ctx.db, 'mail_parties', PARTY_TABLES);
    this.#endToEnd = endToEnd;
    this.#identities = identities;
    this.#recipients = recipients;
    this.#queue = queue;
    this.#namespaces = namespaces;
    this.folders = new MailFolders(ctx);
    this.sent = new SentMail(ctx);
  }

  /**
   * `send` as `POST /v1/messages` makes it: a client's envelope for an identity on another node is
   * checked against the key that identity's own node publishes for it now, so that key is found
   * first (over the network, before the send's transaction; remembered a few minutes, and each
   * failure a refusal of its own: core/identities/remote-encryption-keys.ts).
   */
  async sendFindingKeys(agentId: string, input: SendMailInput): Promise<SendMailResult> {
    if (input.encrypted_envelope === undefined) return this.send(agentId, input, { ahead: await this.#sealAhead(agentId, input) });
    const targets = this.#resolve(this.#identities.row(agentId), input);
    const [only] = targets;
    if (targets.length !== 1 || only === undefined || !isRemote(only)) return this.send(agentId, input);
    return this.send(agentId, input, { remoteKey: await this.#remoteKeys.find(only.address) });
  }

  /**
   * With a client `message_id` the send happens once: the same content under the id again answers
   * what the first send answered (messaging/idempotency.ts). What `sendFindingKeys` found before
   * the transaction: `remoteKey`, the current key of the one recipient on another node a client's
   * envelope is for; `ahead`, the mail sealed beside the event loop, which the seal takes if it
   * still fits.
   */
  send(
    agentId: string,
    request: SendMailInput,
    { remoteKey, ahead }: { remoteKey?: RemoteEncryptionKey; ahead?: MailSealedAhead | null } = {},
  ): SendMailResult {
    // One thread, by either of its names, or the one a client's envelope is bound to.
    const input = { ...request, thread_id: request.thread_id ?? request.conversation_id ?? envelopeConversation(request.encrypted_envelope) };
    const bytes = Buffer.byteLength(input.body, 'utf8');
    if (bytes > MAX_BODY_BYTES) throw tooLarge('SVC_ERR_MESSAGE_TOO_LARGE', `Mail body is ${bytes} bytes; the limit is ${MAX_BODY_BYTES} bytes (64 KiB)`);
    const { db, bus, clock } = this.#ctx;
    const keyed = keyedSend(agentId, 'mail', input);
    // A client signature is checked before anything else, a repeat of its send included.
    const signature = clientSignatureOf(input);
    const clientSigned =
      signature === null
        ? null
        : verifyClientSigned(this.#ctx, this.#recipients.party(this.#identities.row(agentId)), signature, {
            type: 'mail',
            subject: input.subject,
            body: input.body,
            priority: input.priority,
          });

    const sent = db.transaction(() => {
      const earlier = keyed === null ? undefined : earlierAnswer<SendMailResult>(db, keyed);
      if (earlier !== undefined) return { result: earlier, deliveries: [] };
      // What the seal made ahead was resolved from holds while no row it was read from changed.
      const resolved = ahead != null && ahead.writes === this.#partyWrites() ? ahead : null;
      const senderRow = resolved?.senderRow ?? this.#identities.row(agentId);
      assertNamesItself(senderRow, input);
      if (senderRow.status !== 'active') throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', `Identity is ${senderRow.status} and cannot send mail`);
      const sender = resolved?.sender ?? this.#recipients.party(senderRow);
      const targets = resolved === null ? this.#resolve(senderRow, input) : [resolved.recipient];
      for (const target of targets) if (!isRemote(target)) assertReachable(db, sender, target);
      if (input.encrypted_envelope !== undefined && targets.length !== 1) {
        throw invalid('SVC_ERR_VALIDATION', [issue(['encrypted_envelope'], 'an encrypted_envelope is one mail to one recipient')]);
      }
      const deliveries = targets.map((target) =>
        deliverMail(this.#ctx, this.#queue, sender, target, {
          ...input,
          clientSigned,
          // To another node: the client's envelope as it is, else sealed as it leaves unless the
          // send named plaintext (the node seals only what it signs).
          ...(!isRemote(target)
            ? this.#encryption(sender, target, input, clientSigned !== null, ahead?.sealed, resolved?.key)
            : input.encrypted_envelope !== undefined
              ? { clientSealed: this.#remoteEnvelope(sender, target, input, remoteKey) }
              : { sealRemote: clientSigned === null && input.content_mode !== 'legacy_plaintext_v1' }),
        }),
      );
      const first = deliveries[0] as (typeof deliveries)[number];
      const result: SendMailResult = {
        message_id: first.delivery.message_id,
        status: first.delivery.status,
        delivered_at: first.deliveredAt,
        messages: deliveries.map((d) => d.delivery),
      };
      if (keyed !== null) recordAnswer(db, keyed, result, clock.now());
      return { result, deliveries };
    })();

    const { deliveries } = sent;
    for (const agent of new Set(deliveries.flatMap((d) => (d.agentId === null ? [] : [d.agentId])))) bus.publish(identityTopic(agent));
    if (deliveries.some((d) => d.agentId === null)) this.#queue.nudge();
    return sent.result;
  }

  /**
   * How a mail to a recipient on this node is sent (messaging/end-to-end.ts decides, no
   * downgrade): sealed here, the client's envelope checked, or plaintext (nothing to add).
   */
  #encryption(
    sender: Party,
    recipient: Recipient,
    input: SendMailInput,
    clientSigned: boolean,
    ahead?: SealedAhead | null,
    recipientKey?: EncryptionKeyAssertion,
  ): { encrypted?: EncryptedMail } {
    const mode = this.#endToEnd.modeFor(sender, recipient, input, clientSigned, recipientKey);
    if (mode.kind === 'plaintext') return {};
    const { subject, body } = input;
    if (mode.kind === 'seal') {
      // Also signed as a plaintext message, for the parties whose keys the node holds: their
      // clients verify what they read as they verify any mail. With the id and time of a seal
      // made ahead, which `seal` then takes if nothing else changed.
      const signed = signMessage(
        this.#ctx,
        sender,
        recipient,
        { type: 'mail', subject, body, priority: input.priority },
        input.message_id ?? ahead?.request.messageId,
        ahead?.createdAt,
        ahead?.plaintext,
      );
      const ids = { messageId: signed.message_id, conversationId: input.thread_id ?? signed.message_id };
      const envelope = this.#endToEnd.seal('mail', sender, [{ ...recipient, key: mode.recipientKey }], { subject, body }, ids, signed.timestamp, ahead);
      const opened = { subject, body, signature: signed.signature, signed_payload: signed.signed_payload };
      const readers = { sender: sender.agent.custody !== 'self', recipient: recipient.agent.custody !== 'self', opened };
      return { encrypted: { envelope, createdAt: signed.timestamp, readers } };
    }
    const createdAt = signingTimestamp(this.#ctx.clock);
    const { envelope, opened } = this.#endToEnd.receiveMail(
      input.encrypted_envelope,
      envelopeIds(input),
      { did: sender.didKey, stableId: sender.stableId, address: sender.address },
      recipient,
    );
    const readers =
      opened === null
        ? null
        : { sender: false, recipient: true, opened: { subject: opened.subject ?? '', body: opened.body, signature: '', signed_payload: '' } };
    return { encrypted: { envelope, createdAt, readers } };
  }

  /**
   * A client's envelope for `recipient` on another node, checked before anything is stored as one
   * for a recipient here is, against the key its node publishes for it now (`key`); the node
   * cannot open it. Without that key (a send that did not come through `sendFindingKeys`) it is refused.
   */
  #remoteEnvelope(sender: Party, recipient: RemoteRecipient, input: SendMailInput, key: RemoteEncryptionKey | undefined): E2eeEnvelope {
    if (key?.address !== recipient.address) {
      throw invalid('SVC_ERR_VALIDATION', [
        issue(['encrypted_envelope'], `an encrypted_envelope for ${recipient.to}, on another node, is taken only by POST /v1/messages`),
      ]);
    }
    return this.#endToEnd.receiveMailForRemote(
      input.encrypted_envelope,
      envelopeIds(input),
      { did: sender.didKey, stableId: sender.stableId, address: sender.address },
      { address: key.address, didKey: key.didKey, stableId: key.stableId, encryptionKeyId: key.key.encryptionKeyId },
    );
  }

  /**
   * A mail the node will seal for a recipient on this node (a sender whose keys it holds, one
   * recipient that publishes a key, nothing named plaintext), sealed now, before the send's
   * transaction (messaging/end-to-end.ts, sealAhead); null for any other mail, and whenever
   * anything is wrong with the send, which then says what.
   */
  async #sealAhead(agentId: string, request: SendMailInput): Promise<MailSealedAhead | null> {
    if (clientSignatureOf(request) !== null || request.content_mode === 'legacy_plaintext_v1') return null;
    if (Buffer.byteLength(request.body, 'utf8') > MAX_BODY_BYTES) return null;
    const writes = this.#partyWrites();
    let sealing: Omit<MailSealedAhead, 'sealed' | 'writes'> | null;
    try {
      const senderRow = this.#identities.row(agentId);
      const [only, ...more] = this.#resolve(senderRow, request);
      const sender = this.#recipients.party(senderRow);
      const key = only === undefined || isRemote(only) || sender.agent.custody === 'self' ? null : this.#endToEnd.keyOf(only);
      sealing = key === null || more.length > 0 || senderRow.status !== 'active' ? null : { senderRow, sender, recipient: only as Recipient, key };
    } catch (error) {
      if (error instanceof ServiceError) return null;
      throw error;
    }
    if (sealing === null) return null;
    const { sender, recipient, key } = sealing;
    const { subject, body, priority } = request;
    const messageId = request.message_id ?? randomUUID();
    const thread = request.thread_id ?? request.conversation_id ?? messageId;
    const createdAt = signingTimestamp(this.#ctx.clock);
    const plaintext = messageSigningPayload(sender, recipient, { type: 'mail', subject, body, priority }, messageId, createdAt);
    const sealed = await this.#endToEnd.sealAhead(
      'mail',
      sender,
      [{ ...recipient, key }],
      { subject, body },
      { messageId, conversationId: thread },
      createdAt,
      plaintext,
    );
    return sealed === null ? null : { ...sealing, sealed, writes };
  }

  /**
   * The singular selectors name one recipient (when several are given they must agree, as
   * upstream); each entry of the lists is one more. Nobody may be named twice.
   */
  #resolve(sender: AgentRow, input: SendMailInput): Target[] {
    const named: { loc: (string | number)[]; target: Target }[] = [];
    const singles = SINGLE_SELECTORS.filter((field) => input[field] !== undefined);
    let primary: { field: string; target: Target } | null = null;
    for (const field of singles) {
      const target = this.#recipients.resolveAcrossNodes(sender, selectorOf(SINGLE_KIND[field], input[field] as string));
      if (primary === null) {
        primary = { field, target };
        named.push({ loc: [field], target });
      } else if (targetKey(target) !== targetKey(primary.target)) {
        throw invalid('SVC_ERR_VALIDATION', [issue([field], `${field} must match the ${primary.field} recipient`)]);
      }
    }
    for (const [field, kind] of PLURAL_SELECTORS) {
      (input[field] ?? []).forEach((value, index) => {
        named.push({ loc: [field, index], target: this.#recipients.resolveAcrossNodes(sender, selectorOf(kind, value)) });
      });
    }
    const seen = new Map<string, string>();
    for (const { loc, target } of named) {
      const earlier = seen.get(targetKey(target));
      if (earlier !== undefined)
        throw invalid('SVC_ERR_VALIDATION', [issue(loc, `${target.to} is the same recipient as ${earlier}; name each recipient once`)]);
      seen.set(targetKey(target), target.to);
    }
    return named.map((n) => n.target);
  }

  /**
   * The caller's mail, newest first (by arrival), with `before` paging: the inbox folder (neither
   * archived nor deleted) unless `folder` says otherwise; a `message_id` lookup without a folder
   * finds the message in either. Deleted mail is never listed.
   */
  inbox(agentId: string, query: InboxInput): InboxPage {
    const { db } = this.#ctx;
    let beforeId: number | undefined;
    if (query.before !== undefined) {
      beforeId = inboxRowId(db, agentId, query.before);
      if (beforeId === undefined) {
        throw invalid('SVC_ERR_VALIDATION', [{ loc: ['query', 'before'], msg: `no message ${query.before} in this inbox`, type: 'value_error' }]);
      }
    }
    const rows = inboxRows(db, agentId, {
      // A lookup by id, and a whole thread, find mail in either folder unless told otherwise.
      folder: query.folder ?? (query.message_id === undefined && query.thread_id === undefined ? 'inbox' : null),
      unreadOnly: query.unread_only,
      messageId: query.message_id,
      ...(query.thread_id === undefined ? {} : { threadId: query.thread_id }),
      beforeId,
      limit: query.limit + 1,
    });
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    const reader = this.#identities.row(agentId);
    const messages = page.map((row) => this.#item(reader, row));
    return { messages, has_more: hasMore, next_before: hasMore ? (page.at(-1)?.message_id ?? null) : null };
  }

  #item(reader: AgentRow, row: MessageRow): MailMessage {
    // The sender as it signed: its key, stable id and address at the time (a bounce is this node).
    const sender = { didKey: row.from_did, stableId: row.from_stable_id, address: row.from_address };
    const encryption = asRead(row, reader);
    return toInboxItem(row, {
      ...encryption,
      conversation_id: conversationId(row, encryption.encrypted_envelope),
      from_address: row.from_address ?? this.#senderName(reader, row),
      is_contact: row.origin !== 'bounce' && isContact(this.#ctx.db, reader.agent_id, sender),
      ...this.#endToEnd.signatureAsRead(row, encryption),
      from_namespace_trust: senderNamespaceTrust(this.#namespaces, { ...row, remote: row.origin === 'remote' }),
      signing_key_id: signingKeyId(row),
      ...announcementsFor(this.#ctx.db, row),
    });
  }

  /** A sender without an address, as upstream names it to the reader: its alias, `<project>~<alias>` from another project. */
  #senderName(reader: AgentRow, row: MessageRow): string {
    const sender = row.from_agent_id === null ? undefined : findIdentity(this.#ctx.db, row.from_agent_id);
    return sender === undefined ? row.from_alias : this.#recipients.localName(reader, { ...sender, alias: row.from_alias });
  }

  /**
   * Marks one of the caller's messages read; acknowledging again keeps the first time. A message
   * the caller deleted is no longer in its inbox (404).
   */
  ack(agentId: string, messageId: string): MailAcknowledged {
    const { db, clock, bus } = this.#ctx;
    const acknowledged = db.transaction(() => acknowledgeMail(db, { agentId, messageId }, clock.now().toISOString()))();
    if (acknowledged === undefined) throw notFound('SVC_ERR_MESSAGE_NOT_FOUND', 'Message not found');
    const { readAt, changed } = acknowledged;
    // Acknowledging again changes nothing the owner's UI shows.
    if (changed) publishMailChange(bus, agentId, messageId);
    else bus.publish(identityTopic(agentId));
    return { message_id: messageId, acknowledged_at: readAt };
  }

  /** Mail stored after row `afterId`, every recipient: the node-wide wake feed's source. */
  deliveredSince(afterId: number, limit: number): MessageRow[] {
    return mailStoredSince(this.#ctx.db, afterId, limit);
  }

  lastId(): number {
    return lastMailRowId(this.#ctx.db);
  }

  /**
   * Unread mail for the event stream, oldest first: with `afterId` null the newest
   * `snapshotLimit`, otherwise everything that arrived after the message with id `afterId`.
   * Archived and deleted mail is never pending (folders.ts marks it read as well; this holds even
   * for a message archived between its arrival and the stream reading it).
   */
  unread(agentId: string, afterId: number | null, snapshotLimit: number): (MessageRow & { unread_count: number })[] {
    const { db } = this.#ctx;
    const rows = afterId === null ? newestPendingMail(db, agentId, snapshotLimit) : pendingMailAfter(db, agentId, afterId);
    if (rows.length === 0) return [];
    // Upstream's `unread_count` on each frame: the identity's unread mail as the frames are written.
    const unreadCount = this.unreadCount(agentId);
    return rows.map((row) => ({ ...row, unread_count: unreadCount }));
  }

  /** The identity's unread mail, archived and deleted mail included (they are marked read as they go). */
  unreadCount(agentId: string): number {
    return unreadMailCount(this.#ctx.db, agentId);
  }
}

/** The conversation a client's envelope says it belongs to, when it names one that fits a thread id (the envelope is checked later). */
function envelopeConversation(envelope: unknown): string | undefined {
  const { conversationId } = claimedIds(envelope);
  return conversationId !== '' && conversationId.length <= 256 ? conversationId : undefined;
}

/** The ids a client's envelope is checked against: the request's where it names them, else what the envelope claims. */
function envelopeIds(input: SendMailInput): { messageId: string; conversationId: string } {
  const claimed = claimedIds(input.encrypted_envelope);
  return { messageId: input.message_id ?? claimed.messageId, conversationId: input.thread_id ?? claimed.conversationId };
}

/**
 * A mail sealed before its send's transaction, with what it was resolved from: the sender's row
 * and party, the one recipient and its key, and the count of rows written to the tables they were
 * read from (PARTY_TABLES) at the time, which the transaction compares to take them as they are.
 */
interface MailSealedAhead {
  sealed: SealedAhead;
  writes: string;
  senderRow: AgentRow;
  sender: Party;
  recipient: Recipient;
  key: EncryptionKeyAssertion;
}

/** Every table a send's parties and their keys are read from: identities, their projects, addresses and the dids behind them, encryption keys. */
const PARTY_TABLES = ['agents', 'projects', 'addresses', 'did_mappings', 'identity_encryption_keys'] as const;
