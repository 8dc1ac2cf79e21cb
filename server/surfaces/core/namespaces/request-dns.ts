/**
 * The DNS one namespace request may cause: at most MAX_DNS_QUERIES_PER_REQUEST queries, each
 * charged to the client as one more token of its rate limit on the peer listener
 * (http/rate-limit.ts), so a client asks DNS no faster than it may send requests. A client out
 * of tokens gets a 429 with Retry-After; answers the node has cached cost nothing. On the
 * loopback listener (no rate limit) only the cap applies.
 */
import type { FastifyRequest } from 'fastify';
import { budgetedResolver } from '../../../dns/budget.ts';
import { MAX_DNS_QUERIES_PER_REQUEST } from '../../../dns/limits.ts';
import type { DnsResolver } from '../../../dns/resolver.ts';
import { rateLimited } from '../../../errors.ts';

export function requestDns(resolver: DnsResolver, request: FastifyRequest): DnsResolver {
  return budgetedResolver(resolver, {
    maxQueries: MAX_DNS_QUERIES_PER_REQUEST,
    onQuery: () => {
      const wait = request.clientBudget?.take(1) ?? 0;
      if (wait > 0) throw rateLimited('SVC_ERR_RATE_LIMITED', `Too many DNS lookups asked by this client; try again in ${wait} s`, wait);
    },
  });
}
