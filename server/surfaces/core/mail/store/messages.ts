/**
 * The `messages` table: one row per mail per recipient. A row is the recipient's copy (its inbox,
 * archive, read and deleted state) and, for mail sent on this node, the sender's too (Sent reads
 * it, see sent.ts). The one writer of mail rows: every statement that inserts or changes one is
 * here. Its one insert is called only by ../delivery.ts, which every kind of mail (sent here,
 * arrived, bounced) goes through; its changes only by the recipient's actions (../service.ts,
 * ../folders.ts). Beside it only reads: Sent's (sent.ts) and search's index
 * (server/search/store/mail.ts).
 */
import type { MailFolderState, MailMessage, MailOrigin, Priority } from '../../../../../contract/core/mail.ts';
import type { Db } from '../../../../context.ts';

export interface MessageRow {
  id: number;
  message_id: string;
  /** Null for mail from another node and for bounces. */
  from_agent_id: string | null;
  from_alias: string;
  from_address: string | null;
  /** The did:key the sender signed with. */
  from_did: string;
  from_stable_id: string | null;
  /** Who it is stored for, and how the sender addressed it. */
  to_agent_id: string;
  to_text: string;
  to_alias: string;
  to_address: string | null;
  to_did: string;
  to_stable_id: string | null;
  subject: string;
  body: string;
  priority: Priority;
  signature: string;
  signed_payload: string;
  created_at: string;
  read_at: string | null;
  origin: MailOrigin;
  /** The sending node's origin, for remote mail. */
  from_node: string | null;
  /** For remote mail: whether the sender's namespace was found DNS-verified on arrival. */
  from_namespace_trust: 'verified' | 'unverified' | null;
  archived_at: string | null;
  /** Ours (folders.ts): when the recipient deleted it from its inbox. */
  deleted_at: string | null;
  /** The thread the sender named (upstream E1's `thread_id`). */
  thread_id: string | null;
  /** `encrypted_v2`: the row holds the envelope, and subject and body are empty (what the node opened is in the opened_ columns, for the reads of its own side). */
  content_mode: 'legacy_plaintext_v1' | 'encrypted_v2';
  /** The normalised envelope, as JSON, for `encrypted_v2`. */
  encrypted_envelope: string | null;
}

/**
 * A new row: the recipient's state starts empty; `from_namespace_trust` is only known for remote
 * mail, `thread_id` only when the send named one; `opened`, what the node opened of an encrypted
 * mail and for which of its parties.
 */
export type NewMailRow = Omit<
  MessageRow,
  'id' | 'read_at' | 'from_namespace_trust' | 'archived_at' | 'deleted_at' | 'thread_id' | 'content_mode' | 'encrypted_envelope'
> &
  Partial<Pick<MessageRow, 'from_namespace_trust' | 'thread_id' | 'content_mode' | 'encrypted_envelope'>> & { opened?: OpenedMailKept | null };

/**
 * A row's columns as stored, one by one for `alias`. Reads name them rather than take `*`, which
 * would bring the opened text along (migration 0049) to a reader it is not for.
 */
const STORED_COLUMNS = [
  'id',
  'message_id',
  'from_agent_id',
  'from_alias',
  'from_address',
  'from_did',
  'from_stable_id',
  'to_agent_id',
  'to_text',
  'to_alias',
  'to_address',
  'to_did',
  'to_stable_id',
  'subject',
  'body',
  'priority',
  'signature',
  'signed_payload',
  'created_at',
  'read_at',
  'origin',
  'from_node',
  'from_namespace_trust',
  'archived_at',
  'deleted_at',
  'thread_id',
  'content_mode',
  'encrypted_envelope',
] as const satisfies readonly (keyof MessageRow)[];

export function storedColumns(alias: string): string {
  return STORED_COLUMNS.map((column) => `${alias}.${column}`).join(', ');
}

/**
 * A row's subject, body, signature and signed payload as `side` reads them: what the node opened,
 * when it reads the mail for that side, else as stored (a plaintext mail's own, an encrypted
 * mail's empty ones). The signature is the sender's plaintext one only when the node sealed the
 * mail (it then also kept the payload it signed).
 */
export function contentAsReadBy(alias: string, side: 'sender' | 'recipient'): string {
  const opened = `${alias}.${side}_reads = 1`;
  const signed = `${opened} AND ${alias}.opened_signed_payload <> ''`;
  return [
    `CASE WHEN ${opened} THEN ${alias}.opened_subject ELSE ${alias}.subject END AS subject`,
    `CASE WHEN ${opened} THEN ${alias}.opened_body ELSE ${alias}.body END AS body`,
    `CASE WHEN ${signed} THEN ${alias}.opened_signature ELSE ${alias}.signature END AS signature`,
    `CASE WHEN ${signed} THEN ${alias}.opened_signed_payload ELSE ${alias}.signed_payload END AS signed_payload`,
  ].join(', ');
}

/** What the reader learns about a stored row at read time (the service works these out). */
export type InboxJudgement = Pick<
  MailMessage,
  | 'is_contact'
  | 'signature_status'
  | 'from_namespace_trust'
  | 'from_address'
  | 'signing_key_id'
  | 'rotation_announcement'
  | 'replacement_announcement'
  | 'end_to_end'
  | 'content_mode'
  | 'message_version'
  | 'encrypted_envelope'
  | 'conversation_id'
  | 'subject'
  | 'body'
  | 'signature'
>;

/**
 * Stores the row and returns its row id. Throws SQLite's constraint error when the message_id is
 * taken (delivery.ts decides what that means).
 */
export function insertMailRow(db: Db, row: NewMailRow): number {
  const { opened, ...stored } = row;
  const kept = opened != null && (opened.readers.sender || opened.readers.recipient) ? opened : null;
  const { lastInsertRowid } = db
    .prepare(
      `INSERT INTO messages (message_id, from_agent_id, from_alias, from_address, from_did, from_stable_id, to_agent_id, to_text, to_alias,
       to_address, to_did, to_stable_id, subject, body, priority, signature, signed_payload, created_at, origin, from_node, from_namespace_trust,
       thread_id, content_mode, encrypted_envelope, sender_reads, recipient_reads, opened_subject, opened_body, opened_signature, opened_signed_payload)
     VALUES (@message_id, @from_agent_id, @from_alias, @from_address, @from_did, @from_stable_id, @to_agent_id, @to_text, @to_alias,
       @to_address, @to_did, @to_stable_id, @subject, @body, @priority, @signature, @signed_payload, @created_at, @origin, @from_node,
       @from_namespace_trust, @thread_id, @content_mode, @encrypted_envelope, @sender_reads, @recipient_reads, @opened_subject, @opened_body,
       @opened_signature, @opened_signed_payload)`,
    )
    .run({
      ...stored,
      from_namespace_trust: stored.from_namespace_trust ?? null,
      thread_id: stored.thread_id ?? null,
      content_mode: stored.content_mode ?? 'legacy_plaintext_v1',
      encrypted_envelope: stored.encrypted_envelope ?? null,
      sender_reads: kept?.readers.sender === true ? 1 : 0,
      recipient_reads: kept?.readers.recipient === true ? 1 : 0,
      opened_subject: kept?.text.subject ?? null,
      opened_body: kept?.text.body ?? null,
      opened_signature: kept?.text.signature ?? null,
      opened_signed_payload: kept?.text.signed_payload ?? null,
    });
  return Number(lastInsertRowid);
}

/** What an identity whose keys the node holds reads of an encrypted mail: its content, and the sender's plaintext signature when the node sealed it. */
export interface OpenedMail {
  subject: string;
  body: string;
  signature: string;
  signed_payload: string;
}

/**
 * Which of a mail's two parties the node reads it for: those whose keys it holds (it sealed the
 * mail for them, or opened it with their key). Both read the same text, kept once.
 */
export interface OpenedMailReaders {
  sender: boolean;
  recipient: boolean;
}

/** What the node opened of an encrypted mail, kept in its row, and for which of its parties. */
export interface OpenedMailKept {
  readers: OpenedMailReaders;
  text: OpenedMail;
}

/**
 * The recipient's rows as it reads them: an encrypted mail's subject and body (and the sender's
 * plaintext signature, when the node sealed it) are what the node opened for the recipient, and
 * stay as stored (empty) for a recipient holding its own keys.
 */
const RECIPIENT_ROWS = `SELECT ${storedColumns('m')}, ${contentAsReadBy('m', 'recipient')} FROM messages m`;

/** Which key stored a message under this id, and from where (a retried delivery finds its own row). */
export function findMailOrigin(db: Db, messageId: string): Pick<MessageRow, 'from_did' | 'origin'> | undefined {
  return db.prepare(`SELECT from_did, origin FROM messages WHERE message_id = ?`).get(messageId) as Pick<MessageRow, 'from_did' | 'origin'> | undefined;
}

// ------------------------------------------------------------------ the recipient's inbox

export interface InboxFilter {
  /** `inbox`: neither archived nor deleted; `archive`: archived; null: either. Deleted mail never. */
  folder: 'inbox' | 'archive' | null;
  unreadOnly: boolean;
  messageId?: string;
  /** Only this thread: the message with this id and every mail that names it as its thread. */
  threadId?: string;
  /** Only rows older than this row id (the `before` cursor). */
  beforeId?: number;
  limit: number;
}

/** The row id of a message in this inbox (deleted or not), for paging with `before`. */
export function inboxRowId(db: Db, agentId: string, messageId: string): number | undefined {
  return db.prepare(`SELECT id FROM messages WHERE to_agent_id = ? AND message_id = ?`).pluck().get(agentId, messageId) as number | undefined;
}

/** The recipient's mail, newest first (by arrival). */
export function inboxRows(db: Db, agentId: string, filter: InboxFilter): MessageRow[] {
  const where = ['m.to_agent_id = ?', 'm.deleted_at IS NULL'];
  const params: (string | number)[] = [agentId];
  if (filter.folder === 'inbox') where.push('m.archived_at IS NULL');
  else if (filter.folder === 'archive') where.push('m.archived_at IS NOT NULL');
  if (filter.unreadOnly) where.push('m.read_at IS NULL');
  if (filter.messageId !== undefined) {
    where.push('m.message_id = ?');
    params.push(filter.messageId);
  }
  if (filter.threadId !== undefined) {
    // By the thread's own indexes, not by walking the whole inbox.
    where.push('m.id IN (SELECT id FROM messages WHERE thread_id = ? UNION ALL SELECT id FROM messages WHERE message_id = ?)');
    params.push(filter.threadId, filter.threadId);
  }
  if (filter.beforeId !== undefined) {
    where.push('m.id < ?');
    params.push(filter.beforeId);
  }
  return db.prepare(`${RECIPIENT_ROWS} WHERE ${where.join(' AND ')} ORDER BY m.id DESC LIMIT +?`).all(...params, filter.limit) as MessageRow[];
}

/** The inbox item: the stored fields the reader sees, with what was judged at read time. */
export function toInboxItem(row: MessageRow, judged: InboxJudgement): MailMessage {
  const { id: _id, to_agent_id: _to, to_text: _text, deleted_at: _deleted, content_mode: _mode, encrypted_envelope: _envelope, ...fields } = row;
  return { ...fields, ...judged };
}

/** Unread mail the recipient has not deleted (the only kind the event stream and badges count). */
const PENDING = `m.to_agent_id = ? AND m.read_at IS NULL AND m.archived_at IS NULL AND m.deleted_at IS NULL`;

/** The newest `limit` pending rows, oldest first. */
export function newestPendingMail(db: Db, agentId: string, limit: number): MessageRow[] {
  const rows = db.prepare(`${RECIPIENT_ROWS} WHERE ${PENDING} ORDER BY m.id DESC LIMIT +?`).all(agentId, limit) as MessageRow[];
  return rows.reverse();
}

/** Every pending row stored after row `afterId`, oldest first. */
export function pendingMailAfter(db: Db, agentId: string, afterId: number): MessageRow[] {
  return db.prepare(`${RECIPIENT_ROWS} WHERE ${PENDING} AND m.id > ? ORDER BY m.id`).all(agentId, afterId) as MessageRow[];
}

/** Unread mail in the inbox, archived and deleted mail included (they are marked read as they go). */
export function unreadMailCount(db: Db, agentId: string): number {
  return db.prepare(`SELECT COUNT(*) FROM messages WHERE to_agent_id = ? AND read_at IS NULL`).pluck().get(agentId) as number;
}

/** Mail stored after row `afterId`, for every recipient (the node-wide wake feed): as stored, so never an encrypted mail's plaintext. */
export function mailStoredSince(db: Db, afterId: number, limit: number): MessageRow[] {
  return db.prepare(`SELECT ${storedColumns('messages')} FROM messages WHERE id > ? ORDER BY id LIMIT +?`).all(afterId, limit) as MessageRow[];
}

/** The newest row id, 0 for none. */
export function lastMailRowId(db: Db): number {
  return db.prepare(`SELECT COALESCE(MAX(id), 0) FROM messages`).pluck().get() as number;
}

// ------------------------------------------------------------------ the recipient's side of a message

/** The caller's own, undeleted copy. */
const MINE = `message_id = @messageId AND to_agent_id = @agentId AND deleted_at IS NULL`;

/** A message as one recipient's own copy: what the recipient-side statements act on. */
export interface OwnMail {
  agentId: string;
  messageId: string;
}

/**
 * Marks it read; reading again keeps the first time. Undefined when it is not in the caller's
 * inbox; `changed` says whether this call marked it. Run it in a transaction.
 */
export function acknowledgeMail(db: Db, mine: OwnMail, now: string): { readAt: string; changed: boolean } | undefined {
  const { changes } = db.prepare(`UPDATE messages SET read_at = @now WHERE ${MINE} AND read_at IS NULL`).run({ ...mine, now });
  const readAt = db.prepare(`SELECT read_at FROM messages WHERE ${MINE}`).pluck().get(mine) as string | undefined;
  return readAt === undefined ? undefined : { readAt, changed: changes > 0 };
}

/** Archived (and read); archiving again keeps the first times. */
export function archiveMail(db: Db, mine: OwnMail, now: string): void {
  db.prepare(`UPDATE messages SET archived_at = COALESCE(archived_at, @now), read_at = COALESCE(read_at, @now) WHERE ${MINE}`).run({ ...mine, now });
}

export function unarchiveMail(db: Db, mine: OwnMail): void {
  db.prepare(`UPDATE messages SET archived_at = NULL WHERE ${MINE}`).run(mine);
}

/** Unread, and so back in the inbox. */
export function markMailUnread(db: Db, mine: OwnMail): void {
  db.prepare(`UPDATE messages SET read_at = NULL, archived_at = NULL WHERE ${MINE}`).run(mine);
}

/** Deleted from the caller's inbox (and read); false when it was not there. */
export function deleteMail(db: Db, mine: OwnMail, now: string): boolean {
  return db.prepare(`UPDATE messages SET deleted_at = @now, read_at = COALESCE(read_at, @now) WHERE ${MINE}`).run({ ...mine, now }).changes > 0;
}

/** Where the caller's copy is now, or undefined when it is not in the caller's inbox. */
export function mailFolderState(db: Db, mine: OwnMail): MailFolderState | undefined {
  const row = db.prepare(`SELECT archived_at, read_at FROM messages WHERE ${MINE}`).get(mine) as Pick<MessageRow, 'archived_at' | 'read_at'> | undefined;
  if (row === undefined) return undefined;
  return { message_id: mine.messageId, folder: row.archived_at === null ? 'inbox' : 'archive', archived_at: row.archived_at, read_at: row.read_at };
}

/**
 * The body, when the caller may read this row: as its recipient while it is in the inbox or
 * archive (not after deleting it), or as its sender (mail sent on this node). An encrypted mail's
 * is what the node opened, when it reads that mail for the side the caller is on.
 */
export function readableMailBody(db: Db, mine: OwnMail): string | undefined {
  return db
    .prepare(
      `SELECT CASE WHEN (m.to_agent_id = @agentId AND m.recipient_reads = 1) OR (m.from_agent_id = @agentId AND m.sender_reads = 1)
                   THEN m.opened_body ELSE m.body END
       FROM messages m
       WHERE m.message_id = @messageId
         AND ((m.to_agent_id = @agentId AND m.deleted_at IS NULL) OR (m.from_agent_id = @agentId AND m.origin = 'local'))`,
    )
    .pluck()
    .get(mine) as string | undefined;
}
