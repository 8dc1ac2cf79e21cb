import type { ActingAs } from '../../../../contract/acting-as.ts';
import { invalid } from '../../../errors.ts';
import type { IdentityService } from '../../core/identities/service.ts';

/**
 * The claim for `agentId`, for the owner sign route to sign: one of this node's identities that
 * can act (404 for an unknown or deleted one, 422 for an archived or replaced one).
 */
export function actingAsClaim(identities: Pick<IdentityService, 'row' | 'address'>, agentId: string): ActingAs {
  const row = identities.row(agentId);
  if (row.status !== 'active') {
    throw invalid('SVC_ERR_ACTING_AS_INACTIVE', [
      { loc: ['body', 'acting_as'], msg: `identity ${agentId} is ${row.status}; only an active identity can act`, type: 'value_error' },
    ]);
  }
  return { agent_id: row.agent_id, alias: row.alias, name: row.name ?? row.alias, address: identities.address(row) };
}
