/**
 * What answering one federation request asks of other nodes (the checks of its messages' senders,
 * inbound.ts step 3), and who pays for it.
 *
 * - Each question is asked once per request, however many of its messages need the answer: a
 *   batch from one node asks for that namespace once, and for its new senders' addresses in one
 *   lookup (`?names=`), primed here.
 * - Each question, and each message that proves nothing new (a forgery, a refusal, a copy of a
 *   message stored before), costs the connecting client one token of its rate limit
 *   (rate-limit.ts), the first paid by the request's own token. A request that stored new mail
 *   and cost nothing else (every sender proven already) gives that token back. So a request cannot
 *   make this node ask other nodes, verify forgeries or answer replays beyond the rate its client
 *   may send requests.
 */
import { rateLimited } from '../errors.ts';
import type { ClientBudget } from '../http/rate-limit.ts';

export class SenderLookups {
  readonly #client: ClientBudget | null;
  readonly #answers = new Map<string, Promise<unknown>>();
  /** The request's own token, until something uses it. */
  #prepaid = 1;
  /** Whether the request stored a message new here: only then may its own token go back. */
  #provedNew = false;

  /** `client`: the peer listener's budget for the caller; null on the loopback listener. */
  constructor(client: ClientBudget | null) {
    this.#client = client;
  }

  /** Charges one token: 0 when allowed, else the seconds until the client has one. */
  charge(): number {
    if (this.#prepaid > 0) {
      this.#prepaid -= 1;
      return 0;
    }
    return this.#client?.take(1) ?? 0;
  }

  /** The answer to `key`, asked (and charged) the first time only; a 429 when the client is out of tokens. */
  answer(key: string, ask: () => Promise<unknown>): Promise<unknown> {
    const known = this.#answers.get(key);
    if (known !== undefined) return known;
    const wait = this.charge();
    if (wait > 0) return Promise.reject(rateLimited('SVC_ERR_RATE_LIMITED', `Too many requests from this client; try again in ${wait} s`, wait));
    const answer = ask();
    this.#answers.set(key, answer);
    return answer;
  }

  /** An answer learned another way (one lookup of many addresses), for a question not asked yet. */
  prime(key: string, value: unknown): void {
    if (!this.#answers.has(key)) this.#answers.set(key, Promise.resolve(value));
  }

  /** A message of the request was stored new here (and charged to its sender's domain). */
  provedNew(): void {
    this.#provedNew = true;
  }

  /**
   * The request is answered: its own token goes back when nothing used it and the request stored
   * something new, so copies of old mail, or mail deferred before anything proved new, never ride free.
   */
  settle(): void {
    if (this.#prepaid > 0 && this.#provedNew) this.#client?.refund();
    this.#prepaid = 0;
  }
}
