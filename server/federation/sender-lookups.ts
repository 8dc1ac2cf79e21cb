/**
 * What answering one federation request asks of other nodes (the checks of its messages' senders,
 * inbound.ts step 3), and who pays for it.
 *
 * - Each question is asked once per request, however many of its messages need the answer: a
 *   batch from one node asks for that namespace once, and for its new senders' addresses in one
 *   lookup (`?names=`), primed here.
 * - Each question, and each message refused as forged, costs the connecting client one token of
 *   its rate limit (rate-limit.ts), the first paid by the request's own token. A request that
 *   costs nothing (every sender proven already) gives that token back. So a request cannot make
 *   this node ask other nodes, or verify forgeries, beyond the rate its client may send requests.
 */
import { rateLimited } from '../errors.ts';
import type { ClientBudget } from '../http/rate-limit.ts';

export class SenderLookups {
  readonly #client: ClientBudget | null;
  readonly #answers = new Map<string, Promise<unknown>>();
  /** The request's own token, until something uses it. */
  #prepaid = 1;

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

  /** The request is answered: its own token goes back when nothing used it. */
  settle(): void {
    if (this.#prepaid > 0) this.#client?.refund();
    this.#prepaid = 0;
  }
}
