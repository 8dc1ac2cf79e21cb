import { describe, expect, it } from 'vitest';
import { FEDERATION_VERSION, type FederatedMessage } from '../../../../contract/core/federation.ts';
import { remoteParty, type ChatTarget } from './domain/participants.ts';
import type { AgentRow } from '../identities/store/agents.ts';
import { assertFederatable, forwardChat, forwardClientSealedChat } from './forwarding.ts';
import type { E2eeEnvelope } from '../../../crypto/e2ee/envelope.ts';
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

describe('forwardClientSealedChat', () => {
  it("queues the client's envelope as it is, the wire's fields what it signed and no plaintext signature beside it, marked sealed by the client", () => {
    const queued: { from: string; domain: string; message: FederatedMessage; options: unknown }[] = [];
    const queue: RemoteQueue = { enqueue: (from, domain, message, options) => queued.push({ from, domain, message, options }), nudge: () => {} };
    const envelope = {
      message_id: 'm2',
      created_at: '2026-01-01T00:00:00Z',
      from: { address: 'here.test/a', did: 'did:key:za', stable_id: 'did:svc:a', encryption_key_id: 'k' },
    } as unknown as E2eeEnvelope;
    const content = { body: '', reply_to: null, wait_seconds: null, hang_on: true, sender_leaving: false };
    const sender = local('a', 'here.test/a');

    expect(forwardClientSealedChat(queue, sender, [local('b', null)], envelope, content)).toBe(false);
    expect(forwardClientSealedChat(queue, sender, [far('far.test/dee')], envelope, content)).toBe(true);
    expect(queued).toEqual([
      {
        from: 'a',
        domain: 'far.test',
        message: {
          v: FEDERATION_VERSION,
          kind: 'chat',
          message_id: 'm2',
          from: 'here.test/a',
          from_did: 'did:key:za',
          from_stable_id: 'did:svc:a',
          to: 'far.test/dee',
          ...content,
          timestamp: '2026-01-01T00:00:00Z',
          signature: '',
          signed_payload: '',
          content_mode: 'encrypted_v2',
          message_version: 2,
          encrypted_envelope: envelope,
        },
        options: { sealedByClient: true },
      },
    ]);
  });
});
