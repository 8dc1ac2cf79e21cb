/**
 * The durable outbox of mail and chat to identities on other nodes (DESIGN §8). A send writes the signed
 * message here in the same transaction as everything else it writes, so an acknowledged send is
 * never lost; this worker then delivers it to `POST {node}/v1/federation/messages`.
 *
 * - Delivered (2xx): settled. The receiver deduplicates by message_id, so a retry after a lost
 *   answer is harmless and delivery is exactly once as far as the recipient can see.
 * - Refused (4xx other than 408/429): settled as bounced, and the sender finds a bounce in its
 *   inbox with the receiving node's reason (refusal-reason.ts: its JSON `detail` only, cleaned).
 * - Anything else (no node known for the domain, unreachable, timed out, an answer too large or
 *   a redirect, 5xx, 408, 429): retried with exponential backoff; after `giveUpAfterMs` it
 *   bounces with the last error.
 *
 * Delivery goes through the outbound client (server/net/remote-client.ts), and `last_error` and
 * bounces say what failed in our words: a remote body other than a well-formed refusal detail is
 * never stored or shown.
 *
 * Rows carry their next attempt time, so a restarted node simply picks up where it left off.
 */
import type { NodeContext } from '../context.ts';
import { identityTopic } from '../events/bus.ts';
import type { RemoteAnswer, RemoteClient } from '../net/remote-client.ts';
import { RemoteError, type RemoteErrorKind } from '../net/remote-error.ts';
import { findIdentity } from '../surfaces/core/identities/store.ts';
import { storeBounce, type RemoteQueue } from '../surfaces/core/messaging/delivery.ts';
import type { NodeDirectory } from './directory.ts';
import {
  dueOutboxRows,
  insertOutboxRow,
  makeDomainDue,
  nextOutboxAttempt,
  outboxRowsFrom,
  scheduleRetry,
  settleBounced,
  settleDelivered,
  subjectOf,
  toOutboundMail,
  type OutboxRow,
} from './outbox-store.ts';
import { refusalReason } from './refusal-reason.ts';
import type { FederatedMessage } from '../../contract/core/federation.ts';
import type { OutboundMail } from '../../contract/core/mail.ts';

export interface OutboxOptions {
  /** The first retry's delay; each later one doubles, up to `retryMaxMs`. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A message still undelivered this long after it was sent bounces. */
  giveUpAfterMs: number;
  /** One delivery attempt, connecting to reading the answer (the receiver checks the sender first). */
  deliveryTimeoutMs: number;
}

export const DEFAULT_OUTBOX_OPTIONS: OutboxOptions = {
  retryBaseMs: 2_000,
  retryMaxMs: 10 * 60_000,
  giveUpAfterMs: 3 * 24 * 3600_000,
  deliveryTimeoutMs: 15_000,
};

type Outcome = { kind: 'delivered'; url: string } | { kind: 'retry'; error: string } | { kind: 'bounce'; reason: string };

/** Rows delivered at once; the rest follow in the next round. */
const BATCH = 16;
/**
 * The largest answer a receiving node may give to a delivery: `{message_id, status}` or a
 * `{detail}` refusal, a few hundred bytes (a full validation list is under 4 KiB).
 */
export const DELIVERY_ANSWER_MAX_BYTES = 16 * 1024;
/** Failures that mean the receiving node was not reached at all (the rest are bad answers). */
const NOT_REACHED: ReadonlySet<RemoteErrorKind> = new Set(['unreachable', 'timed-out', 'refused-address', 'busy']);
/** The worker re-checks at least this often, so a clock moved by tests or NTP is noticed. */
const MAX_SLEEP_MS = 60_000;

export class FederationOutbox implements RemoteQueue {
  readonly #ctx: NodeContext;
  readonly #directory: NodeDirectory;
  readonly #remote: RemoteClient;
  readonly #options: OutboxOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = true;

  constructor(ctx: NodeContext, directory: NodeDirectory, remote: RemoteClient, options: Partial<OutboxOptions> = {}) {
    this.#ctx = ctx;
    this.#directory = directory;
    this.#remote = remote;
    this.#options = { ...DEFAULT_OUTBOX_OPTIONS, ...options };
  }

  /** Queues a signed message; call it inside the send's transaction, then `nudge()` after commit. */
  enqueue(fromAgentId: string, toDomain: string, message: FederatedMessage): void {
    insertOutboxRow(this.#ctx.db, fromAgentId, toDomain, message, this.#ctx.clock.now().toISOString());
  }

  /** The identity's sends to other nodes, newest first. */
  sentBy(agentId: string, limit = 100): OutboundMail[] {
    return outboxRowsFrom(this.#ctx.db, agentId, limit).map(toOutboundMail);
  }

  start(): void {
    this.#stopped = false;
    this.nudge();
  }

  /** Something was queued (or a peer added): deliver what is due now. */
  nudge(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#pump(), 0);
  }

  /** Mail waiting for `domain` is tried again now (its node was just added or changed). */
  retryNow(domain: string): void {
    makeDomainDue(this.#ctx.db, domain, this.#ctx.clock.now().toISOString());
    this.nudge();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #pump(): Promise<void> {
    if (this.#running !== null) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          const due = dueOutboxRows(this.#ctx.db, this.#ctx.clock.now().toISOString(), BATCH);
          await Promise.all(due.map((row) => this.#attempt(row)));
          if (due.length === BATCH) this.#again = true;
        } while (this.#again && !this.#stopped);
      } finally {
        this.#running = null;
        this.#sleep();
      }
    })();
    return this.#running;
  }

  /** Sleeps until the next queued row is due (or MAX_SLEEP_MS). */
  #sleep(): void {
    if (this.#stopped) return;
    const next = nextOutboxAttempt(this.#ctx.db);
    if (next === null) return;
    const delay = Math.min(Math.max(0, Date.parse(next) - this.#ctx.clock.now().getTime()), MAX_SLEEP_MS);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#pump(), delay);
    this.#timer.unref?.();
  }

  async #attempt(row: OutboxRow): Promise<void> {
    let outcome = await this.#deliver(row);
    const age = this.#ctx.clock.now().getTime() - Date.parse(row.created_at);
    if (outcome.kind === 'retry' && age >= this.#options.giveUpAfterMs) {
      outcome = { kind: 'bounce', reason: `gave up after ${row.attempts + 1} attempts over ${Math.round(age / 3600_000)} h; the last error was: ${outcome.error}` };
    }
    this.#settle(row, outcome);
  }

  async #deliver(row: OutboxRow): Promise<Outcome> {
    const node = await this.#directory.locate(row.to_domain);
    if (node === null) return { kind: 'retry', error: `no node is known for ${row.to_domain} (no peer entry and no node= in its _svcid DNS record)` };
    let answer: RemoteAnswer;
    try {
      answer = await this.#remote.request(node, {
        method: 'POST',
        path: '/v1/federation/messages',
        json: row.payload,
        maxBytes: DELIVERY_ANSWER_MAX_BYTES,
        timeoutMs: this.#options.deliveryTimeoutMs,
      });
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      return { kind: 'retry', error: NOT_REACHED.has(error.kind) ? `could not reach ${node.url} (${error.message})` : `${node.url} gave no usable answer (${error.message})` };
    }
    const { status } = answer;
    if (status >= 200 && status < 300) return { kind: 'delivered', url: node.url };
    const refused = status >= 400 && status < 500 && status !== 408 && status !== 429;
    if (refused) return { kind: 'bounce', reason: `the node for ${row.to_domain} (${node.url}) refused it: ${refusalReason(answer) ?? `it answered ${status}`}` };
    return { kind: 'retry', error: `${node.url} answered ${status}` };
  }

  #settle(row: OutboxRow, outcome: Outcome): void {
    const { db, clock, bus } = this.#ctx;
    const now = clock.now();
    const at = now.toISOString();
    const attempts = row.attempts + 1;
    db.transaction(() => {
      if (outcome.kind === 'delivered') {
        settleDelivered(db, row.id, attempts, outcome.url, at);
      } else if (outcome.kind === 'retry') {
        const delay = Math.min(this.#options.retryMaxMs, this.#options.retryBaseMs * 2 ** (attempts - 1)) * (0.8 + 0.2 * Math.random());
        scheduleRetry(db, row.id, attempts, outcome.error, new Date(now.getTime() + delay).toISOString());
      } else {
        settleBounced(db, row.id, attempts, outcome.reason, at);
        this.#writeBounce(row, outcome.reason, at);
      }
    }).immediate();
    if (outcome.kind === 'bounce') bus.publish(identityTopic(row.from_agent_id));
  }

  /** The sender learns why: a message from this node in its own inbox. */
  #writeBounce(row: OutboxRow, reason: string, now: string): void {
    const sender = findIdentity(this.#ctx.db, row.from_agent_id);
    if (sender === undefined) return;
    const message = JSON.parse(row.payload) as FederatedMessage;
    const body = [
      `Your ${message.kind === 'chat' ? 'chat message' : 'message'} to ${row.to_address} could not be delivered.`,
      '',
      `Reason: ${reason}`,
      '',
      `Message id: ${row.message_id}`,
      `Sent: ${row.created_at}`,
    ].join('\n');
    storeBounce(this.#ctx.db, sender, { from: message.from, subject: `Undeliverable: ${subjectOf(message) || '(no subject)'}`.slice(0, 256), body, at: now });
  }
}
