/**
 * The `federation_outbox` table: one row per signed message to an identity on another node, with
 * its delivery state. The only module that writes it (outbox.ts drives it); mail's Sent view reads
 * its mail rows too (core/mail/store/sent.ts).
 */
import type { FederatedMessage } from '../../contract/core/federation.ts';
import type { OutboundMail, OutboundStatus } from '../../contract/core/mail.ts';
import type { PeerQueue } from '../../contract/node/peers.ts';
import type { Db } from '../context.ts';

export interface OutboxRow {
  id: number;
  message_id: string;
  kind: FederatedMessage['kind'];
  from_agent_id: string;
  /** The recipient's address and its domain (what the node directory resolves). */
  to_address: string;
  to_domain: string;
  /**
   * The signed message (JSON of the wire shape): sent exactly as it is, unless `content_mode` is
   * `encrypted_v2` and the node sealed nothing yet (`sealed_by_client` 0), when it is the sender's
   * own copy, sealed anew at each delivery (outbox-sealing.ts).
   */
  payload: string;
  content_mode: 'legacy_plaintext_v1' | 'encrypted_v2';
  /**
   * 1: an envelope the sender's client sealed (a self-custodial identity), sent as it is until its
   * five-minute ingestion window closes, then bounced (outbox-sealing.ts).
   */
  sealed_by_client: 0 | 1;
  /** The linked device that sent it and delivers it; null for this device's own (migration 0052). */
  sent_by_device: string | null;
  status: OutboundStatus;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  /** Where it was delivered (the node's origin) once it was. */
  delivered_to: string | null;
  created_at: string;
  settled_at: string | null;
}

/**
 * Queued now, due at once. `contentMode` `encrypted_v2` is sealed at delivery, unless
 * `sealedByClient`: then the message carries its client's envelope already and goes as it is.
 */
export function insertOutboxRow(
  db: Db,
  fromAgentId: string,
  toDomain: string,
  message: FederatedMessage,
  now: string,
  contentMode: OutboxRow['content_mode'] = 'legacy_plaintext_v1',
  sealedByClient = false,
): void {
  db.prepare(
    `INSERT INTO federation_outbox (message_id, kind, from_agent_id, to_address, to_domain, payload, next_attempt_at, created_at, content_mode, sealed_by_client)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(message.message_id, message.kind, fromAgentId, message.to, toDomain, JSON.stringify(message), now, now, contentMode, sealedByClient ? 1 : 0);
}

/** The identity's sends, newest first. */
export function outboxRowsFrom(db: Db, agentId: string, limit: number): OutboxRow[] {
  return db.prepare(`SELECT * FROM federation_outbox WHERE from_agent_id = ? ORDER BY id DESC LIMIT +?`).all(agentId, limit) as OutboxRow[];
}

/** The domains with queued rows due by `now`. */
export function dueDomains(db: Db, now: string): string[] {
  return db
    .prepare(`SELECT DISTINCT to_domain FROM federation_outbox WHERE status = 'queued' AND sent_by_device IS NULL AND next_attempt_at <= ?`)
    .pluck()
    .all(now) as string[];
}

/**
 * Rows to `domains` due by `now`, in send order, each only when no earlier queued row from the same
 * sender to the same recipient is waiting (in flight, or backing off): so a pair's messages leave
 * one after another, never overtaking. `inFlight` (ids): rows a delivery of this process holds now,
 * which are not due, nor are their pairs' later rows, even once their lease has run out (a delivery
 * of one message per request to an older node may take longer than one request's lease).
 */
export function dueRowsFor(db: Db, domains: string[], now: string, limit: number, inFlight: number[] = []): OutboxRow[] {
  return db
    .prepare(
      `SELECT o.* FROM federation_outbox o
       WHERE o.status = 'queued' AND o.sent_by_device IS NULL AND o.to_domain IN (SELECT value FROM json_each(?)) AND o.next_attempt_at <= ?
         AND o.id NOT IN (SELECT value FROM json_each(?))
         AND NOT EXISTS (
           SELECT 1 FROM federation_outbox e
           WHERE e.status = 'queued' AND e.sent_by_device IS NULL AND e.from_agent_id = o.from_agent_id AND e.to_address = o.to_address AND e.id < o.id
             AND (e.next_attempt_at > ? OR e.id IN (SELECT value FROM json_each(?)))
         )
       ORDER BY o.id LIMIT +?`,
    )
    .all(JSON.stringify(domains), now, JSON.stringify(inFlight), now, JSON.stringify(inFlight), limit) as OutboxRow[];
}

/** The rows are in flight until `until`: not due before it, nor are their pairs' later rows. After a crash they are simply due again then. */
export function leaseRows(db: Db, ids: number[], until: string): void {
  db.prepare(`UPDATE federation_outbox SET next_attempt_at = ? WHERE id IN (SELECT value FROM json_each(?))`).run(until, JSON.stringify(ids));
}

/** Every queued row to `domains` waits until at least `until` (their node asked us to wait, or is down). */
export function deferDomains(db: Db, domains: string[], until: string): void {
  db.prepare(
    `UPDATE federation_outbox SET next_attempt_at = ? WHERE status = 'queued' AND sent_by_device IS NULL AND to_domain IN (SELECT value FROM json_each(?)) AND next_attempt_at < ?`,
  ).run(until, JSON.stringify(domains), until);
}

/**
 * When the next queued row falls due after `now`; null when none will. Rows due already are not
 * asked: each waits for a delivery in flight, which wakes the worker when it settles.
 */
export function nextOutboxAttempt(db: Db, now: string): string | null {
  return db
    .prepare(`SELECT min(next_attempt_at) FROM federation_outbox WHERE status = 'queued' AND sent_by_device IS NULL AND next_attempt_at > ?`)
    .pluck()
    .get(now) as string | null;
}

/** What waits for `domain`: how many rows, the oldest, the next try, and the newest error. */
export function queueOf(db: Db, domain: string): PeerQueue {
  const summary = db
    .prepare(
      `SELECT count(*) AS queued, min(created_at) AS oldest_queued_at, min(next_attempt_at) AS next_attempt_at FROM federation_outbox WHERE status = 'queued' AND sent_by_device IS NULL AND to_domain = ?`,
    )
    .get(domain) as Omit<PeerQueue, 'last_error'>;
  const lastError = db
    .prepare(
      `SELECT last_error FROM federation_outbox WHERE status = 'queued' AND sent_by_device IS NULL AND to_domain = ? AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1`,
    )
    .pluck()
    .get(domain) as string | undefined;
  return { ...summary, last_error: lastError ?? null };
}

/** Every queued row for `domain` is due at `now`, but those in flight (`inFlight`: their ids), whose lease stands. */
export function makeDomainDue(db: Db, domain: string, now: string, inFlight: number[] = []): void {
  db.prepare(
    `UPDATE federation_outbox SET next_attempt_at = ? WHERE status = 'queued' AND sent_by_device IS NULL AND to_domain = ? AND id NOT IN (SELECT value FROM json_each(?))`,
  ).run(now, domain, JSON.stringify(inFlight));
}

export function settleDelivered(db: Db, id: number, attempts: number, deliveredTo: string, now: string): void {
  db.prepare(`UPDATE federation_outbox SET status = 'delivered', attempts = ?, delivered_to = ?, last_error = NULL, settled_at = ? WHERE id = ?`).run(
    attempts,
    deliveredTo,
    now,
    id,
  );
}

/** Still queued, tried again at `nextAttemptAt`. */
export function scheduleRetry(db: Db, id: number, attempts: number, error: string, nextAttemptAt: string): void {
  db.prepare(`UPDATE federation_outbox SET attempts = ?, last_error = ?, next_attempt_at = ? WHERE id = ?`).run(attempts, error, nextAttemptAt, id);
}

export function settleBounced(db: Db, id: number, attempts: number, reason: string, now: string): void {
  db.prepare(`UPDATE federation_outbox SET status = 'bounced', attempts = ?, last_error = ?, settled_at = ? WHERE id = ?`).run(attempts, reason, now, id);
}

/**
 * What a sender calls the message: mail's subject, or the start of a chat message (a chat message
 * its client sealed has no words here: the node never had them).
 */
export function subjectOf(message: FederatedMessage): string {
  if (message.kind === 'mail') return message.subject;
  if (message.body === '' && message.encrypted_envelope !== undefined) return 'Chat: (end-to-end encrypted)';
  const text = message.body.replace(/\s+/g, ' ').trim();
  return `Chat: ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
}

/** The row on the outbound list: its state, and the subject instead of the payload. */
export function toOutboundMail(row: OutboxRow): OutboundMail {
  const { id: _id, payload, from_agent_id: _from, content_mode: _mode, sealed_by_client: _client, sent_by_device: _device, ...entry } = row;
  return { ...entry, subject: subjectOf(JSON.parse(payload) as FederatedMessage) };
}
