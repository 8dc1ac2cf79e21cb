/**
 * What each kind of caller may find (a `SearchScope`), built the way its reads are: one rule per
 * caller, shared by the routes and the MCP tool so they cannot differ.
 */
import type { SearchInput } from '../../contract/core/search.ts';
import { invalid } from '../errors.ts';
import type { SearchScope } from './service.ts';

/** `agent_id` and `team` choose among what the owner holds; anyone else has one scope already. */
export function refuseOwnerFilters(input: Pick<SearchInput, 'agent_id' | 'team'>): void {
  const named = input.agent_id !== undefined ? 'agent_id' : input.team !== undefined ? 'team' : null;
  if (named !== null)
    throw invalid('SVC_ERR_VALIDATION', [
      { loc: ['query', named], msg: `${named} narrows the owner's search (GET /v1/node/search); this search is already the caller's own`, type: 'value_error' },
    ]);
}

/** An identity: its own mail and the chats it is in. */
export function identityScope(agentId: string): SearchScope {
  return { mail: agentId, chat: agentId, documents: null, profiles: null, blueprints: false };
}

/** A team member on the documents surface: the team's documents. */
export function teamDocumentsScope(teamId: string): SearchScope {
  return { mail: null, chat: null, documents: [teamId], profiles: null, blueprints: false };
}

/** A team member on the library surface: the team's shelf and the public catalog. */
export function teamLibraryScope(teamId: string): SearchScope {
  return { mail: null, chat: null, documents: null, profiles: [teamId], blueprints: true };
}

/**
 * The node's owner acts for every identity and team it holds; `agent_id` narrows to one
 * identity's mail and chats (and then nothing of the teams), `team` to one team's documents and
 * shelf (and then no mail or chat).
 */
export function ownerScope(input: Pick<SearchInput, 'agent_id' | 'team'>): SearchScope {
  const agent = input.agent_id ?? null;
  const team = input.team ?? null;
  if (agent !== null && team !== null) {
    throw invalid('SVC_ERR_VALIDATION', [
      { loc: ['query', 'team'], msg: "name agent_id (an identity's mail and chats) or team (its documents and shelf), not both", type: 'value_error' },
    ]);
  }
  return {
    mail: team !== null ? null : (agent ?? 'all'),
    chat: team !== null ? null : (agent ?? 'all'),
    documents: agent !== null ? null : team === null ? 'all' : [team],
    profiles: agent !== null ? null : team === null ? 'all' : [team],
    blueprints: agent === null && team === null,
  };
}
