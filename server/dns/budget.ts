/**
 * One request's DNS: a resolver that sends at most `maxQueries` queries for it, and tells the
 * caller of each (`onQuery`), so the route can charge them to its client (on the peer listener,
 * a token of the client's rate limit each: http/rate-limit.ts). Answers from the node's cache
 * and lookups joined to one already in flight are free and not counted (guarded-resolver.ts).
 * Past the cap a lookup fails (DnsRefusal EDNSBUDGET) without asking anyone; an `onQuery` that
 * throws (the client is out of tokens: a 429) refuses the query with its error.
 */
import { DnsRefusal } from './errors.ts';
import type { DnsResolver, LookupOptions } from './resolver.ts';

export interface QueryBudget {
  maxQueries: number;
  /** Told of each query before it is sent; throwing refuses it. */
  onQuery?: (name: string) => void;
}

export interface BudgetedResolver extends DnsResolver {
  /** Queries sent so far for this request. */
  readonly queries: number;
}

export function budgetedResolver(resolver: DnsResolver, budget: QueryBudget): BudgetedResolver {
  let queries = 0;
  const charge =
    (options: LookupOptions | undefined) =>
    (name: string): void => {
      if (queries >= budget.maxQueries) throw new DnsRefusal('EDNSBUDGET', name, `a request may cause at most ${budget.maxQueries} DNS queries`);
      budget.onQuery?.(name);
      queries += 1;
      options?.onQuery?.(name);
    };
  return {
    get queries() {
      return queries;
    },
    resolveTxt: (name, options) => resolver.resolveTxt(name, { ...options, onQuery: charge(options) }),
    lookup: (hostname, options) => resolver.lookup(hostname, { ...options, onQuery: charge(options) }),
  };
}
