/**
 * Adding a peer is one use case, whoever asks: a namespace of this node is refused (its mail is
 * delivered here), any other domain is kept in its stored spelling. Real services, no HTTP.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../../errors.ts';
import { startCoreNode, type CoreNode } from '../../../../test/support/core-node.ts';
import { NodePeers } from './service.ts';

let node: CoreNode;

beforeAll(async () => {
  node = await startCoreNode();
  return () => node.close();
});

describe('NodePeers.add', () => {
  it('refuses a namespace of this node, and keeps a peer for any other domain', async () => {
    const peers = new NodePeers(node.services);
    await node.services.namespaces.consentByOwner('home.test');
    let refused: unknown = null;
    try {
      peers.add('home.test', 'https://node.elsewhere.example');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe('SVC_ERR_PEER_DOMAIN_LOCAL');
    expect(node.services.directory.peerUrl('home.test')).toBeNull();

    expect(peers.add('away.test', 'https://node.away.example')).toMatchObject({ domain: 'away.test', url: 'https://node.away.example' });
    expect(node.services.directory.peerUrl('away.test')).toBe('https://node.away.example');
  });
});
