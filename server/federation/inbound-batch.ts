/**
 * A batch of messages from another node (`POST /v1/federation/messages/batch`;
 * docs/adr/0005-signed-messages-and-federation.md): each message is parsed and checked on its own
 * exactly as the single route does it (inbound.ts), in the order sent, and gets its own result, so
 * one bad message never holds back the rest. The mail that passed is stored in one transaction,
 * before the answer: one commit per batch.
 *
 * Order: once a message from a sender to a recipient is deferred, that pair's later messages in
 * the batch are deferred too, so the sender retries them in their order.
 *
 * Cost: a message that passed every check (signature verified, not stored before, sender's
 * address checked with its node) is charged to that sender's domain's budget (domain-budget.ts),
 * which nobody else can spend. Everything else the request makes this node do is charged to the
 * connecting client's rate limit, a token each (sender-lookups.ts): every question to another node
 * (the senders of one domain are looked up together), and every message that proves nothing new:
 * a forgery, a refusal, a copy of a message stored before (or earlier in the batch). The request's
 * own token comes back only when it stored something new. So copies of a real sender's old mail
 * cost whoever replays them, never that sender; a batch cannot multiply an anonymous client's
 * work beyond its rate limit; and an honest busy node is limited by what its domain sends, not by
 * how few addresses it sends from.
 */
import { rateLimited, ServiceError } from '../errors.ts';
import type { ClientBudget } from '../http/rate-limit.ts';
import type { HostedRecipient } from './core-port.ts';
import type { DomainBudgets } from './domain-budget.ts';
import { forgedRefusal, type CheckedChat, type CheckedMail, type CheckedMessage, type FederationInbound } from './inbound.ts';
import { isRefusalStatus } from './refusal-reason.ts';
import type { SenderLookups } from './sender-lookups.ts';
import { splitAddress } from '../../contract/core-rules.ts';
import { signatureProblem } from './wire.ts';
import {
  BATCH_DETAIL_MAX_CHARS,
  FederatedMessage,
  type BatchItemResult,
  type FederationBatch,
  type FederationBatchResult,
  type InboundResult,
} from '../../contract/core/federation.ts';

/** `Recipient`: the core's record of an identity a message is for, which inbound.ts carries from its checks to its storing. */
export class FederationBatches<Recipient extends HostedRecipient = HostedRecipient> {
  readonly #inbound: FederationInbound<Recipient>;
  readonly #budgets: DomainBudgets;

  constructor(inbound: FederationInbound<Recipient>, budgets: DomainBudgets) {
    this.#inbound = inbound;
    this.#budgets = budgets;
  }

  /**
   * Every message is parsed; the new senders of each domain are looked up together; then each
   * message is checked (its signature first), in order, and the mail that passed is stored in one
   * transaction (one commit for the batch) before the answer. Once the request's time is spent the
   * messages not reached are deferred unchecked: signatures are the costliest work left.
   */
  async receive(batch: FederationBatch, client: ClientBudget | null): Promise<FederationBatchResult> {
    const lookups = this.#inbound.lookupsFor(client);
    const items = batch.messages.map((item, index): BatchItemResult | Parsed => {
      const parsed = FederatedMessage.safeParse(item);
      if (parsed.success) return { message: parsed.data, forged: undefined };
      return refused(idOf(item), 'SVC_ERR_VALIDATION', parsed.error.issues.map((i) => `${['messages', index, ...i.path].join('.')}: ${i.message}`).join('; '));
    });
    await this.#lookUpNewSenders(items, lookups);
    const results: (BatchItemResult | CheckedMail<Recipient>)[] = [];
    /** Pairs (sender → recipient) with a deferred message, and that message's result. */
    const deferred = new Map<string, BatchItemResult>();
    /** Messages (id and key) of this batch that passed their checks: a later copy is a duplicate. */
    const passed = new Set<string>();
    for (const item of items) {
      if (!('message' in item)) {
        results.push(item);
        continue;
      }
      const { message } = item;
      const pair = `${message.from}\n${message.to}`;
      const same = `${message.from_did}\n${message.message_id}`;
      const earlier = deferred.get(pair);
      // Once the request's time is spent, the rest waits for the sender's next request unverified.
      const spent = lookups.timeSpent();
      const result =
        earlier !== undefined
          ? { ...earlier, message_id: message.message_id, detail: 'an earlier message from this sender to this recipient was deferred' }
          : spent !== null
            ? asItem(message.message_id, spent)
            : passed.has(same) && forgedOf(item) === null
              ? this.#clientPays(lookups, { message_id: message.message_id, status: 'duplicate' })
              : await this.#one(item, lookups);
      if ('status' in result && result.status === 'deferred') deferred.set(pair, result);
      if (!('status' in result) || result.status === 'delivered') passed.add(same);
      results.push(result);
    }
    const stored = this.#inbound.storeMail(results.filter(isCheckedMail));
    if (stored.some((result) => !(result instanceof ServiceError) && result.status === 'delivered')) lookups.provedNew();
    lookups.settle();
    let next = 0;
    return { results: results.map((result) => (isCheckedMail(result) ? asItem(result.message.message_id, stored[next++]!) : result)) };
  }

  /**
   * One message on the single route (`POST /v1/federation/messages`, what older nodes send), at
   * the same cost: a spent budget is a 429 with Retry-After.
   */
  async single(message: FederatedMessage, client: ClientBudget | null): Promise<InboundResult> {
    const lookups = this.#inbound.lookupsFor(client);
    try {
      const forged = signatureProblem(message);
      // The request's own token pays for the signature check: a forgery gets nothing back.
      if (forged !== null) throw forgedRefusal(forged);
      const checked = await this.#inbound.check(message, lookups);
      // A copy of a message stored before keeps the request's token: only new mail gives it back.
      if (checked === 'duplicate') return { message_id: message.message_id, status: 'duplicate' };
      const over = this.#chargeDomain(message);
      if (over !== null) throw rateLimited('SVC_ERR_RATE_LIMITED', over.detail, over.wait);
      const result = isChat(checked) ? this.#inbound.storeChat(checked) : storedOrThrown(this.#inbound.storeMail([checked])[0]!);
      if (result.status === 'delivered') lookups.provedNew();
      return result;
    } finally {
      lookups.settle();
    }
  }

  /**
   * Looks up, one request per domain, the senders of two or more signed messages not proven yet.
   * Only those messages' signatures are checked here; the rest are checked as their turn comes.
   */
  async #lookUpNewSenders(items: (BatchItemResult | Parsed)[], lookups: SenderLookups): Promise<void> {
    const byDomain = new Map<string, { names: Set<string>; items: Parsed[] }>();
    for (const item of items) {
      if (!('message' in item) || this.#inbound.provenSender(item.message)) continue;
      const from = splitAddress(item.message.from);
      if (from === null) continue;
      const entry = byDomain.get(from.domain) ?? { names: new Set(), items: [] };
      entry.names.add(from.name);
      entry.items.push(item);
      byDomain.set(from.domain, entry);
    }
    const shared = [...byDomain].flatMap(([domain, entry]) => {
      if (entry.names.size < 2) return [];
      const signed = new Set(entry.items.filter((item) => forgedOf(item) === null).map((item) => splitAddress(item.message.from)!.name));
      return signed.size > 1 ? [{ domain, senders: [...signed] }] : [];
    });
    await Promise.all(shared.map(({ domain, senders }) => this.#inbound.prefetchAddresses(domain, senders, lookups)));
  }

  /**
   * One parsed message of a batch: its result, or for mail that passed its checks, what storing it
   * takes (chat is stored at once). What proved nothing new (a forgery, a copy of a message stored
   * before, a refusal) costs the client a token; a message that passed its checks is charged to its
   * sender's domain, which nobody else can spend.
   */
  async #one(item: Parsed, lookups: SenderLookups): Promise<BatchItemResult | CheckedMail<Recipient>> {
    const { message } = item;
    const id = message.message_id;
    const forged = forgedOf(item);
    if (forged !== null) return this.#clientPays(lookups, refused(id, 'SVC_ERR_FEDERATION_SIGNATURE_INVALID', forgedRefusal(forged).message));
    let checked: CheckedMessage<Recipient> | 'duplicate';
    try {
      checked = await this.#inbound.check(message, lookups);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const result = asItem(id, error);
      return result.status === 'refused' ? this.#clientPays(lookups, result) : result;
    }
    if (checked === 'duplicate') return this.#clientPays(lookups, { message_id: id, status: 'duplicate' });
    const over = this.#chargeDomain(message);
    if (over !== null) return deferral(id, over.detail, over.wait);
    if (!isChat(checked)) return checked;
    try {
      const result = this.#inbound.storeChat(checked);
      if (result.status === 'delivered') lookups.provedNew();
      return result;
    } catch (error) {
      if (error instanceof ServiceError) return asItem(id, error);
      throw error;
    }
  }

  /** `result`, once the client paid a token for it; deferred when it has none left. */
  #clientPays(lookups: SenderLookups, result: BatchItemResult): BatchItemResult {
    const wait = lookups.charge();
    if (wait > 0) return deferral(result.message_id, `too many requests from this client; try again in ${wait} s`, wait);
    return result;
  }

  /** Charges `message` to its sender's domain: null when allowed; else the seconds to wait and why. */
  #chargeDomain(message: FederatedMessage): { wait: number; detail: string } | null {
    const domain = splitAddress(message.from)?.domain;
    if (domain === undefined) return null;
    // An end-to-end encrypted message's content is its envelope (its body is empty): that is what it costs.
    const envelope = message.encrypted_envelope === undefined ? 0 : Buffer.byteLength(JSON.stringify(message.encrypted_envelope));
    const wait = this.#budgets.take(domain, Buffer.byteLength(message.body) + Buffer.byteLength(message.signed_payload) + envelope);
    return wait > 0 ? { wait, detail: `${domain}'s delivery budget is spent; try again in ${wait} s` } : null;
  }
}

function isCheckedMail<Recipient extends HostedRecipient>(result: BatchItemResult | CheckedMail<Recipient>): result is CheckedMail<Recipient> {
  return 'recipient' in result;
}

function isChat<Recipient extends HostedRecipient>(checked: CheckedMessage<Recipient>): checked is CheckedChat<Recipient> {
  return checked.message.kind === 'chat';
}

/** The single route's answer for stored mail: its result, or the refusal storing it met. */
function storedOrThrown(outcome: InboundResult | ServiceError): InboundResult {
  if (outcome instanceof ServiceError) throw outcome;
  return outcome;
}

/** A parsed message and, once checked, why its signature does not verify (null: it does). */
interface Parsed {
  message: FederatedMessage;
  forged: string | null | undefined;
}

/** Why `item`'s signature does not verify (null: it does), checked the first time it is asked. */
function forgedOf(item: Parsed): string | null {
  if (item.forged === undefined) item.forged = signatureProblem(item.message);
  return item.forged;
}

const deferral = (messageId: string | null, detail: string, wait: number): BatchItemResult => ({
  message_id: messageId,
  status: 'deferred',
  code: 'SVC_ERR_RATE_LIMITED',
  detail,
  retry_after: wait,
});

/** A message's result as the single route would have answered it: stored, or its refusal (4xx) or deferral (the rest). */
function asItem(messageId: string, outcome: InboundResult | ServiceError): BatchItemResult {
  if (!(outcome instanceof ServiceError)) return outcome;
  if (isRefusalStatus(outcome.statusCode)) return refused(messageId, outcome.code, outcome.message);
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
