/**
 * The owner's peer table (`/v1/node/peers`, DESIGN §8): which node answers for a namespace domain
 * when DNS does not say (or should not be asked). Adding a peer retries mail waiting for it.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { peerUrlProblem } from '../../../contract/core-rules.ts';
import { normalizeDomain } from '../../crypto/dns-txt.ts';
import { conflict } from '../../errors.ts';
import { parseWith } from '../../http/validate.ts';
import type { CoreServices } from '../core/services.ts';
import { domainName, ruled } from './schemas.ts';

// The contract's rules (contract/core-rules.ts), as Settings checks them before sending.
const PeerBody = z.strictObject({ domain: domainName, url: ruled(peerUrlProblem) });
const PeerParams = z.strictObject({ domain: z.string().max(253) });

export async function peerRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { directory, outbox, namespaces } = services;

  app.get('/v1/node/peers', async () => ({ peers: directory.list() }));

  app.post('/v1/node/peers', async (request, reply) => {
    const { domain, url } = parseWith(PeerBody, request.body);
    // One place per domain: a namespace of this node is answered here, never by a peer.
    const local = normalizeDomain(domain);
    if (local !== null && namespaces.isLocal(local)) throw conflict(`${local} is a namespace of this node; its mail is delivered here, not to a peer`);
    const peer = directory.set(domain, url);
    outbox.retryNow(peer.domain);
    return reply.code(201).send(peer);
  });

  app.delete('/v1/node/peers/:domain', async (request) => directory.remove(parseWith(PeerParams, request.params, 'path').domain));
}
