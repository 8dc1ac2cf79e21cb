/**
 * The owner's peer table (`/v1/node/peers`, DESIGN §8): which node answers for a namespace domain
 * when DNS does not say (or should not be asked). Adding a peer retries mail waiting for it.
 * Schemas: contract/node/peers.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Peer, PeerBody, PeerList, PeerParams, PeerRemoved } from '../../../../contract/node/peers.ts';
import type { CoreServices } from '../../core/services.ts';
import { NodePeers } from './service.ts';

const tags = ['owner'];

export async function peerRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { directory } = services;
  const peers = new NodePeers(services);
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/v1/node/peers', { config: { auth: 'owner' }, schema: { tags, summary: 'The peer table, by domain', response: { 200: PeerList } } }, async () => ({
    peers: directory.list(),
  }));

  api.post(
    '/v1/node/peers',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Adds or replaces the peer for a domain, and retries the mail waiting for it', body: PeerBody, response: { 201: Peer } },
    },
    async (request, reply) => reply.code(201).send(peers.add(request.body.domain, request.body.url)),
  );

  api.delete(
    '/v1/node/peers/:domain',
    { config: { auth: 'owner' }, schema: { tags, summary: 'Removes the peer for a domain', params: PeerParams, response: { 200: PeerRemoved } } },
    async (request) => directory.remove(request.params.domain),
  );
}
