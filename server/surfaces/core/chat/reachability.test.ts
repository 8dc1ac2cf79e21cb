import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../context.ts';
import { startCoreNode } from '../../../../test/support/core-node.ts';
import { remoteParty } from './domain/participants.ts';
import type { AgentRow } from '../identities/store/agents.ts';
import { assertChatReachable, assertRemoteChatAccepted } from './reachability.ts';
import type { Party } from '../messaging/participants.ts';

/** A node's real database, whose contacts lists are empty. */
let noContacts: Db;

beforeAll(async () => {
  const node = await startCoreNode();
  noContacts = node.ctx.db;
  return () => node.close();
});

function local(agentId: string, projectId: string, reachability: AgentRow['address_reachability'] = 'public'): Party & { to: string } {
  const agent = { agent_id: agentId, project_id: projectId, address_reachability: reachability } as AgentRow;
  return { agent, alias: agentId, address: null, didKey: `did:key:z${agentId}`, stableId: null, to: agentId };
}

describe('assertChatReachable', () => {
  it('holds a contacts-only identity to its rule until it has engaged in the session', () => {
    const sender = local('a', 'p1');
    const guarded = local('b', 'p2', 'contacts-only');
    expect(() => assertChatReachable(noContacts, sender, guarded, false)).toThrow('only accepts messages from contacts');
    expect(() => assertChatReachable(noContacts, sender, guarded, true)).not.toThrow();
    expect(() => assertChatReachable(noContacts, sender, local('c', 'p2'), false)).not.toThrow();
  });

  it('leaves a participant on another node to its own node', () => {
    expect(() => assertChatReachable(noContacts, local('a', 'p1'), { ...remoteParty('far.test/dee'), to: 'far.test/dee' }, false)).not.toThrow();
  });
});

describe('assertRemoteChatAccepted', () => {
  it('lets a contacts-only identity take a message from another node from a contact or someone it answered', () => {
    const guarded = local('b', 'p2', 'contacts-only').agent;
    expect(() => assertRemoteChatAccepted(guarded, 'here.test/b', { contact: false, answered: false })).toThrow(
      'Refused: here.test/b only accepts messages from contacts',
    );
    expect(() => assertRemoteChatAccepted(guarded, 'here.test/b', { contact: true, answered: false })).not.toThrow();
    expect(() => assertRemoteChatAccepted(guarded, 'here.test/b', { contact: false, answered: true })).not.toThrow();
    expect(() => assertRemoteChatAccepted(local('c', 'p2').agent, 'here.test/c', { contact: false, answered: false })).not.toThrow();
  });
});
