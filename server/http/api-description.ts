/**
 * The node describes its own API (issue 15): an OpenAPI 3.1 document generated from the routes
 * as they are registered (schemas from contract/, auth from route config) at `GET /openapi.json`,
 * and, on the loopback listener, a readable reference at `/docs/api` (Swagger UI, served from the
 * node itself: nothing is fetched from elsewhere). Both listeners describe what they serve: the
 * peer listener's document has no owner routes.
 *
 * Registered before any route, since the description is collected as routes are added.
 */
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { NODE_VERSION } from '../version.ts';

const DESCRIPTION = [
  'The HTTP API of an svc-node: identities, namespaces and addresses, mail and chat (core), the',
  'shelf of agent profiles and the public catalog (library), versioned documents (docs), and on the',
  'loopback listener the owner API under /v1/node/. Errors are always JSON {"detail": ...}.',
].join(' ');

/** Where the reference lives; its assets sit under it. */
export const API_REFERENCE_PATH = '/docs/api';

export async function installApiDescription(app: FastifyInstance, options: { reference: boolean }): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'svc-node', version: NODE_VERSION, description: DESCRIPTION },
    },
    transform: jsonSchemaTransform,
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => app.swagger());
  if (options.reference) {
    await app.register(fastifySwaggerUi, { routePrefix: API_REFERENCE_PATH, staticCSP: true, uiConfig: { deepLinking: true } });
  }
}
