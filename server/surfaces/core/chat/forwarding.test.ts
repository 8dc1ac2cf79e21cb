import { describe, expect, it } from 'vitest';
import type { FederatedMessage } from '../../../../contract/core/federation.ts';
import { remoteParty, type ChatTarget } from './domain/participants.ts';
import type { AgentRow } from '../identities/store/agents.ts';
import { assertFederatable, forwardChat } from './forwarding.ts';
import type { RemoteQueue } from '../messaging/remote-queue.ts';
import type { Party } from '../messaging/participants.ts';
import type { SignedMessage } from '../messaging/signing.ts';

function local(agentId: string, address: string | null): Party & { to: string } {
  return { agent: { agent_id: agentId } as AgentRow, alias: agentId, address, didKey: `did:key:z${agentId}`, stableId: null, to: agentId };
}
const far = (address: string): ChatTarget => ({ ...remoteParty(address), to: address });

describe('assertFederatable', () => {
  it('lets a chat on this node be, and one with another node be a pair whose sender has an address', () => {
    expect(() => assertFederatable(local('a', null), [local('b', null), local('c', null)])).not.toThrow();
    expect(() => assertFederatable(local('a', 'here.test/a'), [far('far.test/dee')])).not.toThrow();
    expect(() => assertFederatable(local('a', 'here.test/a'), [far('far.test/dee'), local('b', null)])).toThrow('a chat across nodes has two participants');
    expect(() => assertFederatable(local('a', null), [far('far.test/dee')])).toThrow('give this identity an address first');
  });
});

describe('forwardChat', () => {
  it('queues the message as signed for each participant on another node, to its domain, and says whether it did', () => {
    const queued: { from: string; domain: string; message: FederatedMessage }[] = [];
    const queue: RemoteQueue = { enqueue: (from, domain, message) => queued.push({ from, domain, message }), nudge: () => {} };
    const signed: SignedMessage = {
      message_id: 'm1',
      timestamp: '2026-01-01T00:00:00Z',
      signature: 'sig',
      signed_payload: '{}',
      from: 'here.test/a',
      from_did: 'did:key:za',
      from_stable_id: null,
    };
    const content = { body: 'hi', reply_to: null, wait_seconds: 30, hang_on: false, sender_leaving: false };
    const sender = local('a', 'here.test/a');

    expect(forwardChat(queue, sender, [local('b', null)], signed, content)).toBe(false);
    expect(queued).toEqual([]);
    expect(forwardChat(queue, sender, [far('far.test/dee')], signed, content)).toBe(true);
    expect(queued).toEqual([
      {
        from: 'a',
        domain: 'far.test',
        message: {
          v: expect.any(Number),
          kind: 'chat',
          message_id: 'm1',
          from: 'here.test/a',
          from_did: 'did:key:za',
          from_stable_id: null,
          to: 'far.test/dee',
          ...content,
          timestamp: signed.timestamp,
          signature: 'sig',
          signed_payload: '{}',
        },
      },
    ]);
  });
});
