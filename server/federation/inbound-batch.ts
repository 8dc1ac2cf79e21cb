/**
 * A batch of messages from another node (`POST /v1/federation/messages/batch`, issue 19): each
 * message is parsed and checked on its own exactly as the single route does it (inbound.ts), in
 * the order sent, and gets its own result, so one bad message never holds back the rest. The mail
 * that passed is stored in one transaction, before the answer: one commit per batch.
 *
 * Order: once a message from a sender to a recipient is deferred, that pair's later messages in
 * the batch are deferred too, so the sender retries them in their order.
 *
 * Cost: a message whose sender is proven (signature verified, address checked with its node
 * moments ago) is charged to that sender's domain's budget (domain-budget.ts); any other message
 * costs the connecting client one token of its rate limit, as a request of its own would. The
 * request took one token as it arrived: it pays for the first message when that one is anonymous,
 * and is given back when it is proven. So a batch cannot multiply an anonymous client's work
 * (signature checks, questions to other nodes) beyond its rate limit, and an honest busy node is
 * limited by what its domain sends, not by how few addresses it sends from.
 */
import { rateLimited, ServiceError } from '../errors.ts';
import type { ClientBudget } from '../http/rate-limit.ts';
import type { DomainBudgets } from './domain-budget.ts';
import { forgedRefusal, type CheckedMail, type FederationInbound } from './inbound.ts';
import { splitAddress } from '../surfaces/core/messaging/addresses.ts';
import { signatureProblem } from './wire.ts';
import {
  BATCH_DETAIL_MAX_CHARS,
  FederatedMessage,
  type BatchItemResult,
  type FederationBatch,
  type FederationBatchResult,
  type InboundResult,
} from '../../contract/core/federation.ts';

/** Statuses of the single route that mean "not now" rather than "never". */
const TEMPORARY = new Set([408, 429]);

export class FederationBatches {
  readonly #inbound: FederationInbound;
  readonly #budgets: DomainBudgets;

  constructor(inbound: FederationInbound, budgets: DomainBudgets) {
    this.#inbound = inbound;
    this.#budgets = budgets;
  }

  /**
   * Every message is checked first, in order; the mail that passed is then stored in one
   * transaction (one commit for the batch), and only then answered.
   */
  async receive(batch: FederationBatch, client: ClientBudget | null): Promise<FederationBatchResult> {
    const results: (BatchItemResult | CheckedMail)[] = [];
    /** Pairs (sender → recipient) with a deferred message, and that message's result. */
    const deferred = new Map<string, BatchItemResult>();
    for (const [index, item] of batch.messages.entries()) {
      const parsed = FederatedMessage.safeParse(item);
      if (!parsed.success) {
        results.push(refused(idOf(item), 'SVC_ERR_VALIDATION', parsed.error.issues.map((i) => `${['messages', index, ...i.path].join('.')}: ${i.message}`).join('; ')));
        continue;
      }
      const message = parsed.data;
      const pair = `${message.from}\n${message.to}`;
      const earlier = deferred.get(pair);
      const result =
        earlier === undefined
          ? await this.#one(message, client, index === 0)
          : { ...earlier, message_id: message.message_id, detail: 'an earlier message from this sender to this recipient was deferred' };
      if ('status' in result && result.status === 'deferred') deferred.set(pair, result);
      results.push(result);
    }
    const checked = results.filter((result): result is CheckedMail => 'mail' in result);
    const stored = this.#inbound.storeMail(checked);
    return { results: results.map((result) => ('mail' in result ? asItem(result.mail.message_id, stored[checked.indexOf(result)]!) : result)) };
  }

  /**
   * One message on the single route (`POST /v1/federation/messages`, what older nodes send), at
   * the same cost: a spent budget is a 429 with Retry-After.
   */
  async single(message: FederatedMessage, client: ClientBudget | null): Promise<InboundResult> {
    const forged = signatureProblem(message);
    const over = this.#charge(message, forged === null, client, true);
    if (over !== null) throw rateLimited('SVC_ERR_RATE_LIMITED', over.detail, over.wait);
    if (forged !== null) throw forgedRefusal(forged);
    return this.#inbound.receiveSigned(message);
  }

  /**
   * One parsed message of a batch, `first` when the request's own token paid for it: its result, or
   * for mail that passed its checks, what storing it takes (chat is stored at once).
   */
  async #one(message: FederatedMessage, client: ClientBudget | null, first: boolean): Promise<BatchItemResult | CheckedMail> {
    const id = message.message_id;
    const forged = signatureProblem(message);
    const over = this.#charge(message, forged === null, client, first);
    if (over !== null) return { message_id: id, status: 'deferred', code: 'SVC_ERR_RATE_LIMITED', detail: over.detail, retry_after: over.wait };
    if (forged !== null) return refused(id, 'SVC_ERR_FEDERATION_SIGNATURE_INVALID', forgedRefusal(forged).message);
    try {
      return message.kind === 'mail' ? await this.#inbound.checkMail(message) : await this.#inbound.receiveSigned(message);
    } catch (error) {
      if (error instanceof ServiceError) return asItem(id, error);
      throw error;
    }
  }

  /**
   * Charges `message` to its sender's domain when the sender is proven (`signed`: its signature
   * verified), else to the client (the request's own token when `first`, given back when it was
   * not needed). Null when allowed; else the seconds to wait and why.
   */
  #charge(message: FederatedMessage, signed: boolean, client: ClientBudget | null, first: boolean): { wait: number; detail: string } | null {
    const domain = splitAddress(message.from)?.domain;
    if (signed && domain !== undefined && this.#inbound.provenSender(message)) {
      const wait = this.#budgets.take(domain, Buffer.byteLength(message.body) + Buffer.byteLength(message.signed_payload));
      if (wait > 0) return { wait, detail: `${domain}'s delivery budget is spent; try again in ${wait} s` };
      if (first) client?.refund();
      return null;
    }
    const wait = first ? 0 : (client?.take(1) ?? 0);
    return wait > 0 ? { wait, detail: `too many requests from this client; try again in ${wait} s` } : null;
  }
}

/** A message's result as the single route would have answered it: stored, or its refusal (4xx) or deferral (the rest). */
function asItem(messageId: string, outcome: InboundResult | ServiceError): BatchItemResult {
  if (!(outcome instanceof ServiceError)) return outcome;
  if (outcome.statusCode < 500 && !TEMPORARY.has(outcome.statusCode)) return refused(messageId, outcome.code, outcome.message);
  const retryAfter = Number(outcome.headers['retry-after']);
  return {
    message_id: messageId,
    status: 'deferred',
    code: outcome.code,
    detail: clip(outcome.message),
    ...(Number.isInteger(retryAfter) && retryAfter >= 0 ? { retry_after: Math.min(retryAfter, 3600) } : {}),
  };
}

function refused(messageId: string | null, code: string, detail: string): BatchItemResult {
  return { message_id: messageId, status: 'refused', code, detail: clip(detail) };
}

const clip = (text: string): string => (text.length > BATCH_DETAIL_MAX_CHARS ? `${text.slice(0, BATCH_DETAIL_MAX_CHARS - 1)}…` : text);

/** The message_id an unparseable item names, when it names a plausible one. */
function idOf(item: unknown): string | null {
  const id = typeof item === 'object' && item !== null ? (item as { message_id?: unknown }).message_id : undefined;
  return typeof id === 'string' && id.length <= 64 ? id : null;
}
