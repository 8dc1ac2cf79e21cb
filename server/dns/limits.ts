/**
 * What the node's DNS may cost, node-wide and per request. DNS is asked on behalf of whoever
 * sends a request (a namespace registration, a federation sender check), so without bounds one
 * client could turn the node into a query amplifier against a resolver or a victim's name
 * servers, or park requests on lookups that never answer.
 */

export interface DnsLimits {
  /**
   * How long a TXT answer with records is kept. node:dns does not report a TXT record's TTL, so
   * this is a fixed time, short enough that a changed record is seen within a minute.
   */
  positiveTtlMs: number;
  /** How long "no such record" (NXDOMAIN or no TXT at the name) is kept. */
  negativeTtlMs: number;
  /**
   * How long a failed lookup (timeout, SERVFAIL) is remembered, so a name whose servers never
   * answer is not asked again by every request meanwhile; 0 remembers none.
   */
  failureTtlMs: number;
  /** TXT answers kept at most (the oldest go first). */
  cacheEntries: number;
  /** Queries in flight at once, node-wide. */
  concurrency: number;
  /** Queries waiting for one of those slots; past it a lookup fails at once. */
  queueLength: number;
  /** How long a query may wait for a slot before it fails. */
  queueWaitMs: number;
  /** Queries per second node-wide (a token bucket: `rateBurst` at once, refilled at this rate). */
  ratePerSecond: number;
  rateBurst: number;
}

export const DNS_LIMITS: DnsLimits = {
  positiveTtlMs: 60_000,
  negativeTtlMs: 30_000,
  failureTtlMs: 5_000,
  cacheEntries: 10_000,
  concurrency: 16,
  queueLength: 256,
  queueWaitMs: 5_000,
  ratePerSecond: 50,
  rateBurst: 200,
};

/**
 * DNS queries one request may cause (cache hits are free): a namespace check walks at most
 * this many names (namespace-verification.ts), and each costs the client a token of its rate
 * limit on the peer listener.
 */
export const MAX_DNS_QUERIES_PER_REQUEST = 8;
