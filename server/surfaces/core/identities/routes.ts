/**
 * Identity routes (spec §4.3): creation with a project-authority key, the self operations of an
 * identity's own key, address resolution, and the hosted archive/replace transitions, which the
 * owner or the project's authority drive.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, authenticateIdentity, authenticateProjectAuthority } from '../../../auth/bearer.ts';
import { normalizeDomain } from '../../../crypto/dns-txt.ts';
import { forbidden, notFound } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import type { CoreServices } from '../services.ts';
import { AgentIdParams, InitBody, ResolveParams, SettingsBody } from './schemas.ts';

export async function identityRoutes(
  app: FastifyInstance,
  { services, ownerListener }: { services: CoreServices; ownerListener: boolean },
): Promise<void> {
  const { ctx, identities, lifecycle, owner } = services;

  /**
   * Archive and replace are owner-driven: the node owner (on the loopback listener only), or the
   * project's authority key.
   */
  const ownerDriven = (request: FastifyRequest): string => {
    const { agent_id } = parseWith(AgentIdParams, request.params, 'path');
    if (ownerListener && owner.isOwner(request)) {
      identities.row(agent_id);
      return agent_id;
    }
    const principal = authenticate(ctx, request);
    if (principal.agentId !== null) throw forbidden('Archive and replace need the project-authority key or the node owner');
    if (identities.row(agent_id).project_id !== principal.projectId) throw notFound('Identity not found');
    return agent_id;
  };

  app.post('/v1/workspaces/init', async (request, reply) => {
    const principal = authenticateProjectAuthority(ctx, request);
    const body = parseWith(InitBody, request.body);
    return reply.code(201).send(identities.create(principal.projectId, body));
  });

  app.get('/v1/auth/introspect', async (request) => identities.introspect(authenticate(ctx, request)));

  app.get('/v1/agents/me/log', async (request) => identities.log(authenticateIdentity(ctx, request).agentId));

  app.put('/v1/agents/me/rotate', async (request) => lifecycle.rotate(authenticateIdentity(ctx, request).agentId));

  app.delete('/v1/agents/me', async (request) => lifecycle.remove(authenticateIdentity(ctx, request).agentId));

  app.patch('/v1/agents/me', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return identities.updateSettings(agentId, parseWith(SettingsBody, request.body));
  });

  app.get('/v1/agents/resolve/:namespace/:name', async (request) => {
    const principal = authenticate(ctx, request);
    const params = parseWith(ResolveParams, request.params, 'path');
    const domain = normalizeDomain(params.namespace);
    if (domain === null) throw notFound('Namespace not found');
    return identities.resolve(principal, domain, params.name);
  });

  app.post('/api/v1/agents/:agent_id/archive', async (request) => lifecycle.archive(ownerDriven(request)));

  app.post('/api/v1/agents/:agent_id/replace', async (request) => lifecycle.replace(ownerDriven(request)));
}
