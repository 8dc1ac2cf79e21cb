/**
 * One delivery of queued messages to the node that answers for their domains: as one
 * `POST /v1/federation/messages/batch`, each message getting its own result, or, to a node older
 * than that route (it answers 404), one `POST /v1/federation/messages` per message. The outbox
 * (outbox.ts) decides what goes together and settles what comes back.
 *
 * What a node says is used only in our words (remote-error.ts), except a refusal's `detail`,
 * cleaned and capped, as the bounce reason (refusal-reason.ts). An answer that is not a result for
 * each message sent, in order, is no answer: the batch is tried again. The same on the single
 * route: a 2xx that is not the node's result for that message (a web page, an empty body) is no
 * answer, so a message is never counted delivered on the word of something that did not store it.
 */
import type { Clock } from '../clock.ts';
import type { NodeLocation } from './directory.ts';
import type { RemoteAnswer, RemoteClient } from '../net/remote-client.ts';
import { answerJson } from '../net/remote-client.ts';
import { RemoteError, type RemoteErrorKind } from '../net/remote-error.ts';
import type { OutboxRow } from './outbox-store.ts';
import { cleanRefusal, isRefusalStatus, refusalReason } from './refusal-reason.ts';
import { FEDERATION_VERSION, FederationBatchResult, InboundResult, type BatchItemResult } from '../../contract/core/federation.ts';

export type Outcome =
  | { kind: 'delivered'; url: string }
  /**
   * Not now. `peerWide`: the node itself is unreachable, overloaded or asked us to wait, so its
   * whole queue waits (`afterMs`, its Retry-After, or the outbox's backoff for the node); else only
   * this message backs off, by `afterMs` when the node named a time.
   */
  | { kind: 'retry'; error: string; afterMs?: number; peerWide?: boolean }
  | { kind: 'bounce'; reason: string };

/**
 * The largest answer to a batch: a result per message, each at most a 500-character detail and a
 * few fields (about 40 KiB for 64 refusals).
 */
export const BATCH_ANSWER_MAX_BYTES = 64 * 1024;
/** The largest answer to one message: `{message_id, status}` or a `{detail}` refusal (a validation list is under 4 KiB). */
export const DELIVERY_ANSWER_MAX_BYTES = 16 * 1024;
/** How long a node that has no batch route gets one message per request before it is asked again (it may have been upgraded). */
const SINGLE_ONLY_MS = 10 * 60_000;
/** Failures that mean the receiving node was not reached at all (the rest are bad answers). */
const NOT_REACHED: ReadonlySet<RemoteErrorKind> = new Set(['unreachable', 'timed-out', 'refused-address', 'busy']);

export class PeerDelivery {
  readonly #remote: RemoteClient;
  readonly #timeoutMs: number;
  /** The node's clock, as the outbox's: a node asked again after ten minutes of the time the outbox goes by. */
  readonly #clock: Clock;
  /** Nodes that answered the batch route with 404, until when they get single messages. */
  readonly #singleOnly = new Map<string, number>();

  constructor(remote: RemoteClient, timeoutMs: number, clock: Clock) {
    this.#remote = remote;
    this.#timeoutMs = timeoutMs;
    this.#clock = clock;
  }

  /** Delivers `rows` (in send order) to `node`: an outcome per row, in the same order. */
  async deliver(node: NodeLocation, rows: OutboxRow[]): Promise<Outcome[]> {
    const now = this.#clock.now().getTime();
    const singleUntil = this.#singleOnly.get(node.url);
    if (singleUntil !== undefined && singleUntil > now) return this.#singles(node, rows);
    // Forgotten once it lapses, so the table holds only nodes asked about in the last ten minutes.
    if (singleUntil !== undefined) this.#singleOnly.delete(node.url);
    let answer: RemoteAnswer;
    try {
      answer = await this.#post(
        node,
        '/v1/federation/messages/batch',
        `{"v":${FEDERATION_VERSION},"messages":[${rows.map((row) => row.payload).join(',')}]}`,
        BATCH_ANSWER_MAX_BYTES,
      );
    } catch (error) {
      return rows.map(() => failed(node, error));
    }
    const { status } = answer;
    if (status === 404 || status === 405) {
      this.#singleOnly.set(node.url, this.#clock.now().getTime() + SINGLE_ONLY_MS);
      return this.#singles(node, rows);
    }
    if (status >= 200 && status < 300) return batchOutcomes(node, rows, answer);
    // The batch as a whole refused (too large for that node, say): each message gets its own verdict.
    if (isRefusalStatus(status) && rows.length > 1) return this.#singles(node, rows);
    return rows.map((row) => statusOutcome(node, row, answer));
  }

  /** One request per message, in order; a pair whose message must wait keeps its later ones back. */
  async #singles(node: NodeLocation, rows: OutboxRow[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    const waiting = new Set<string>();
    let peerWide: Outcome | null = null;
    for (const row of rows) {
      const pair = `${row.from_agent_id}\n${row.to_address}`;
      if (peerWide !== null || waiting.has(pair)) {
        outcomes.push(peerWide ?? { kind: 'retry', error: 'waiting for an earlier message to the same recipient' });
        continue;
      }
      let outcome: Outcome;
      try {
        outcome = await this.#single(node, row);
      } catch (error) {
        outcome = failed(node, error);
      }
      if (outcome.kind === 'retry') {
        waiting.add(pair);
        if (outcome.peerWide === true) peerWide = outcome;
      }
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /**
   * One message on the single route. A node older than mail's `thread_id` refuses the field it
   * does not know (422 naming it); the thread travels outside the signed envelope, so the mail is
   * sent again without it rather than bounced: that node keeps it outside any thread.
   */
  async #single(node: NodeLocation, row: OutboxRow): Promise<Outcome> {
    const answer = await this.#post(node, '/v1/federation/messages', row.payload, DELIVERY_ANSWER_MAX_BYTES);
    if (answer.status !== 422 || !(refusalReason(answer) ?? '').includes('"thread_id"')) return statusOutcome(node, row, answer);
    const message = JSON.parse(row.payload) as { thread_id?: unknown };
    if (message.thread_id == null) return statusOutcome(node, row, answer);
    delete message.thread_id;
    return statusOutcome(node, row, await this.#post(node, '/v1/federation/messages', JSON.stringify(message), DELIVERY_ANSWER_MAX_BYTES));
  }

  #post(node: NodeLocation, path: string, json: string, maxBytes: number): Promise<RemoteAnswer> {
    // Idempotent: the receiver stores a message_id from a key once, so a resend is only acknowledged.
    return this.#remote.request(node, { method: 'POST', path, json, maxBytes, timeoutMs: this.#timeoutMs, idempotent: true });
  }
}

/** The node was not asked, or gave no usable answer: the whole queue for it waits. */
function failed(node: NodeLocation, error: unknown): Outcome {
  if (!(error instanceof RemoteError)) throw error;
  const error_ = NOT_REACHED.has(error.kind) ? `could not reach ${node.url} (${error.message})` : `${node.url} gave no usable answer (${error.message})`;
  return { kind: 'retry', error: error_, peerWide: true };
}

/** What an answer (of the single route, or a batch refused whole) means for `row`. */
function statusOutcome(node: NodeLocation, row: OutboxRow, answer: RemoteAnswer): Outcome {
  const { status } = answer;
  if (status >= 200 && status < 300) {
    if (resultFor(row, answer)) return { kind: 'delivered', url: node.url };
    return { kind: 'retry', error: `${node.url} gave no usable answer (not a result for the message sent)`, peerWide: true };
  }
  if (isRefusalStatus(status)) return refusedBy(node, row, refusalReason(answer) ?? `it answered ${status}`);
  return { kind: 'retry', error: `${node.url} answered ${status}`, peerWide: true, ...afterMs(answer.retryAfterSeconds) };
}

/** Whether a 2xx answer of the single route is the node's result for `row` (every node version answers one). */
function resultFor(row: OutboxRow, answer: RemoteAnswer): boolean {
  try {
    const parsed = InboundResult.safeParse(answerJson(answer));
    return parsed.success && parsed.data.message_id === row.message_id;
  } catch {
    return false;
  }
}

/** A batch's 2xx answer: a result per row in order, or (anything else) no usable answer. */
function batchOutcomes(node: NodeLocation, rows: OutboxRow[], answer: RemoteAnswer): Outcome[] {
  let parsed: ReturnType<typeof FederationBatchResult.safeParse> | null = null;
  try {
    parsed = FederationBatchResult.safeParse(answerJson(answer));
  } catch {
    // Not JSON: the same as a JSON answer that is not a result list.
  }
  const results = parsed?.success === true ? parsed.data.results : [];
  const matches =
    results.length === rows.length &&
    results.every((result, i) => result.message_id === rows[i]!.message_id || (result.status === 'refused' && result.message_id === null));
  if (!matches) return rows.map(() => ({ kind: 'retry', error: `${node.url} gave no usable answer (not a result for each message sent)`, peerWide: true }));
  return results.map((result, i) => itemOutcome(node, rows[i]!, result));
}

function itemOutcome(node: NodeLocation, row: OutboxRow, result: BatchItemResult): Outcome {
  const detail = result.detail === undefined ? null : cleanRefusal(result.detail);
  switch (result.status) {
    case 'delivered':
    case 'duplicate':
      return { kind: 'delivered', url: node.url };
    case 'refused':
      return refusedBy(node, row, detail ?? 'no reason given');
    case 'deferred':
      // A spent budget names when to come back, for every message from this node.
      return {
        kind: 'retry',
        error: `${node.url} deferred it: ${detail ?? 'no reason given'}`,
        ...afterMs(result.retry_after ?? null),
        peerWide: result.retry_after !== undefined,
      };
  }
}

/** The bounce of `row`, with the receiving node's reason. */
const refusedBy = (node: NodeLocation, row: OutboxRow, reason: string): Outcome => ({
  kind: 'bounce',
  reason: `the node for ${row.to_domain} (${node.url}) refused it: ${reason}`,
});

const afterMs = (seconds: number | null): { afterMs?: number } => (seconds === null ? {} : { afterMs: seconds * 1000 });
