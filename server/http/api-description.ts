/**
 * The node describes its own API, so a client author needs no copy that can drift from the code:
 * an OpenAPI 3.1 document generated from the routes
 * as they are registered (schemas from contract/, auth from route config) at `GET /openapi.json`,
 * and, on the loopback listener, a readable reference at `/docs/api` (Swagger UI, served from the
 * node itself: nothing is fetched from elsewhere). Both listeners describe what they serve: the
 * peer listener's document has no owner routes.
 *
 * The document passes `redocly lint` with the repository's redocly.yaml (test/api): every
 * operation has an operationId (operation-ids.ts), a summary and its security (an empty list
 * where no credential is asked for), and the UI's pages and trailing-slash aliases are left out.
 *
 * Registered before any route, since the description is collected as routes are added.
 */
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody } from '../../contract/errors.ts';
import pkg from '../../package.json' with { type: 'json' };
import { NODE_VERSION } from '../version.ts';
import { operationIdOf } from './operation-ids.ts';
import { declareRoutesAuth, isMessagingRoute, type AuthMode } from './route-auth.ts';

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

interface Operation {
  operationId?: string;
  security?: Security;
  responses?: Record<string, unknown>;
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; responses?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

/** Each operation of the document, with its method and path. */
function* operationsOf(document: OpenApiDocument): Generator<{ method: string; path: string; operations: Record<string, Operation>; operation: Operation }> {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      if (HTTP_METHODS.has(method)) yield { method, path, operations, operation };
    }
  }
}

/** Every operation documents its error responses: `4XX` and `5XX`, both the shared ErrorBody response. */
function withErrorResponses(document: OpenApiDocument): void {
  for (const { operation } of operationsOf(document)) {
    const responses = (operation.responses ??= {});
    for (const range of ['4XX', '5XX']) responses[range] ??= ERROR_RESPONSE_REF;
  }
  const components = document.components ?? {};
  document.components = {
    ...components,
    schemas: { ...components.schemas, ErrorBody: errorBodySchema() },
    responses: { ...components.responses, Error: ERROR_RESPONSE },
  };
}

/**
 * Every operation gets its operationId (operation-ids.ts). A route registered for several methods
 * shares one operation object between them, so each method gets its own copy to name.
 */
function withOperationIds(document: OpenApiDocument): void {
  for (const { method, path, operations, operation } of operationsOf(document)) {
    operations[method] = { ...operation, operationId: operationIdOf(method, path) };
  }
}

/**
 * A record keyed by an enum (`z.record(z.enum([...]), ...)`) becomes `propertyNames` with an enum
 * and `required` keys, which some tools read as requiring properties that are never defined: the
 * same schema also names each key as a property (what a value must be is unchanged).
 */
function withEnumKeysNamed(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) withEnumKeysNamed(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as { propertyNames?: { enum?: unknown }; additionalProperties?: unknown; properties?: unknown };
  const keys = schema.propertyNames?.enum;
  if (Array.isArray(keys) && typeof schema.additionalProperties === 'object' && schema.properties === undefined) {
    schema.properties = Object.fromEntries(keys.map((key) => [String(key), schema.additionalProperties]));
  }
  for (const value of Object.values(node)) withEnumKeysNamed(value);
}

/** A listener's document declares only the security schemes its operations use (the peer listener has no owner token). */
function withUsedSecuritySchemes(document: OpenApiDocument): void {
  const used = new Set<string>();
  for (const { operation } of operationsOf(document)) {
    for (const requirement of operation.security ?? []) for (const name of Object.keys(requirement)) used.add(name);
  }
  const components = document.components ?? {};
  // A new object: the schemes are shared by every listener's document.
  components.securitySchemes = Object.fromEntries(Object.entries(components.securitySchemes ?? {}).filter(([name]) => used.has(name)));
  document.components = components;
}

/** The whole document, once the routes are collected. */
function finish<T extends object>(described: T): T {
  const document = described as OpenApiDocument;
  withErrorResponses(document);
  withOperationIds(document);
  withEnumKeysNamed(document.paths);
  withEnumKeysNamed(document.components?.schemas);
  withUsedSecuritySchemes(document);
  return described;
}

/** How each auth mode shows in the description (route-auth.ts). */
const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'An `svc_sk_` API key: bound to an identity, or a project authority key' },
  ownerToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "The node owner's `svc_ot_` token (node.json), or a browser session `svc_os_` a sign-in link's code was traded for (`POST /v1/node/session`); loopback listener only",
  },
  didKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      '`DIDKey <did:key> <signature>` with X-SVC-Timestamp. Namespace and address writes sign canonical {domain, name?, operation, timestamp}; ' +
      'on team and identity routes it goes with a team certificate (see teamCertificate), or alone on the messaging routes (identity-only: canonical ' +
      '{body_sha256, did_aw, timestamp}, X-SVC-DID-AW optional, checked against the did:svc log this node holds)',
  },
  deviceSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      "`SVCDevice <signature>` with X-SVC-Device (the device id) and X-SVC-Timestamp: a request from another of the owner's devices, signed by its device key " +
      'over canonical {type: "svc.device.request", device_id, method, path, timestamp, body_sha256}; the device must be listed and not revoked',
  },
  teamCertificate: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVCID-Team-Certificate',
    description:
      'A team member certificate this node issued, with the DIDKey Authorization and X-SVC-Timestamp: the envelope v2 in X-SVC-Signed-Payload, ' +
      'or on the core (identity routes, where the member must have called POST /v1/connect, and POST /v1/connect itself) also the compact v1 ' +
      'signature over canonical {body_sha256, team_id, timestamp}',
  },
} as const;

type Security = Record<string, string[]>[];

/** Every mode's requirement (alternatives, any one will do); `public` asks for no credential. */
const SECURITY: Record<AuthMode, Security> = {
  public: [],
  key: [{ apiKey: [] }],
  identity: [{ apiKey: [] }, { teamCertificate: [], didKey: [] }],
  project: [{ apiKey: [] }],
  owner: [{ ownerToken: [] }],
  didkey: [{ didKey: [] }],
  team: [{ teamCertificate: [], didKey: [] }],
  device: [{ deviceSignature: [] }],
};

/**
 * A route's security requirement from its declared auth (route-auth.ts): an identity route takes
 * an API key or a team certificate with its DIDKey signature, and a messaging route also a DIDKey
 * signature alone (identity-only); a team route takes the certificate with its signature, and
 * names the scope it declares (OpenAPI 3.1 allows scopes on any scheme). A route that asks for no
 * credential (`public`) says so with an empty list: a public read, a present page, federation
 * (each message carries its sender's signature), a join code or an upload token in the request.
 */
function securityOf(auth: AuthMode, scope: string | undefined, url: string, identityIfGiven = false): Security {
  if (auth === 'team' && scope !== undefined) return [{ teamCertificate: [scope], didKey: [] }];
  // No credential, or an identity's (which the route answers more: route-auth.ts, identityIfGiven).
  if (auth === 'public' && identityIfGiven) return [{}, ...SECURITY.identity];
  if (auth === 'identity' && isMessagingRoute(url)) return [...SECURITY.identity, { didKey: [] }];
  return SECURITY[auth];
}

/**
 * Not the API: the UI's pages and redirects, a trailing-slash alias of a described path (`/mcp/`),
 * and the methods MCP refuses (405: a stateless server has no stream to open, no session to end).
 */
function isNotApi(url: string, method: string | string[]): boolean {
  if (url === '/mcp') return ![method].flat().includes('POST');
  return url === '/' || url === '/ui' || url.startsWith('/ui/') || (url.length > 1 && url.endsWith('/'));
}

/** MCP's JSON-RPC messages, as far as HTTP sees them: one message or a batch. */
const JSON_RPC = {
  oneOf: [
    { type: 'object', required: ['jsonrpc'], properties: { jsonrpc: { const: '2.0' } } },
    { type: 'array', items: { type: 'object', required: ['jsonrpc'], properties: { jsonrpc: { const: '2.0' } } } },
  ],
};

/**
 * `/mcp` (Streamable HTTP, stateless; surfaces/core/mcp) authenticates in its handler, with the
 * credentials of a messaging route (an identity's API key, or a DIDKey signature with or without
 * a team certificate), and declares no schemas: it is described here.
 */
function mcpSchema(): Record<string, unknown> {
  return {
    tags: ['mcp'],
    security: securityOf('identity', undefined, '/mcp'),
    summary: 'MCP over Streamable HTTP (also at /mcp/): one JSON-RPC message or a batch, answered as JSON, or as an SSE stream for a call that may wait',
    description: 'Stateless: GET (a stream of its own) and DELETE (the end of a session) are answered 405, Allow: POST.',
    body: JSON_RPC,
    response: {
      200: {
        description: 'The JSON-RPC answer: JSON, or an SSE stream whose last event is the answer',
        content: { 'application/json': { schema: JSON_RPC }, 'text/event-stream': { schema: { type: 'string' } } },
      },
      202: { description: 'Notifications and responses accepted (no body)', type: 'null' },
    },
  };
}

/** Where the reference lives; its assets sit under it. */
export const API_REFERENCE_PATH = '/docs/api';

export async function installApiDescription(app: FastifyInstance, options: { reference: boolean }): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'svc-node', version: NODE_VERSION, description: DESCRIPTION, license: { name: pkg.license, identifier: pkg.license } },
      // Relative: the node that served the document, on whichever listener and address it was asked.
      servers: [{ url: '/', description: 'The node that served this document' }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    // The route's declared auth becomes its security requirement (securityOf).
    transform: (input) => {
      if (isNotApi(input.url, input.route.method)) return { schema: { hide: true }, url: input.url };
      if (input.url === '/mcp') return { schema: mcpSchema(), url: input.url };
      const described = jsonSchemaTransform(input);
      const { auth, scope, identityIfGiven } = input.route.config ?? {};
      // Unreachable: route-auth.ts refuses such a route as it is registered, before this runs.
      if (auth === undefined) throw new Error(`${String(input.route.method)} ${input.url} declares no auth mode`);
      const security = securityOf(auth, scope, input.url, identityIfGiven);
      return { ...described, schema: { ...described.schema, security } };
    },
    transformObject: (input) => ('openapiObject' in input ? finish(input.openapiObject) : input.swaggerObject),
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => app.swagger());
  if (options.reference) {
    // The reference's pages and assets are public like the document they show; the plugin's
    // routes carry no config, so its own context declares their mode.
    await app.register(async (reference) => {
      declareRoutesAuth(reference, 'public');
      await reference.register(fastifySwaggerUi, { routePrefix: API_REFERENCE_PATH, staticCSP: true, uiConfig: { deepLinking: true } });
    });
  }
}
