import { describe, expect, it } from 'vitest';
import type { AgentRow } from '../../identities/store/agents.ts';
import type { Party } from '../../messaging/participants.ts';
import {
  addressee,
  assertDistinctTargets,
  isAgent,
  isParticipant,
  localAgentIds,
  participantKey,
  partyKey,
  remoteParty,
  type ChatTarget,
} from './participants.ts';

function local(agentId: string, to = agentId): Party & { to: string } {
  const agent = { agent_id: agentId, project_id: 'p', alias: agentId } as AgentRow;
  return { agent, alias: agentId, address: null, didKey: `did:key:z${agentId}`, stableId: null, to };
}
const far = (address: string, to = address): ChatTarget => ({ ...remoteParty(address), to });

describe('remoteParty', () => {
  it('takes its alias from the address and sorts the key it signed with into did:key or did:svc', () => {
    expect(remoteParty('far.test/dee')).toEqual({ agent: null, alias: 'dee', address: 'far.test/dee', didKey: '', stableId: null });
    expect(remoteParty('far.test/dee', 'did:key:zDee')).toMatchObject({ didKey: 'did:key:zDee', stableId: null });
    expect(remoteParty('far.test/dee', 'did:svc:dee')).toMatchObject({ didKey: '', stableId: 'did:svc:dee' });
  });
});

describe('participant keys', () => {
  it('names identities of this node by agent id and others as remote:<address>, sorted', () => {
    expect(partyKey(far('far.test/dee'))).toBe('remote:far.test/dee');
    expect(participantKey([local('zed'), far('far.test/dee')])).toBe('remote:far.test/dee,zed');
    expect(participantKey([local('b'), local('a')])).toBe('a,b');
  });

  it('matches a stored participant by whichever column names it', () => {
    expect(isParticipant({ agent_id: 'a', remote_address: null }, local('a'))).toBe(true);
    expect(isParticipant({ agent_id: null, remote_address: 'far.test/dee' }, far('far.test/dee'))).toBe(true);
    expect(isParticipant({ agent_id: null, remote_address: 'far.test/dee' }, local('a'))).toBe(false);
    expect(isParticipant({ agent_id: 'a', remote_address: null }, far('far.test/dee'))).toBe(false);
    expect(isAgent(local('a'), 'a')).toBe(true);
    expect(isAgent(far('far.test/a'), 'a')).toBe(false);
    expect(localAgentIds([local('a'), far('far.test/dee'), local('b')])).toEqual(['a', 'b']);
  });
});

describe('assertDistinctTargets', () => {
  it('refuses the sender itself and a recipient named twice, however it was addressed', () => {
    expect(() => assertDistinctTargets('a', [local('b'), far('far.test/dee')])).not.toThrow();
    expect(() => assertDistinctTargets('a', [local('a', 'me')])).toThrow('me is you');
    expect(() => assertDistinctTargets('a', [local('b', 'bob'), local('b', 'did:key:zb')])).toThrow('bob and did:key:zb are the same recipient');
    expect(() => assertDistinctTargets('a', [far('far.test/dee'), far('far.test/dee', 'FAR.test/dee')])).toThrow('same recipient');
  });
});

describe('addressee', () => {
  it('signs to one target as addressed (one on another node by address alone), to a group as the sorted list', () => {
    expect(addressee([{ ...local('b', 'bob'), stableId: 'did:svc:b' }])).toMatchObject({ to: 'bob', didKey: 'did:key:zb', stableId: 'did:svc:b' });
    expect(addressee([far('far.test/dee')])).toEqual({ to: 'far.test/dee', didKey: '', stableId: null });
    expect(addressee([local('c', 'cy'), local('b', 'bob')])).toEqual({ to: 'bob,cy', didKey: '', stableId: null });
  });
});
