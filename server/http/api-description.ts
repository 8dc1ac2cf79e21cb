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
import type { AuthMode } from './route-auth.ts';

const DESCRIPTION = [
  'The HTTP API of an svc-node: identities, namespaces and addresses, mail and chat (core), the',
  'shelf of agent profiles and the public catalog (library), versioned documents (docs), and on the',
  'loopback listener the owner API under /v1/node/. Errors are always JSON {"detail": ...}.',
].join(' ');

/** How each auth mode shows in the description (route-auth.ts). */
const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'An `svc_sk_` API key: bound to an identity, or a project authority key' },
  ownerToken: { type: 'http', scheme: 'bearer', description: "The node owner's `svc_ot_` token (node.json, or the UI's sign-in); loopback listener only" },
  didKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`DIDKey <did:key> <signature>` over canonical {domain, name?, operation, timestamp}, with X-SVC-Timestamp',
  },
  teamCertificate: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVCID-Team-Certificate',
    description: 'A team member certificate with the DIDKey-signed envelope (X-SVC-Signed-Payload, X-SVC-Timestamp, Authorization)',
  },
} as const;

const SECURITY: Partial<Record<AuthMode, Record<string, string[]>[]>> = {
  key: [{ apiKey: [] }],
  identity: [{ apiKey: [] }],
  project: [{ apiKey: [] }],
  owner: [{ ownerToken: [] }],
  didkey: [{ didKey: [] }],
  team: [{ teamCertificate: [] }],
};

/** Where the reference lives; its assets sit under it. */
export const API_REFERENCE_PATH = '/docs/api';

export async function installApiDescription(app: FastifyInstance, options: { reference: boolean }): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'svc-node', version: NODE_VERSION, description: DESCRIPTION },
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    // The route's declared auth becomes its security requirement.
    transform: (input) => {
      const described = jsonSchemaTransform(input);
      const security = SECURITY[input.route.config?.auth as AuthMode];
      return security === undefined ? described : { ...described, schema: { ...described.schema, security } };
    },
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => app.swagger());
  if (options.reference) {
    await app.register(fastifySwaggerUi, { routePrefix: API_REFERENCE_PATH, staticCSP: true, uiConfig: { deepLinking: true } });
  }
}
