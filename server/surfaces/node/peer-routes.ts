/**
 * The owner's peer table (`/v1/node/peers`, DESIGN §8): which node answers for a namespace domain
 * when DNS does not say (or should not be asked). Adding a peer retries mail waiting for it.
 * Schemas: contract/node/peers.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Peer, PeerBody, PeerList, PeerParams, PeerRemoved } from '../../../contract/node/peers.ts';
import { conflict } from '../../errors.ts';
import type { CoreServices } from '../core/services.ts';

const tags = ['owner'];

export async function peerRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { directory, outbox, namespaces } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/node/peers',
    { config: { auth: 'owner' }, schema: { tags, summary: 'The peer table, by domain', response: { 200: PeerList } } },
    async () => ({ peers: directory.list() }),
  );

  api.post(
    '/v1/node/peers',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Adds or replaces the peer for a domain, and retries the mail waiting for it', body: PeerBody, response: { 201: Peer } },
    },
    async (request, reply) => {
      const { domain, url } = request.body;
      // One place per domain: a namespace of this node is answered here, never by a peer.
      if (namespaces.isLocal(domain)) throw conflict('SVC_ERR_PEER_DOMAIN_LOCAL', `${domain} is a namespace of this node; its mail is delivered here, not to a peer`);
      const peer = directory.set(domain, url);
      outbox.retryNow(peer.domain);
      return reply.code(201).send(peer);
    },
  );

  api.delete(
    '/v1/node/peers/:domain',
    { config: { auth: 'owner' }, schema: { tags, summary: 'Removes the peer for a domain', params: PeerParams, response: { 200: PeerRemoved } } },
    async (request) => directory.remove(request.params.domain),
  );
}
