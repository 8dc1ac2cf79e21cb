/**
 * Mail (spec §4.4; bodies as research/anchor-core.md §10.1): one signed, stored message per
 * recipient, the inbox, and acknowledgement. Each mail is signed in custody with the sender's
 * current key; the recipients' streams are nudged once the whole send has committed. A recipient
 * on another node gets its signed message through the federation outbox, written in the same
 * transaction (federation/outbox.ts).
 */
import type { NodeContext } from '../../../context.ts';
import {
  MAX_BODY_BYTES,
  SINGLE_SELECTORS,
  type Delivery,
  type InboxInput,
  type InboxPage,
  type MailAcknowledged,
  type MailMessage,
  type SendMailInput,
  type SendMailResult,
} from '../../../../contract/core/mail.ts';
import { FEDERATION_VERSION } from '../../../../contract/core/federation.ts';
import type { FederationOutbox } from '../../../federation/outbox.ts';
import { conflict, invalid, notFound, tooLarge, type ValidationIssue } from '../../../errors.ts';
import { identityTopic } from '../../../events/bus.ts';
import type { AgentRow, IdentityService } from '../identities/service.ts';
import type { Party, Recipient } from '../messaging/participants.ts';
import { assertReachable, isContact } from '../messaging/reachability.ts';
import type { RecipientSelector, Recipients, RemoteRecipient } from '../messaging/recipients.ts';
import { senderNamespaceTrust } from '../messaging/sender-trust.ts';
import { signatureStatus, signMessage } from '../messaging/signing.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import { conflictOnConstraint } from './db-errors.ts';
import { MailFolders, publishMailChange } from './folders.ts';
import { insertMailRow } from './rows.ts';
import { SentMail } from './sent.ts';

/**
 * A stored mail row: the inbox item's stored fields (contract/core/mail.ts), plus who it was
 * stored for, as whom it was addressed, and the recipient's side of it.
 */
export type MessageRow = Omit<MailMessage, 'is_contact' | 'signature_status' | 'from_namespace_trust'> & {
  id: number;
  to_agent_id: string;
  to_text: string;
  /** For remote mail: whether the sender's namespace was found DNS-verified on arrival. */
  from_namespace_trust: 'verified' | 'unverified' | null;
  /** Ours (folders.ts): when the recipient deleted it from its inbox. */
  deleted_at: string | null;
};

/** The lists, in the order their recipients are listed in the response. */
const PLURAL_SELECTORS = [
  ['to_aliases', 'alias'],
  ['to_addresses', 'address'],
  ['to_dids', 'did'],
] as const;

const SINGLE_KIND: Record<(typeof SINGLE_SELECTORS)[number], 'did' | 'address' | 'alias'> = {
  to_stable_id: 'did',
  to_did: 'did',
  to_address: 'address',
  to_alias: 'alias',
};

function selectorOf(kind: 'did' | 'address' | 'alias', value: string): RecipientSelector {
  return kind === 'did' ? { did: value } : kind === 'address' ? { address: value } : { alias: value };
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
  readonly #outbox: FederationOutbox;
  readonly #namespaces: NamespaceService;
  /** Ours: archive, delete, mark unread (the recipient's side of a message). */
  readonly folders: MailFolders;
  /** Ours: everything the identity sent, here and to other nodes. */
  readonly sent: SentMail;

  constructor(ctx: NodeContext, identities: IdentityService, recipients: Recipients, outbox: FederationOutbox, namespaces: NamespaceService) {
    this.#ctx = ctx;
    this.#identities = identities;
    this.#recipients = recipients;
    this.#outbox = outbox;
    this.#namespaces = namespaces;
    this.folders = new MailFolders(ctx);
    this.sent = new SentMail(ctx);
  }

  send(agentId: string, input: SendMailInput): SendMailResult {
    const bytes = Buffer.byteLength(input.body, 'utf8');
    if (bytes > MAX_BODY_BYTES) throw tooLarge(`Mail body is ${bytes} bytes; the limit is ${MAX_BODY_BYTES} bytes (64 KiB)`);
    const { db, bus } = this.#ctx;
    const senderRow = this.#identities.row(agentId);
    if (senderRow.status !== 'active') throw conflict(`Identity is ${senderRow.status} and cannot send mail`);
    const sender = this.#recipients.party(senderRow);

    const deliveries = db.transaction(() => {
      const targets = this.#resolve(senderRow, input);
      for (const target of targets) if (!isRemote(target)) assertReachable(db, sender, target);
      return targets.map((target) => (isRemote(target) ? this.#queue(sender, target, input) : this.#store(sender, target, input)));
    })();

    for (const agent of new Set(deliveries.flatMap((d) => (d.agentId === null ? [] : [d.agentId])))) bus.publish(identityTopic(agent));
    if (deliveries.some((d) => d.agentId === null)) this.#outbox.nudge();
    const first = deliveries[0] as (typeof deliveries)[number];
    return {
      message_id: first.delivery.message_id,
      status: first.delivery.status,
      delivered_at: first.deliveredAt,
      messages: deliveries.map((d) => d.delivery),
    };
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
        throw invalid([issue([field], `${field} must match the ${primary.field} recipient`)]);
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
      if (earlier !== undefined) throw invalid([issue(loc, `${target.to} is the same recipient as ${earlier}; name each recipient once`)]);
      seen.set(targetKey(target), target.to);
    }
    return named.map((n) => n.target);
  }

  /** A recipient on another node: signed here, queued for delivery in this transaction. */
  #queue(sender: Party, recipient: RemoteRecipient, input: SendMailInput) {
    if (sender.address === null) {
      throw invalid(`Mail to ${recipient.to} goes to another node, which can only check a sender with an address: give this identity an address first`);
    }
    const signed = signMessage(this.#ctx, sender, { to: recipient.address, didKey: '', stableId: null }, {
      type: 'mail',
      subject: input.subject,
      body: input.body,
      priority: input.priority,
    });
    this.#outbox.enqueue(sender.agent.agent_id, recipient.domain, {
      v: FEDERATION_VERSION,
      kind: 'mail',
      message_id: signed.message_id,
      from: signed.from,
      from_did: signed.from_did,
      from_stable_id: signed.from_stable_id,
      to: recipient.address,
      subject: input.subject,
      body: input.body,
      priority: input.priority,
      timestamp: signed.timestamp,
      signature: signed.signature,
      signed_payload: signed.signed_payload,
    });
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

  #store(sender: Party, recipient: Recipient, input: SendMailInput) {
    const signed = signMessage(this.#ctx, sender, recipient, {
      type: 'mail',
      subject: input.subject,
      body: input.body,
      priority: input.priority,
    });
    conflictOnConstraint('message_id already exists', () =>
      insertMailRow(this.#ctx.db, {
        message_id: signed.message_id,
        from_agent_id: sender.agent.agent_id,
        from_alias: sender.alias,
        from_address: sender.address,
        from_did: signed.from_did,
        from_stable_id: signed.from_stable_id,
        to_agent_id: recipient.agent.agent_id,
        to_text: recipient.to,
        to_alias: recipient.alias,
        to_address: recipient.address,
        to_did: recipient.didKey,
        to_stable_id: recipient.stableId,
        subject: input.subject,
        body: input.body,
        priority: input.priority,
        signature: signed.signature,
        signed_payload: signed.signed_payload,
        created_at: signed.timestamp,
        origin: 'local',
        from_node: null,
      }),
    );
    const delivery: Delivery = {
      message_id: signed.message_id,
      to: recipient.to,
      to_alias: recipient.agent.project_id === sender.agent.project_id ? recipient.alias : null,
      to_address: recipient.address,
      to_did: recipient.didKey,
      to_stable_id: recipient.stableId,
      status: 'delivered',
    };
    return { delivery, agentId: recipient.agent.agent_id as string | null, deliveredAt: signed.timestamp };
  }

  /**
   * The caller's mail, newest first (by arrival), with `before` paging: the inbox folder (neither
   * archived nor deleted) unless `folder` says otherwise; a `message_id` lookup without a folder
   * finds the message in either. Deleted mail is never listed.
   */
  inbox(agentId: string, query: InboxInput): InboxPage {
    const { db } = this.#ctx;
    const where = ['to_agent_id = ?', 'deleted_at IS NULL'];
    const params: (string | number)[] = [agentId];
    const folder = query.folder ?? (query.message_id === undefined ? 'inbox' : null);
    if (folder === 'inbox') where.push('archived_at IS NULL');
    else if (folder === 'archive') where.push('archived_at IS NOT NULL');
    if (query.unread_only) where.push('read_at IS NULL');
    if (query.message_id !== undefined) {
      where.push('message_id = ?');
      params.push(query.message_id);
    }
    if (query.before !== undefined) {
      const cursor = db.prepare(`SELECT id FROM messages WHERE to_agent_id = ? AND message_id = ?`).pluck().get(agentId, query.before) as
        | number
        | undefined;
      if (cursor === undefined) {
        throw invalid([{ loc: ['query', 'before'], msg: `no message ${query.before} in this inbox`, type: 'value_error' }]);
      }
      where.push('id < ?');
      params.push(cursor);
    }
    const rows = db
      .prepare(`SELECT * FROM messages WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT +?`)
      .all(...params, query.limit + 1) as MessageRow[];
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    const messages = page.map((row) => this.#item(agentId, row));
    return { messages, has_more: hasMore, next_before: hasMore ? (page.at(-1)?.message_id ?? null) : null };
  }

  #item(agentId: string, row: MessageRow): MailMessage {
    const { id: _id, to_agent_id: _to, to_text: _text, deleted_at: _deleted, ...fields } = row;
    // The sender as it signed: its key, stable id and address at the time (a bounce is this node).
    const sender = { didKey: row.from_did, stableId: row.from_stable_id, address: row.from_address };
    return {
      ...fields,
      is_contact: row.origin !== 'bounce' && isContact(this.#ctx.db, agentId, sender),
      signature_status: signatureStatus(row),
      from_namespace_trust: senderNamespaceTrust(this.#namespaces, { ...row, remote: row.origin === 'remote' }),
    };
  }

  /**
   * Marks one of the caller's messages read; acknowledging again keeps the first time. A message
   * the caller deleted is no longer in its inbox (404).
   */
  ack(agentId: string, messageId: string): MailAcknowledged {
    const { db, clock, bus } = this.#ctx;
    const { readAt, changed } = db.transaction(() => {
      const { changes } = db
        .prepare(`UPDATE messages SET read_at = ? WHERE message_id = ? AND to_agent_id = ? AND read_at IS NULL AND deleted_at IS NULL`)
        .run(clock.now().toISOString(), messageId, agentId);
      const at = db.prepare(`SELECT read_at FROM messages WHERE message_id = ? AND to_agent_id = ? AND deleted_at IS NULL`).pluck().get(messageId, agentId);
      return { readAt: at as string | undefined, changed: changes > 0 };
    })();
    if (readAt === undefined) throw notFound('Message not found');
    // Acknowledging again changes nothing the owner's UI shows.
    if (changed) publishMailChange(bus, agentId, messageId);
    else bus.publish(identityTopic(agentId));
    return { message_id: messageId, acknowledged_at: readAt };
  }

  /** Mail stored after row `afterId`, every recipient: the node-wide wake feed's source. */
  deliveredSince(afterId: number, limit: number): MessageRow[] {
    return this.#ctx.db.prepare(`SELECT * FROM messages WHERE id > ? ORDER BY id LIMIT +?`).all(afterId, limit) as MessageRow[];
  }

  lastId(): number {
    return this.#ctx.db.prepare(`SELECT COALESCE(MAX(id), 0) FROM messages`).pluck().get() as number;
  }

  /**
   * Unread mail for the event stream, oldest first: with `afterId` null the newest
   * `snapshotLimit`, otherwise everything that arrived after the message with id `afterId`.
   * Archived and deleted mail is never pending (folders.ts marks it read as well; this holds even
   * for a message archived between its arrival and the stream reading it).
   */
  unread(agentId: string, afterId: number | null, snapshotLimit: number): MessageRow[] {
    const { db } = this.#ctx;
    const pending = `to_agent_id = ? AND read_at IS NULL AND archived_at IS NULL AND deleted_at IS NULL`;
    if (afterId === null) {
      const rows = db.prepare(`SELECT * FROM messages WHERE ${pending} ORDER BY id DESC LIMIT +?`).all(agentId, snapshotLimit) as MessageRow[];
      return rows.reverse();
    }
    return db.prepare(`SELECT * FROM messages WHERE ${pending} AND id > ? ORDER BY id`).all(agentId, afterId) as MessageRow[];
  }
}
