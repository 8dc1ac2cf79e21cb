/**
 * The ways the node declines to ask DNS. Each is a lookup failure, never "no such record": a
 * caller treats it as DNS proving nothing (try again later), as it treats a timeout.
 */

export type DnsRefusalCode =
  /** Node-wide: every query slot is busy and the queue is full, or a slot did not free in time. */
  | 'EDNSBUSY'
  /** Node-wide: the query rate budget is spent for now. */
  | 'EDNSRATE'
  /** Per request: the request has made all the queries it may. */
  | 'EDNSBUDGET';

export class DnsRefusal extends Error {
  readonly code: DnsRefusalCode;
  readonly hostname: string;

  constructor(code: DnsRefusalCode, hostname: string, message: string) {
    super(`${message} (${code} ${hostname})`);
    this.name = 'DnsRefusal';
    this.code = code;
    this.hostname = hostname;
  }
}
