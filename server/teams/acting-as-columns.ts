/**
 * How a record keeps the identity the app acted as (acting-as.ts): four columns, all null when the
 * record names none (an agent's own request, or a row older than the columns). One mapping each
 * way for every table that has them, so each reads back what its writer stored.
 */
import type { ActingAs } from '../../contract/acting-as.ts';

export type ActingAsColumnValues = [agentId: string | null, alias: string | null, name: string | null, address: string | null];

/** The four column values, in the order agent_id, alias, name, address. */
export function actingAsColumns(actingAs: ActingAs | null | undefined): ActingAsColumnValues {
  return actingAs ? [actingAs.agent_id, actingAs.alias, actingAs.name, actingAs.address] : [null, null, null, null];
}

/** The identity the four columns hold; null when they hold none. */
export function actingAsOfColumns(...[agentId, alias, name, address]: ActingAsColumnValues): ActingAs | null {
  if (agentId === null) return null;
  return { agent_id: agentId, alias: alias ?? '', name: name ?? alias ?? '', address };
}
