/**
 * `POST /v1/node/setup {name, domain?}` (owner API): the first-run flow's one step (setup.ts).
 * 201 with what the UI shows next (the identity and the address to share); 200 when the node was
 * already set up with this very name and domain.
 */
import type { FastifyInstance } from 'fastify';
import { normalizeDomain } from '../../crypto/dns-txt.ts';
import { parseWith } from '../../http/validate.ts';
import type { CoreServices } from '../core/services.ts';
import { SetupBody } from './schemas.ts';
import { NodeSetup } from './setup.ts';

export async function setupRoutes(app: FastifyInstance, { services, nodeId }: { services: CoreServices; nodeId: string }): Promise<void> {
  const setup = new NodeSetup(services, nodeId);
  app.post('/v1/node/setup', async (request, reply) => {
    const body = parseWith(SetupBody, request.body);
    // The schema refused what normalizeDomain refuses; this only lower-cases and drops a final dot.
    const domain = body.domain === undefined ? undefined : (normalizeDomain(body.domain) ?? body.domain);
    const result = await setup.run({ name: body.name, domain });
    return reply.code(result.created ? 201 : 200).send(result);
  });
}
