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
import { z } from 'zod';
import { ErrorBody } from '../../contract/errors.ts';
import { NODE_VERSION } from '../version.ts';
import { isMessagingRoute, type AuthMode } from './route-auth.ts';

const DESCRIPTION = [
  'The HTTP API of an svc-node: identities, namespaces and addresses, mail and chat (core), the',
  'shelf of agent profiles and the public catalog (library), versioned documents (docs), and on the',
  'loopback listener the owner API under /v1/node/. Errors are always JSON {"detail": ..., "code": ...}:',
  'clients branch on `code` (one per situation, from the error catalogue) and show `detail`.',
].join(' ');

/** The one error body every operation can answer with (contract/errors.ts), as a JSON Schema. */
function errorBodySchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(ErrorBody, { io: 'output' });
  return schema;
}

/** The shared error response each operation's `4XX` and `5XX` point at. */
const ERROR_RESPONSE = {
  description: 'A refusal or a fault: {"detail": ..., "code": ...}, the code naming the situation (see the ErrorBody schema for every code)',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
};
const ERROR_RESPONSE_REF = { $ref: '#/components/responses/Error' };
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  components?: { schemas?: Record<string, unknown>; responses?: Record<string, unknown> };
}

/** Every operation documents its error responses: `4XX` and `5XX`, both the shared ErrorBody response. */
function withErrorResponses<T extends object>(described: T): T {
  const document = described as OpenApiDocument;
  for (const operations of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!HTTP_METHODS.has(method)) continue;
      const responses = (operation.responses ??= {});
      for (const range of ['4XX', '5XX']) responses[range] ??= ERROR_RESPONSE_REF;
    }
  }
  const components = document.components ?? {};
  document.components = {
    ...components,
    schemas: { ...components.schemas, ErrorBody: errorBodySchema() },
    responses: { ...components.responses, Error: ERROR_RESPONSE },
  };
  return described;
}

/** How each auth mode shows in the description (route-auth.ts). */
const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'An `svc_sk_` API key: bound to an identity, or a project authority key' },
  ownerToken: { type: 'http', scheme: 'bearer', description: "The node owner's `svc_ot_` token (node.json, or the UI's sign-in); loopback listener only" },
  didKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      '`DIDKey <did:key> <signature>` with X-SVC-Timestamp. Namespace and address writes sign canonical {domain, name?, operation, timestamp}; ' +
      'on identity routes it goes with a team certificate (see teamCertificate), or alone on the messaging routes (identity-only: canonical ' +
      '{body_sha256, did_aw, timestamp}, X-SVC-DID-AW optional, checked against the did:svc log this node holds)',
  },
  teamCertificate: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVCID-Team-Certificate',
    description:
      'A team member certificate this node issued, with the DIDKey Authorization and X-SVC-Timestamp: the envelope v2 in X-SVC-Signed-Payload, ' +
      'or on identity routes also the compact v1 signature over canonical {body_sha256, team_id, timestamp} (the member must have called POST /v1/connect)',
  },
} as const;

type Security = Record<string, string[]>[];

const SECURITY: Partial<Record<AuthMode, Security>> = {
  key: [{ apiKey: [] }],
  identity: [{ apiKey: [] }, { teamCertificate: [], didKey: [] }],
  project: [{ apiKey: [] }],
  owner: [{ ownerToken: [] }],
  didkey: [{ didKey: [] }],
  team: [{ teamCertificate: [] }],
};

/**
 * A route's security requirement (alternatives, any one will do) from its declared auth
 * (route-auth.ts): an identity route takes an API key or a team certificate with its DIDKey
 * signature, and a messaging route also a DIDKey signature alone (identity-only); a team route
 * names the scope it declares (OpenAPI 3.1 allows scopes on any scheme).
 */
function securityOf(auth: AuthMode | undefined, scope: string | undefined, url: string): Security | undefined {
  if (auth === 'team' && scope !== undefined) return [{ teamCertificate: [scope] }];
  if (auth === 'identity' && isMessagingRoute(url)) return [...(SECURITY.identity ?? []), { didKey: [] }];
  return auth === undefined ? undefined : SECURITY[auth];
}

/** Where the reference lives; its assets sit under it. */
export const API_REFERENCE_PATH = '/docs/api';

export async function installApiDescription(app: FastifyInstance, options: { reference: boolean }): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'svc-node', version: NODE_VERSION, description: DESCRIPTION },
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    // The route's declared auth becomes its security requirement (securityOf).
    transform: (input) => {
      const described = jsonSchemaTransform(input);
      const { auth, scope } = input.route.config ?? {};
      const security = securityOf(auth as AuthMode | undefined, scope, input.url);
      return security === undefined ? described : { ...described, schema: { ...described.schema, security } };
    },
    transformObject: (input) => ('openapiObject' in input ? withErrorResponses(input.openapiObject) : input.swaggerObject),
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => app.swagger());
  if (options.reference) {
    await app.register(fastifySwaggerUi, { routePrefix: API_REFERENCE_PATH, staticCSP: true, uiConfig: { deepLinking: true } });
  }
}
