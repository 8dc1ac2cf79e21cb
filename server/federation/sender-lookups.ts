/**
 * What answering one federation request makes this node do beyond its own database (the checks of
 * its messages' senders, inbound.ts step 3: questions to their nodes, DNS lookups), how long that
 * may take, and who pays for it.
 *
 * - Each question is asked once per request, however many of its messages need the answer: a
 *   batch from one node asks for that namespace once, and for its new senders' addresses in one
 *   lookup (`?names=`), primed here. DNS answers come from the node's cache when it has them
 *   (dns/guarded-resolver.ts), which also joins lookups already in flight.
 * - Each question, each DNS query that goes out (a cached or joined answer is free), and each
 *   message that proves nothing new (a forgery, a refusal, a copy of a message stored before),
 *   costs the connecting client one token of its rate limit (rate-limit.ts), the first paid by
 *   the request's own token. A request that stored new mail and cost nothing else (every sender
 *   proven already) gives that token back. So a request cannot make this node ask other nodes or
 *   DNS, verify forgeries or answer replays beyond the rate its client may send requests.
 * - The request has `INBOUND_TIME_BUDGET_MS` for all of it, and `MAX_DNS_QUERIES_PER_REQUEST`
 *   DNS queries. A question or lookup still running when the time is up is no longer waited for, and
 *   none starts after it: what needed one is deferred with a retry_after (a 503 with Retry-After
 *   on the single route), and the sending node comes back for it in a request of its own. So a
 *   sender domain whose DNS never answers, or a node that answers slowly, holds a peer connection
 *   for seconds, not minutes, however many such senders a batch names.
 */
import { MAX_DNS_QUERIES_PER_REQUEST } from '../dns/limits.ts';
import type { DnsResolver, LookupOptions } from '../dns/resolver.ts';
import { rateLimited, unavailable, type ServiceError } from '../errors.ts';
import type { ClientBudget } from '../http/rate-limit.ts';

/**
 * The time one inbound request's checks may take in all. An honest sender's check is two
 * questions to its node and a DNS lookup or two, well under a second; a few seconds lets a slow
 * but working node through while a connection cannot be held for long.
 */
export const INBOUND_TIME_BUDGET_MS = 4_000;
/** How much longer than the request's time a question may run before its own timeout ends it. */
const ASK_GRACE_MS = 250;
/** The wait given with a message deferred because its request's budget was spent: soon, in a request of its own. */
export const BUDGET_RETRY_AFTER_S = 1;

export class SenderLookups {
  readonly #client: ClientBudget | null;
  readonly #answers = new Map<string, Promise<unknown>>();
  /** The request's own token, until something uses it. */
  #prepaid = 1;
  /** Whether the request stored a message new here: only then may its own token go back. */
  #provedNew = false;

  /** DNS as this request may use it: each query counted and charged, each lookup bounded by the request's time. */
  readonly dns: DnsResolver;
  readonly #deadline: number;
  #dnsQueries = 0;

  /**
   * `client`: the peer listener's budget for the caller (null on the loopback listener, which has
   * no rate limit); `resolver`: the node's DNS.
   */
  constructor(client: ClientBudget | null, resolver: DnsResolver) {
    this.#client = client;
    this.#deadline = Date.now() + INBOUND_TIME_BUDGET_MS;
    // The node's resolver tells us of each query it sends for us (not of cached or joined answers);
    // throwing refuses that query, and the lookup rejects with our refusal.
    const counted = (options: LookupOptions | undefined): LookupOptions => ({
      ...options,
      onQuery: (name) => {
        const refusal = this.#queryAllowed();
        if (refusal !== null) throw refusal;
        options?.onQuery?.(name);
      },
    });
    this.dns = {
      resolveTxt: (name, options) => this.#withinTime(resolver.resolveTxt(name, counted(options))),
      lookup: (hostname, options) => this.#withinTime(resolver.lookup(hostname, counted(options))),
    };
  }

  /** The milliseconds left of the request's time budget. */
  remainingMs(): number {
    return Math.max(0, this.#deadline - Date.now());
  }

  /** Null while the request has time left, else the deferral for what it has not reached. */
  timeSpent(): ServiceError | null {
    return this.#timeLeft();
  }

  /** Charges one token: 0 when allowed, else the seconds until the client has one. */
  charge(): number {
    if (this.#prepaid > 0) {
      this.#prepaid -= 1;
      return 0;
    }
    return this.#client?.take(1) ?? 0;
  }

  /**
   * The answer to `key`, asked (and charged) the first time only, given the time left (`ask` gets
   * it, to bound its own request by it); a 429 when the client is out of tokens, a 503 once the
   * request's time is spent.
   */
  answer(key: string, ask: (timeoutMs: number) => Promise<unknown>): Promise<unknown> {
    const known = this.#answers.get(key);
    if (known !== undefined) return known;
    const refusal = this.#timeLeft() ?? this.#paid();
    if (refusal !== null) return Promise.reject(refusal);
    // The question's own timeout ends a moment after the budget, so the budget's refusal is the one heard.
    const answer = this.#withinTime(ask(this.remainingMs() + ASK_GRACE_MS));
    this.#answers.set(key, answer);
    return answer;
  }

  /**
   * Counts and charges the DNS query the outbound client makes on the request's behalf as it
   * connects to a node named by host name (`key`: that name, once per request): null when
   * allowed, else the refusal.
   */
  queryElsewhere(key: string): ServiceError | null {
    if (this.#answers.has(key)) return null;
    const refusal = this.#queryAllowed();
    if (refusal === null) this.#answers.set(key, Promise.resolve(null));
    return refusal;
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

  /** Takes one of the request's DNS queries (and a token): null when allowed, else the refusal. */
  #queryAllowed(): ServiceError | null {
    if (this.#dnsQueries >= MAX_DNS_QUERIES_PER_REQUEST) {
      return unavailable(
        'SVC_ERR_FEDERATION_BUDGET_SPENT',
        `This request made the ${MAX_DNS_QUERIES_PER_REQUEST} DNS queries one request may; try again in ${BUDGET_RETRY_AFTER_S} s`,
        BUDGET_RETRY_AFTER_S,
      );
    }
    const refusal = this.#timeLeft() ?? this.#paid();
    if (refusal === null) this.#dnsQueries += 1;
    return refusal;
  }

  /** Null while the request has time left, else the refusal. */
  #timeLeft(): ServiceError | null {
    return this.remainingMs() > 0 ? null : timeSpent();
  }

  /** Null once a token is charged, else the client's refusal. */
  #paid(): ServiceError | null {
    const wait = this.charge();
    return wait > 0 ? rateLimited('SVC_ERR_RATE_LIMITED', `Too many requests from this client; try again in ${wait} s`, wait) : null;
  }

  /** `work`, or the refusal for a spent time budget if it is not done by the deadline (it is left to finish on its own). */
  #withinTime<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(timeSpent()), this.remainingMs());
      work.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }
}

const timeSpent = (): ServiceError =>
  unavailable(
    'SVC_ERR_FEDERATION_BUDGET_SPENT',
    `This request's ${INBOUND_TIME_BUDGET_MS / 1000} s for checking senders are spent; try again in ${BUDGET_RETRY_AFTER_S} s`,
    BUDGET_RETRY_AFTER_S,
  );
