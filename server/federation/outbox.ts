/**
 * The durable outbox of mail and chat to identities on other nodes (DESIGN §8;
 * docs/adr/0005-signed-messages-and-federation.md). A send
 * writes the signed message here in the same transaction as everything else it writes, so an
 * acknowledged send is never lost; this worker then delivers it to the node that answers for the
 * recipient's domain, many messages per request (peer-delivery.ts).
 *
 * - Per peer node: the due rows of every domain it answers for, in send order, cut into batches
 *   (at most FEDERATION_BATCH_MAX_MESSAGES and FEDERATION_BATCH_MAX_BYTES each), with at most
 *   `inFlightPerPeer` requests to it at once. A row is leased while in flight (its next attempt
 *   pushed past the delivery timeout), so a crash mid-delivery only makes it due again; while this
 *   process still delivers it, it is not due whatever its lease says.
 * - Order: a row leaves only when no earlier queued row from the same sender to the same recipient
 *   is in flight or backing off (outbox-store.ts, dueRowsFor), and the receiver defers a pair's
 *   later messages in a batch once one is deferred.
 * - Flow control per peer: when the node is unreachable, answers 429/5xx, or defers with a time,
 *   its whole queue waits (its Retry-After, or a backoff per node from half `retryBaseMs` to
 *   `peerRetryMaxMs`) rather than each message backing off on its own; the next success resets it.
 * - Per message: delivered or duplicate settles it; a refusal bounces it (the sender finds the
 *   receiving node's reason in its inbox); a deferral backs it off (`retryBaseMs` doubling to
 *   `retryMaxMs`). Still undelivered after `giveUpAfterMs`, it bounces with the last error.
 *
 * Rows carry their next attempt time, so a restarted node simply picks up where it left off; the
 * receiver deduplicates by message_id, so delivery is exactly once as far as the recipient can see.
 */
import type { NodeContext } from '../context.ts';
import { identityTopic } from '../events/bus.ts';
import type { RemoteClient } from '../net/remote-client.ts';
import type { FederationCore } from './core-port.ts';
import type { NodeDirectory, NodeLocation } from './directory.ts';
import {
  deferDomains,
  dueDomains,
  dueRowsFor,
  insertOutboxRow,
  leaseRows,
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
import { PeerDelivery, type Outcome } from './peer-delivery.ts';
import { CLIENT_SEALED_STALE, clientSealedUntil, OutboxSealing } from './outbox-sealing.ts';
import type { RemoteEncryptionKeyLookup } from './remote-encryption-keys.ts';
import { FEDERATION_BATCH_MAX_BYTES, FEDERATION_BATCH_MAX_MESSAGES, type FederatedMessage } from '../../contract/core/federation.ts';
import type { OutboundMail } from '../../contract/core/mail.ts';

export { DELIVERY_ANSWER_MAX_BYTES } from './peer-delivery.ts';

export interface OutboxOptions {
  /** A deferred message's first retry delay (a failing node's first pause is half of it); each later one doubles. */
  retryBaseMs: number;
  /** The longest a deferred message backs off. */
  retryMaxMs: number;
  /** The longest a node that is down or overloaded waits between tries (one request each). */
  peerRetryMaxMs: number;
  /** A message still undelivered this long after it was sent bounces. */
  giveUpAfterMs: number;
  /** One delivery, connecting to reading the answer (the receiver checks each new sender first). */
  deliveryTimeoutMs: number;
  /** Requests to one node at once. */
  inFlightPerPeer: number;
}

export const DEFAULT_OUTBOX_OPTIONS: OutboxOptions = {
  retryBaseMs: 2_000,
  retryMaxMs: 10 * 60_000,
  peerRetryMaxMs: 10_000,
  giveUpAfterMs: 3 * 24 * 3600_000,
  deliveryTimeoutMs: 15_000,
  inFlightPerPeer: 2,
};

/** A node being delivered to: its requests in flight, its failures in a row, and until when its queue waits. */
interface PeerState {
  inFlight: number;
  failures: number;
  pausedUntil: number;
}

/** Beyond the delivery timeout, how long a lease lasts (settling takes a moment after the answer). */
const LEASE_MARGIN_MS = 5_000;
/** The worker re-checks at least this often, so a clock moved by tests or NTP is noticed. */
const MAX_SLEEP_MS = 60_000;

/**
 * The core's messaging sends through it as its RemoteQueue (enqueue, then nudge after the commit;
 * wired in core/services.ts); a bounce is the one thing it asks of the core.
 */
export class FederationOutbox {
  readonly #ctx: NodeContext;
  readonly #directory: NodeDirectory;
  readonly #core: Pick<FederationCore, 'storeBounce'>;
  readonly #delivery: PeerDelivery;
  readonly #sealing: OutboxSealing;
  readonly #options: OutboxOptions;
  readonly #peers = new Map<string, PeerState>();
  readonly #deliveries = new Set<Promise<void>>();
  /** Rows leased to a delivery now. */
  readonly #inFlight = new Set<number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the last round looked at what was due: the time the next sleep counts from. */
  #roundAt = new Date(0);
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = true;
  #onError: (error: unknown) => void = () => {};

  constructor(
    ctx: NodeContext,
    directory: NodeDirectory,
    remote: RemoteClient,
    core: Pick<FederationCore, 'storeBounce' | 'sealMail' | 'sealChat'>,
    keys: Pick<RemoteEncryptionKeyLookup, 'find'>,
    options: Partial<OutboxOptions> = {},
  ) {
    this.#ctx = ctx;
    this.#directory = directory;
    this.#core = core;
    this.#options = { ...DEFAULT_OUTBOX_OPTIONS, ...options };
    this.#delivery = new PeerDelivery(remote, this.#options.deliveryTimeoutMs, ctx.clock);
    this.#sealing = new OutboxSealing(keys, core, ctx.clock);
  }

  /** Queues a signed message; call it inside the send's transaction, then `nudge()` after commit. */
  enqueue(fromAgentId: string, toDomain: string, message: FederatedMessage, options: { sealed?: boolean; sealedByClient?: boolean } = {}): void {
    const sealedByClient = options.sealedByClient === true;
    insertOutboxRow(
      this.#ctx.db,
      fromAgentId,
      toDomain,
      message,
      this.#ctx.clock.now().toISOString(),
      options.sealed === true || sealedByClient ? 'encrypted_v2' : 'legacy_plaintext_v1',
      sealedByClient,
    );
  }

  /** The identity's sends to other nodes, newest first. */
  sentBy(agentId: string, limit = 100): OutboundMail[] {
    return outboxRowsFrom(this.#ctx.db, agentId, limit).map(toOutboundMail);
  }

  /** Starts delivering; a delivery that fails unexpectedly goes to `onError`, and its rows are due again after their lease. */
  start(onError: (error: unknown) => void = () => {}): void {
    this.#onError = onError;
    this.#stopped = false;
    this.nudge();
  }

  /** Something was queued (or a peer added, or a delivery finished): deliver what is due now. */
  nudge(): void {
    if (this.#stopped) return;
    // A round under way looks again before it sleeps (its sleep would cancel a timer set here).
    if (this.#running !== null) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#pump(), 0);
  }

  /** Mail waiting for `domain` is tried again now (its node was just added or changed). */
  retryNow(domain: string): void {
    makeDomainDue(this.#ctx.db, domain, this.#ctx.clock.now().toISOString(), [...this.#inFlight]);
    // The node may be another one now: whatever the old one said about waiting no longer holds.
    for (const peer of this.#peers.values()) Object.assign(peer, { failures: 0, pausedUntil: 0 });
    this.nudge();
  }

  /** Stops starting deliveries and waits for those in flight to settle. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    await Promise.all(this.#deliveries);
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
          await this.#dispatchDue();
          // Another #pump() sets #again while this one awaits; the types do not see that across the await.
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        } while (this.#again && !this.#stopped);
      } finally {
        this.#running = null;
        this.#sleep();
      }
    })();
    return this.#running;
  }

  /** Starts a delivery for every peer node with due rows and a free slot. */
  async #dispatchDue(): Promise<void> {
    const now = this.#ctx.clock.now();
    this.#roundAt = now;
    // A node with nothing in flight and no failures is as good as new: forget it, so the table holds
    // only the nodes being delivered to or backing off.
    for (const [url, peer] of this.#peers) if (peer.inFlight === 0 && peer.failures === 0) this.#peers.delete(url);
    const domains = dueDomains(this.#ctx.db, now.toISOString());
    const byNode = new Map<string, { node: NodeLocation; domains: string[] }>();
    for (const domain of domains) {
      const node = await this.#directory.locate(domain);
      if (this.#stopped) return;
      if (node === null) {
        this.#settle(dueRowsFor(this.#ctx.db, [domain], now.toISOString(), FEDERATION_BATCH_MAX_MESSAGES, [...this.#inFlight]), (row) => ({
          kind: 'retry',
          error: `no node is known for ${row.to_domain} (no peer entry and no node= in its _svcid DNS record)`,
        }));
        continue;
      }
      const key = `${node.via} ${node.url}`;
      const entry = byNode.get(key) ?? { node, domains: [] };
      entry.domains.push(domain);
      byNode.set(key, entry);
    }
    for (const { node, domains: nodeDomains } of byNode.values()) {
      const peer = this.#peer(node.url);
      if (peer.pausedUntil > now.getTime()) {
        // Queued since the node asked us to wait: it waits with the rest.
        deferDomains(this.#ctx.db, nodeDomains, new Date(peer.pausedUntil).toISOString());
        continue;
      }
      const free = this.#options.inFlightPerPeer - peer.inFlight;
      if (free <= 0) continue;
      const rows = dueRowsFor(this.#ctx.db, nodeDomains, this.#ctx.clock.now().toISOString(), free * FEDERATION_BATCH_MAX_MESSAGES, [...this.#inFlight]);
      for (const batch of batchesOf(rows).slice(0, free)) this.#start(node, nodeDomains, batch);
    }
  }

  /** Leases `rows`, delivers them, and settles what came back; the pump runs again when it is done. */
  #start(node: NodeLocation, domains: string[], rows: OutboxRow[]): void {
    const { db, clock } = this.#ctx;
    leaseRows(
      db,
      rows.map((row) => row.id),
      new Date(clock.now().getTime() + this.#options.deliveryTimeoutMs + LEASE_MARGIN_MS).toISOString(),
    );
    const peer = this.#peer(node.url);
    peer.inFlight += 1;
    for (const row of rows) this.#inFlight.add(row.id);
    const delivery = (async () => {
      // Mail sealed as it leaves: what cannot be sealed is settled without being sent.
      const prepared = await this.#sealing.prepare(rows);
      const sendable = prepared.flatMap((p) => ('row' in p ? [p.row] : []));
      const sent = sendable.length === 0 ? [] : await this.#delivery.deliver(node, sendable);
      let next = 0;
      const outcomes = prepared.map((p) => ('row' in p ? sent[next++]! : p.outcome));
      const pause = this.#peerPause(peer, outcomes);
      // Whole milliseconds: the rows' times are ISO strings, and a pause a fraction of a
      // millisecond past them would keep them waiting with no timer to end it.
      if (pause !== null) peer.pausedUntil = Math.ceil(clock.now().getTime() + pause);
      this.#settle(rows, (_row, i) => outcomes[i]!, pause === null ? undefined : { domains, untilMs: peer.pausedUntil });
    })()
      .catch((error: unknown) => this.#onError(error))
      .finally(() => {
        peer.inFlight -= 1;
        for (const row of rows) this.#inFlight.delete(row.id);
        this.#deliveries.delete(delivery);
        this.nudge();
      });
    this.#deliveries.add(delivery);
  }

  #peer(url: string): PeerState {
    let peer = this.#peers.get(url);
    if (peer === undefined) {
      peer = { inFlight: 0, failures: 0, pausedUntil: 0 };
      this.#peers.set(url, peer);
    }
    return peer;
  }

  /** How long the node's whole queue waits after these outcomes: null when it need not. */
  #peerPause(peer: PeerState, outcomes: Outcome[]): number | null {
    const wide = outcomes.filter((o): o is Extract<Outcome, { kind: 'retry' }> => o.kind === 'retry' && o.peerWide === true);
    if (wide.length === 0) {
      peer.failures = 0;
      return null;
    }
    const named = Math.max(...wide.map((o) => o.afterMs ?? 0));
    // A second request that failed the same way while the node's queue already waits is the same
    // failure: it keeps the pause rather than doubling it.
    const waiting = peer.pausedUntil - this.#ctx.clock.now().getTime();
    if (waiting > 0 && named === 0) return waiting;
    peer.failures += 1;
    // Half a message's first backoff: one request tells whether the node is back, and a node
    // restarting is back within seconds.
    const backoff = Math.min(this.#options.peerRetryMaxMs, (this.#options.retryBaseMs / 2) * 2 ** (peer.failures - 1));
    return named > 0 ? named : backoff * (0.8 + 0.2 * Math.random());
  }

  /**
   * Sleeps until the next queued row falls due (or MAX_SLEEP_MS); a delivery settling wakes it
   * sooner. "Next" counts from when the round looked, not from now: a row that fell due while the
   * round was under way (a slow DNS lookup, a timer that fired a moment early) was never looked at,
   * and nothing else would wake the worker for it.
   */
  #sleep(): void {
    if (this.#stopped) return;
    const next = nextOutboxAttempt(this.#ctx.db, this.#roundAt.toISOString());
    if (next === null) return;
    const delay = Math.min(Math.max(0, Date.parse(next) - this.#ctx.clock.now().getTime()), MAX_SLEEP_MS);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#pump(), delay);
    this.#timer.unref();
  }

  /**
   * Writes each row's outcome in one transaction: delivered, bounced (with the sender's bounce), or
   * tried again later, at the peer's pause when its whole queue waits (`pause`), which every other
   * queued row to its domains then waits for too.
   */
  #settle(rows: OutboxRow[], outcomeOf: (row: OutboxRow, index: number) => Outcome, pause?: { domains: string[]; untilMs: number }): void {
    if (rows.length === 0) return;
    const { db, clock, bus } = this.#ctx;
    const now = clock.now();
    const at = now.toISOString();
    const bounced = new Set<string>();
    db.transaction(() => {
      for (const [index, row] of rows.entries()) {
        let outcome = outcomeOf(row, index);
        const attempts = row.attempts + 1;
        const age = now.getTime() - Date.parse(row.created_at);
        if (outcome.kind === 'retry' && age >= this.#options.giveUpAfterMs) {
          outcome = { kind: 'bounce', reason: `gave up after ${attempts} attempts over ${Math.round(age / 3600_000)} h; the last error was: ${outcome.error}` };
        }
        const retryAt = outcome.kind === 'retry' ? (pause?.untilMs ?? now.getTime() + this.#rowDelay(attempts, outcome)) : 0;
        // A client's envelope that would be stale by its next try is bounced now rather than then.
        const freshUntil = clientSealedUntil(row);
        if (outcome.kind === 'retry' && freshUntil !== null && retryAt >= freshUntil) {
          outcome = { kind: 'bounce', reason: `${CLIENT_SEALED_STALE} (the last error was: ${outcome.error})` };
        }
        if (outcome.kind === 'delivered') {
          settleDelivered(db, row.id, attempts, outcome.url, at);
        } else if (outcome.kind === 'retry') {
          scheduleRetry(db, row.id, attempts, outcome.error, new Date(retryAt).toISOString());
        } else {
          settleBounced(db, row.id, attempts, outcome.reason, at);
          this.#writeBounce(row, outcome.reason, at);
          bounced.add(row.from_agent_id);
        }
      }
      if (pause !== undefined) deferDomains(db, pause.domains, new Date(pause.untilMs).toISOString());
    }).immediate();
    for (const agentId of bounced) bus.publish(identityTopic(agentId));
  }

  /** A message's own backoff: the time its node named, else exponential in its attempts. */
  #rowDelay(attempts: number, outcome: Extract<Outcome, { kind: 'retry' }>): number {
    if (outcome.afterMs !== undefined) return outcome.afterMs;
    return Math.min(this.#options.retryMaxMs, this.#options.retryBaseMs * 2 ** (attempts - 1)) * (0.8 + 0.2 * Math.random());
  }

  /** The sender learns why: a message from this node in its own inbox (none when the identity is gone). */
  #writeBounce(row: OutboxRow, reason: string, now: string): void {
    const message = JSON.parse(row.payload) as FederatedMessage;
    const body = [
      `Your ${message.kind === 'chat' ? 'chat message' : 'message'} to ${row.to_address} could not be delivered.`,
      '',
      `Reason: ${reason}`,
      '',
      `Message id: ${row.message_id}`,
      `Sent: ${row.created_at}`,
    ].join('\n');
    this.#core.storeBounce(row.from_agent_id, {
      from: message.from,
      subject: `Undeliverable: ${subjectOf(message) || '(no subject)'}`.slice(0, 256),
      body,
      at: now,
    });
  }
}

/**
 * `rows` (in send order) cut into batches within the message and byte caps; an oversized message
 * goes alone. The batches may be in flight at once, so each sender-to-recipient pair is in one
 * batch only: once its batch is full, the pair's later rows stay queued for the next round.
 */
function batchesOf(rows: OutboxRow[]): OutboxRow[][] {
  const batches: { rows: OutboxRow[]; bytes: number }[] = [];
  const batchOfPair = new Map<string, { rows: OutboxRow[]; bytes: number } | null>();
  const fits = (batch: { rows: OutboxRow[]; bytes: number }, size: number) =>
    batch.rows.length === 0 || (batch.rows.length < FEDERATION_BATCH_MAX_MESSAGES && batch.bytes + size <= FEDERATION_BATCH_MAX_BYTES);
  for (const row of rows) {
    const pair = `${row.from_agent_id}\n${row.to_address}`;
    const size = Buffer.byteLength(row.payload);
    let batch = batchOfPair.get(pair);
    if (batch === null) continue;
    if (batch === undefined) {
      batch = batches.at(-1);
      if (batch === undefined || !fits(batch, size)) batches.push((batch = { rows: [], bytes: 0 }));
    } else if (!fits(batch, size)) {
      // Left for the next round, with the pair's rows after it.
      batchOfPair.set(pair, null);
      continue;
    }
    batch.rows.push(row);
    batch.bytes += size;
    batchOfPair.set(pair, batch);
  }
  return batches.map((batch) => batch.rows);
}
