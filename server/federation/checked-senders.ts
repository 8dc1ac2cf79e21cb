/**
 * Senders whose address this node checked with their own node a moment ago (inbound.ts step 3),
 * kept for `ttlMs` so that a busy sender's messages are not each checked again: the check is two
 * requests to the sender's node, which would otherwise cost more than the delivery itself and
 * spend that node's rate limit on our questions.
 *
 * Only a pass where the address holds the very key that signed is kept (not one vouched for by a
 * rotation or replacement), keyed by address and key: a key the address no longer holds is found
 * out at most `ttlMs` later. Five minutes weakens little: mail signed by a retired key is accepted
 * anyway when it says it was signed before the retirement (it may have waited in an outbox), and
 * the signer chooses that timestamp. And it is what lets a node with many identities keep mailing
 * a peer: a thousand active senders cost their node about 7 questions a second, well within the
 * 20 requests/s its peer listener gives one client, where 30 s would cost 67.
 */
import type { CheckedSender } from './core-port.ts';

export const CHECKED_SENDER_TTL_MS = 5 * 60_000;
/** Enough for every sender of a busy node; the oldest entries go first beyond it. */
const MAX_ENTRIES = 10_000;

interface Entry {
  sender: CheckedSender;
  until: number;
}

export class CheckedSenders {
  readonly #ttlMs: number;
  readonly #entries = new Map<string, Entry>();

  constructor(ttlMs = CHECKED_SENDER_TTL_MS) {
    this.#ttlMs = ttlMs;
  }

  /** The check of `address` holding `didKey`, while it is fresh. */
  get(address: string, didKey: string, now: number): CheckedSender | null {
    const key = `${address}\n${didKey}`;
    const entry = this.#entries.get(key);
    if (entry === undefined) return null;
    if (entry.until > now) return entry.sender;
    this.#entries.delete(key);
    return null;
  }

  remember(address: string, didKey: string, sender: CheckedSender, now: number): void {
    const key = `${address}\n${didKey}`;
    this.#entries.delete(key);
    this.#entries.set(key, { sender, until: now + this.#ttlMs });
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
