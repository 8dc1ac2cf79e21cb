/**
 * The node describes its own API: `GET /openapi.json` is an OpenAPI 3.1 document built
 * from the routes as Fastify registers them, so every route appears in it (a route cannot be added
 * without being described), routes that declare schemas carry them, and `/docs/api` is a readable
 * reference served by the node itself. The peer listener describes only what it serves. Every
 * operation documents its errors: one shared ErrorBody ({detail, code}, code from the catalogue).
 *
 * Generated clients and linters read it unchanged: every operation has a unique operationId and
 * says its security (MCP too), what the node requires is marked required (a stream's `deadline`),
 * and both listeners' documents pass `redocly lint` (the real CLI, offline) with the repository's
 * redocly.yaml without a single problem.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, ErrorBody } from '../../contract/errors.ts';
import type { RegisteredRoute } from '../../server/http/app.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { redoclyLint } from '../support/redocly.ts';

/** Routes that are not the API: the UI's files and redirect, and the reference page's assets. */
const NOT_API = /^\/(ui|docs\/api|openapi\.json)?(\/|$)/;
/** Routes left out of the description: `/mcp/`, an alias of `/mcp`, and the methods a stateless MCP server refuses (405). */
const NOT_DESCRIBED = ['GET /mcp', 'DELETE /mcp', 'POST /mcp/', 'GET /mcp/', 'DELETE /mcp/'];

/** Operations whose success answer is not JSON: event streams, stored files and rendered pages. */
const NOT_JSON = [
  'GET /v1/events/stream',
  'GET /v1/chat/sessions/{session_id}/stream',
  'GET /v1/node/events/stream',
  'GET /assets/{asset_id}',
  'GET /present/{token}',
  // A joining device's snapshot: sealed bytes, as a backup folder holds them.
  'GET /v1/devices/snapshot/manifests/{backup_id}',
  'GET /v1/devices/snapshot/chunks/{name}',
];

/**
 * The fields of success answers that let any value through, by name (ARCHITECTURE.md, "What an
 * answer may carry", says why each stays open): an identity's context, an agent log entry's signed
 * metadata, a team's free-form profile.yaml / blueprint.yaml values, a proposal's content, a
 * template's built-in JSON Schema and example.
 */
const OPEN_FIELDS = [
  'accepted_work',
  'approval_required',
  'content',
  'context',
  'event_subscriptions',
  'expected_apps',
  'first_mission_examples',
  'memory_policy',
  'metadata',
  'recommendations',
  'runtime_assumptions',
  'runtime_hints',
  'schema',
  'slots',
];
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly']);

/** Adds to `open` the name of each field of `schema` whose value may be anything: no schema, or an object open to any other key. */
function openFields(schema: any, name: string, open: Set<string>): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Object.keys(schema).every((key) => ANNOTATIONS.has(key))) open.add(name);
  const rest = schema.additionalProperties;
  if (rest === true || (typeof rest === 'object' && rest !== null && Object.keys(rest).length === 0)) open.add(name);
  for (const [key, field] of Object.entries(schema.properties ?? {})) openFields(field, key, open);
  for (const nested of [schema.items, rest, ...(schema.prefixItems ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    openFields(nested, name, open);
}

let t: TestNode;
const routes: (RegisteredRoute & { listener: string })[] = [];

beforeAll(async () => {
  t = await startTestNode({ publicPort: 0, onRoute: (listener, route) => void routes.push({ listener, ...route }) });
});
afterAll(async () => {
  await t.stop();
});

/** Fastify's `/v1/x/:id` as OpenAPI's `/v1/x/{id}`. */
const openApiPath = (url: string): string => url.replace(/:([A-Za-z_]\w*)/g, '{$1}');

describe('GET /openapi.json', () => {
  it('describes every route the loopback listener registers', async () => {
    const doc = expectOk(await t.request('GET', '/openapi.json'));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'svc-node', version: expect.any(String) });
    const api = routes.filter(
      (route) =>
        route.listener === 'loopback' && route.method !== 'HEAD' && !NOT_API.test(route.url) && !NOT_DESCRIBED.includes(`${route.method} ${route.url}`),
    );
    expect(api.length).toBeGreaterThan(100);
    const missing = api.filter((route) => doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()] === undefined);
    expect(missing.map((route) => `${route.method} ${route.url}`)).toEqual([]);
  });

  it("declares every operation's success answer as JSON with a schema, unless it is a stream, a stored file or a page", async () => {
    // An object answered for a status with no declared schema is refused (server/http/route-schemas.ts).
    const peerDoc = await (await fetch(`${t.node.info.public_url as string}/openapi.json`)).json();
    const without = new Set<string>();
    for (const doc of [expectOk(await t.request('GET', '/openapi.json')), peerDoc]) {
      for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
        for (const [method, op] of Object.entries(methods)) {
          const success = Object.entries(op.responses ?? {}).filter(([status]) => /^[23]\d\d$/.test(status));
          const json = success.filter(([, response]: [string, any]) => response.content?.['application/json']?.schema !== undefined);
          if (json.length === 0) without.add(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect([...without].sort()).toEqual([...NOT_JSON].sort());
  });

  it('lets any value through in a success answer only where ARCHITECTURE.md says why', async () => {
    const doc = expectOk(await t.request('GET', '/openapi.json'));
    const open = new Set<string>();
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        // The MCP SDK writes /mcp's answers; its tool results are read through their output schemas.
        if (path === '/mcp') continue;
        for (const [status, response] of Object.entries(op.responses ?? {}) as [string, any][]) {
          if (/^[23]\d\d$/.test(status)) openFields(response.content?.['application/json']?.schema, `${method.toUpperCase()} ${path}`, open);
        }
      }
    }
    expect([...open].sort()).toEqual([...OPEN_FIELDS].sort());
  });

  it('carries the schemas a route declares', async () => {
    const doc = expectOk(await t.request('GET', '/openapi.json'));
    const add = doc.paths['/v1/contacts'].post;
    expect(add.tags).toEqual(['contacts']);
    expect(add.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      required: ['contact_address'],
      properties: { contact_address: { type: 'string', maxLength: 256 }, label: { type: 'string', maxLength: 128 } },
    });
    expect(add.responses['200'].content['application/json'].schema.required).toEqual(['contact_id', 'contact_address', 'label', 'created_at']);
    expect(doc.paths['/v1/contacts/{contact_id}'].delete.parameters).toContainEqual(
      expect.objectContaining({ name: 'contact_id', in: 'path', required: true }),
    );
    // The declared auth mode is the operation's security requirement: an identity route takes its
    // API key, its team certificate with the DIDKey signature, or (a messaging route) DIDKey alone.
    expect(add.security).toEqual([{ apiKey: [] }, { teamCertificate: [], didKey: [] }, { didKey: [] }]);
    expect(doc.paths['/v1/team'].get.security).toEqual([{ apiKey: [] }, { teamCertificate: [], didKey: [] }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it("carries the library routes' declared schemas and auth (public catalog reads, team certificate for the rest)", async () => {
    const doc = expectOk(await t.request('GET', '/openapi.json'));
    const LIBRARY = /^\/v1\/(blueprints|shelf|profiles|proposals|profile-bindings|materialize|team\/register|agents\/\{agent_id\}\/profile-binding)/;
    const PUBLIC = ['GET /v1/blueprints', 'GET /v1/blueprints/{blueprint_ref}', 'GET /v1/blueprints/{blueprint_ref}/profiles/{profile_ref}'];
    // The decision is the whole request: approve and reject take no body.
    const BODILESS = ['POST /v1/proposals/{proposal_id}/approve', 'POST /v1/proposals/{proposal_id}/reject'];
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>)
      .filter(([path]) => LIBRARY.test(path))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, path, method, op })));
    expect(operations).toHaveLength(26);
    for (const { route, path, method, op } of operations) {
      const success = Object.keys(op.responses ?? {}).filter((status) => /^2\d\d$/.test(status));
      expect(success, route).not.toEqual([]);
      for (const status of success) expect(op.responses[status].content['application/json'].schema, `${route} ${status}`).toBeDefined();
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        expect(op.parameters, route).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
      if ((method === 'post' || method === 'put') && !BODILESS.includes(route)) expect(op.requestBody?.content['application/json'].schema, route).toBeDefined();
      // A team route's requirement names the scope it declares (test/security/scopes.test.ts checks which).
      expect(op.security, route).toEqual(
        PUBLIC.includes(route) ? [] : [{ teamCertificate: [expect.stringMatching(/^(library:(read|write|publish|approve)|team:admin)$/)], didKey: [] }],
      );
    }
    const shelfImport = doc.paths['/v1/shelf/import'].post;
    expect(Object.keys(shelfImport.responses)).toEqual(expect.arrayContaining(['200', '201']));
    expect(shelfImport.requestBody.content['application/json'].schema.required).toEqual(['source_blueprint_ref', 'profile_ref']);
    expect(doc.paths['/v1/blueprints'].get.parameters).toContainEqual(expect.objectContaining({ name: 'tags', in: 'query' }));
    expect(doc.paths['/v1/blueprints/import'].post.requestBody.content['application/json'].schema.properties.schema).toMatchObject({
      enum: ['svc.blueprint.import-payload.v1'],
    });
    expect(doc.paths['/v1/shelf'].get.responses['200'].content['application/json'].schema.required).toEqual(['profiles', 'has_more', 'next_after']);
  });

  it("describes who acted on a team record: the identity the app acted as, beside the certificate's alias", async () => {
    const doc = expectOk(await t.request('GET', '/openapi.json'));
    const actingAs = {
      type: 'object',
      required: ['agent_id', 'alias', 'name', 'address'],
      properties: { agent_id: { type: 'string' }, alias: { type: 'string' }, name: { type: 'string' }, address: { type: ['string', 'null'] } },
    };
    const nullable = (schema: any) => (schema.anyOf ?? [schema]).find((option: any) => option.type === 'object');
    for (const [path, method] of [
      ['/v1/proposals/{proposal_id}', 'get'],
      ['/v1/proposals/{proposal_id}/approve', 'post'],
      ['/v1/proposals/{proposal_id}/reject', 'post'],
    ] as const) {
      const proposal = doc.paths[path][method].responses['200'].content['application/json'].schema;
      expect(proposal.required, path).toEqual(expect.arrayContaining(['created_by_alias', 'created_by_acting_as', 'decided_by_alias', 'decided_by_acting_as']));
      expect(nullable(proposal.properties.decided_by_acting_as), path).toMatchObject(actingAs);
      expect(nullable(proposal.properties.created_by_acting_as), path).toMatchObject(actingAs);
    }
    const link = doc.paths['/v1/present'].get.responses['200'].content['application/json'].schema.items;
    expect(link.required).toEqual(expect.arrayContaining(['created_by_alias', 'created_by_acting_as']));
    expect(nullable(link.properties.created_by_acting_as)).toMatchObject(actingAs);
  });

  it("carries the messaging routes' declared schemas and auth (mail, chat, control, events, federation)", async () => {
    const doc = expectOk(await t.request('GET', '/openapi.json'));
    // [route, query parameters, success statuses with a JSON answer (none for a server-sent event stream)]
    const MESSAGING: [string, string[], string[]][] = [
      ['POST /v1/messages', [], ['200']],
      ['GET /v1/messages/inbox', ['limit', 'unread_only', 'message_id', 'before', 'folder'], ['200']],
      ['GET /v1/messages/outbound', [], ['200']],
      ['POST /v1/messages/{message_id}/ack', [], ['200']],
      ['GET /v1/messages/sent', ['limit', 'before'], ['200']],
      ['GET /v1/messages/sent/{message_id}', [], ['200']],
      ['POST /v1/messages/{message_id}/archive', [], ['200']],
      ['POST /v1/messages/{message_id}/unarchive', [], ['200']],
      ['POST /v1/messages/{message_id}/unread', [], ['200']],
      ['DELETE /v1/messages/{message_id}', [], ['200']],
      ['GET /v1/messages/{message_id}/rendered', [], ['200']],
      ['POST /v1/chat/sessions', [], ['200']],
      ['GET /v1/chat/sessions', ['limit', 'before'], ['200']],
      ['GET /v1/chat/pending', [], ['200']],
      ['GET /v1/chat/sessions/{session_id}/messages', ['unread_only', 'limit', 'message_id'], ['200']],
      ['POST /v1/chat/sessions/{session_id}/messages', [], ['200']],
      ['POST /v1/chat/sessions/{session_id}/read', [], ['200']],
      ['GET /v1/chat/sessions/{session_id}/stream', ['deadline', 'after'], []],
      ['POST /v1/agents/{alias}/control', [], ['200']],
      ['GET /v1/events/stream', ['deadline'], []],
      ['POST /v1/events/subscriptions', [], ['200', '201']],
      ['GET /v1/events/subscriptions', [], ['200']],
      ['DELETE /v1/events/subscriptions/{subscription_id}', [], ['200']],
      ['POST /v1/federation/messages', [], ['200']],
      ['POST /v1/federation/messages/batch', [], ['200']],
    ];
    for (const [route, query, statuses] of MESSAGING) {
      const [method, path] = route.split(' ') as [string, string];
      const op = doc.paths[path]?.[method.toLowerCase()];
      expect(op, route).toBeDefined();
      const json = Object.keys(op.responses ?? {}).filter((status) => /^2\d\d$/.test(status) && op.responses[status].content?.['application/json']);
      expect(json, route).toEqual(statuses);
      for (const status of statuses) expect(op.responses[status].content['application/json'].schema, `${route} ${status}`).toBeDefined();
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        expect(op.parameters, route).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
      for (const name of query) expect(op.parameters, route).toContainEqual(expect.objectContaining({ name, in: 'query' }));
      if (method === 'POST' && !/\/(ack|archive|unarchive|unread)$/.test(path)) expect(op.requestBody?.content['application/json'].schema, route).toBeDefined();
      // An identity route takes an API key or a team certificate with DIDKey; mail, chat, contacts and conversations also DIDKey alone (identity-only).
      const identityOnly = /^\/v1\/(messages|chat|contacts|conversations)(\/|$)/.test(path) ? [{ didKey: [] }] : [];
      expect(op.security, route).toEqual(path.startsWith('/v1/federation/') ? [] : [{ apiKey: [] }, { teamCertificate: [], didKey: [] }, ...identityOnly]);
    }
    const inbox = doc.paths['/v1/messages/inbox'].get.responses['200'].content['application/json'].schema;
    expect(inbox.required).toEqual(['messages', 'has_more', 'next_before']);
    const federated = doc.paths['/v1/federation/messages'].post.requestBody.content['application/json'].schema;
    expect(federated.oneOf ?? federated.anyOf).toHaveLength(2);
    const batch = doc.paths['/v1/federation/messages/batch'].post;
    expect(batch.requestBody.content['application/json'].schema.properties.messages.maxItems).toBe(64);
    expect(batch.responses['200'].content['application/json'].schema.properties.results).toBeDefined();
  });

  it("carries the identity, namespace, did:svc and owner routes' declared schemas and auth", async () => {
    const doc = expectOk(await t.request('GET', '/openapi.json'));
    const AREA = /^\/(v1\/(node|namespaces|did|workspaces|auth)\b|v1\/agents\/(me|resolve)\b|api\/v1\/agents\/)/;
    // Writes whose whole request is the path (and the credential).
    const BODILESS = [
      'POST /v1/namespaces/{domain}/verify',
      'POST /api/v1/agents/{agent_id}/archive',
      'POST /api/v1/agents/{agent_id}/replace',
      'PUT /v1/agents/me/rotate',
      'POST /v1/node/ui-link',
      'POST /v1/node/sessions/revoke-others',
      'POST /v1/node/devices/link',
      'DELETE /v1/node/sessions/{session_id}',
      'POST /v1/node/identities/{agent_id}/session-key',
      'POST /v1/node/identities/{agent_id}/rotate',
      'POST /v1/node/identities/{agent_id}/encryption-key/rotate',
      'POST /v1/node/teams/{team_id}/members/{certificate_id}/revoke',
      'POST /v1/node/tunnel/start',
      'POST /v1/node/tunnel/stop',
    ];
    const SSE = ['GET /v1/node/events/stream'];
    // An empty list: no credential (an operation always says which it takes).
    const security = (route: string): unknown => {
      if (route === 'POST /v1/node/session') return [];
      if (route.includes(' /v1/node/')) return [{ ownerToken: [] }];
      if (/^(POST|PUT|DELETE) \/v1\/namespaces/.test(route) && !route.endsWith('/verify')) return [{ didKey: [] }];
      // No credential, or an identity's, for which they answer addresses on other nodes too.
      if (route === 'GET /v1/namespaces/{domain}/addresses/{name}' || route === 'GET /v1/did/{did_aw}/key') {
        return [{}, { apiKey: [] }, { teamCertificate: [], didKey: [] }];
      }
      if (/ \/v1\/(did|namespaces)/.test(route)) return [];
      // A key of any kind (introspect, resolve), a project's key (init), the project's key or the owner (archive, replace).
      if (/^(GET \/v1\/auth\/introspect|GET \/v1\/agents\/resolve\/|POST \/v1\/workspaces\/init|POST \/api\/v1\/agents\/)/.test(route)) return [{ apiKey: [] }];
      // An identity's own routes: its API key, or its team certificate with the DIDKey signature.
      return [{ apiKey: [] }, { teamCertificate: [], didKey: [] }];
    };
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>)
      .filter(([path]) => AREA.test(path))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, path, method, op })));
    // 60 with the team workspace route (DELETE /v1/workspaces/{workspace_id}; a member's workspace
    // fields are PATCH /v1/agents/me's), the owner's team invites (POST, GET
    // /v1/node/teams/{team_id}/invites; DELETE .../invites/{invite_id}) and the owner's search;
    // 63 with the owner's browser sessions (list, revoke one, revoke the others); 65 with
    // end-to-end encryption keys (a self-custodial identity publishes, the owner rotates); 66 with
    // the owner's identity settings (whether it accepts plaintext mail); 68 with the recovery kit
    // (making one, and whether keys changed since); 71 with the database's backups (one now, the
    // last one, the schedule); 74 with the owner's devices (the list, a link code, revoking one);
    // 75 with the owner's rotation of an identity's signing key; 76 with cancelling a running backup.
    expect(operations).toHaveLength(76);
    for (const { route, path, method, op } of operations) {
      expect(op.security, route).toEqual(security(route));
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        expect(op.parameters, route).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
      if (SSE.includes(route)) continue;
      const success = Object.keys(op.responses ?? {}).filter((status) => /^2\d\d$/.test(status));
      expect(success, route).not.toEqual([]);
      for (const status of success) expect(op.responses[status].content['application/json'].schema, `${route} ${status}`).toBeDefined();
      if (['post', 'put', 'patch'].includes(method) && !BODILESS.includes(route))
        expect(op.requestBody?.content['application/json'].schema, route).toBeDefined();
    }
    expect(doc.paths['/v1/node/events/stream'].get.parameters).toContainEqual(expect.objectContaining({ name: 'deadline', in: 'query' }));
    const init = doc.paths['/v1/workspaces/init'].post;
    expect(Object.keys(init.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['alias', 'name', 'lifetime', 'address_reachability']),
    );
    expect(init.responses['201'].content['application/json'].schema.required).toEqual(expect.arrayContaining(['agent_id', 'api_key', 'did_key', 'address']));
    expect(Object.keys(doc.paths['/v1/namespaces/{domain}/addresses'].post.responses)).toEqual(expect.arrayContaining(['200', '201']));
    expect(doc.paths['/v1/namespaces'].get.parameters).toContainEqual(expect.objectContaining({ name: 'controller_did', in: 'query', required: true }));
    expect(doc.paths['/v1/node/setup'].post.requestBody.content['application/json'].schema.required).toEqual(['name']);
    expect(doc.paths['/v1/did/{did_aw}/log'].get.responses['200'].content['application/json'].schema.type).toBe('array');
    // Archive and replace also take the owner token on the loopback listener; the route checks it.
    expect(doc.paths['/api/v1/agents/{agent_id}/archive'].post.summary).toMatch(/owner token/);
  });

  it("carries the document routes' declared schemas and auth (team certificate; present pages, assets by id and the upload URL public)", async () => {
    const doc = expectOk(await t.request('GET', '/openapi.json'));
    // [route, query parameters, JSON success statuses (none for HTML pages and asset bytes), body: JSON, raw bytes or none, public]
    const DOCS: [string, string[], string[], 'json' | 'raw' | 'none', boolean][] = [
      ['POST /v1/documents', [], ['201'], 'json', false],
      ['GET /v1/documents', ['limit', 'after', 'q'], ['200'], 'none', false],
      ['GET /v1/documents/{slug}', [], ['200'], 'none', false],
      ['GET /v1/documents/{slug}/versions', [], ['200'], 'none', false],
      ['GET /v1/documents/{slug}/versions/{n}', [], ['200'], 'none', false],
      // A save answers 201 with a new version, 200 (unchanged) when the text is the latest's already.
      ['POST /v1/documents/{slug}/versions/template', [], ['200', '201'], 'json', false],
      // Raw text/markdown: the envelope hashes the bytes, so no JSON body is declared.
      ['POST /v1/documents/{slug}/versions', ['base_version'], ['200', '201'], 'raw', false],
      ['GET /v1/templates', [], ['200'], 'none', false],
      ['GET /v1/templates/{name}', [], ['200'], 'none', false],
      ['GET /v1/billing', [], ['200'], 'none', false],
      ['GET /v1/theme', [], ['200'], 'none', false],
      ['PUT /v1/theme', [], ['200'], 'json', false],
      ['POST /v1/assets', [], ['201'], 'json', false],
      ['POST /v1/assets/video/direct-upload', [], ['201'], 'json', false],
      ['GET /v1/assets/{asset_id}', [], ['200'], 'none', false],
      ['POST /v1/present', [], ['201'], 'json', false],
      ['POST /v1/present/{token}/revoke', [], ['200'], 'none', false],
      ['GET /v1/present', [], ['200'], 'none', false],
      ['POST /v1/present/preview', [], ['200'], 'json', false],
      ['GET /assets/{asset_id}', [], [], 'none', true],
      // The video's bytes, streamed to disk: not JSON.
      ['PUT /v1/assets/{asset_id}/upload', ['token'], ['200'], 'raw', true],
      ['GET /present/{token}', [], [], 'none', true],
      ['GET /present/{token}/state', [], ['200'], 'none', true],
      ['POST /present/{token}/preview', [], ['200'], 'json', true],
      ['POST /present/{token}/edit', [], ['200'], 'json', true],
    ];
    const described = Object.entries(doc.paths as Record<string, Record<string, any>>)
      .filter(([path]) => /^\/(v1\/(documents|templates|billing|theme|assets|present)|assets|present)(\/|$)/.test(path))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(described.sort()).toEqual(DOCS.map(([route]) => route).sort());
    for (const [route, query, statuses, body, isPublic] of DOCS) {
      const [method, path] = route.split(' ') as [string, string];
      const op = doc.paths[path][method.toLowerCase()];
      const json = Object.entries(op.responses ?? {}).filter(([, response]: [string, any]) => response.content?.['application/json'] !== undefined);
      expect(
        json.map(([status]) => status),
        route,
      ).toEqual(statuses);
      for (const [status, response] of json as [string, any][]) expect(response.content['application/json'].schema, `${route} ${status}`).toBeDefined();
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        expect(op.parameters, route).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
      for (const name of query) expect(op.parameters, route).toContainEqual(expect.objectContaining({ name, in: 'query' }));
      if (body === 'json') expect(op.requestBody?.content['application/json'].schema, route).toBeDefined();
      else expect(op.requestBody, route).toBeUndefined();
      expect(op.security, route).toEqual(
        isPublic ? [] : [{ teamCertificate: [method === 'GET' ? 'docs:read' : expect.stringMatching(/^docs:(read|write)$/)], didKey: [] }],
      );
      expect(op.tags?.length, route).toBe(1);
    }
    const create = doc.paths['/v1/documents'].post.requestBody.content['application/json'].schema;
    expect(create.required).toEqual(['slug', 'title']);
    expect(create.properties.template.required).toEqual(['name']);
    const version = doc.paths['/v1/documents/{slug}/versions/{n}'].get.responses['200'].content['application/json'].schema;
    expect(version.properties.author.required).toEqual(['kind', 'name', 'address']);
    const listing = doc.paths['/v1/documents'].get.responses['200'].content['application/json'].schema;
    expect((listing.anyOf ?? listing.oneOf).map((s: { type: string }) => s.type).sort()).toEqual(['array', 'object']);
    const preview = doc.paths['/v1/present/preview'].post.responses['200'].content['application/json'].schema;
    expect(preview.required).toEqual(['html', 'contrast', 'base_palettes']);
  });

  it("documents every operation's errors as the one shared ErrorBody response, naming every catalogue code", async () => {
    const peerUrl = t.node.info.public_url as string;
    const peerDoc = await (await fetch(`${peerUrl}/openapi.json`)).json();
    for (const doc of [expectOk(await t.request('GET', '/openapi.json')), peerDoc]) {
      const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
      );
      expect(operations.length).toBeGreaterThan(50);
      for (const { route, op } of operations) {
        expect(op.responses?.['4XX'], route).toEqual({ $ref: '#/components/responses/Error' });
        expect(op.responses?.['5XX'], route).toEqual({ $ref: '#/components/responses/Error' });
      }
      expect(doc.components.responses.Error.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      const schema = doc.components.schemas.ErrorBody;
      expect(schema).toMatchObject({ type: 'object', required: ['detail', 'code'], additionalProperties: false });
      expect([...schema.properties.code.enum].sort()).toEqual([...ERROR_CODES].sort());
      // detail: a sentence, a 422's list of {loc, msg, type}, or an object with a message.
      const kinds = (schema.properties.detail.anyOf ?? schema.properties.detail.oneOf) as { type: string; required?: string[] }[];
      expect(kinds.map((kind) => kind.type).sort()).toEqual(['array', 'object', 'string']);
    }
    // What the node answers is what the description says.
    const refusal = await t.request('GET', '/v1/no-such-route');
    expectRefusal(refusal, 404, /No route/, 'SVC_ERR_ROUTE_NOT_FOUND');
    expect(ErrorBody.safeParse(refusal.body).success).toBe(true);
  });

  it('on the peer listener, describes only what the peer listener serves', async () => {
    const peerUrl = t.node.info.public_url as string;
    const response = await fetch(`${peerUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { paths: Record<string, unknown> };
    const peerRoutes = routes.filter((route) => route.listener === 'peer' && route.method !== 'HEAD' && !NOT_API.test(route.url));
    expect(Object.keys(doc.paths).length).toBeGreaterThan(50);
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/v1/node/'))).toEqual([]);
    expect(peerRoutes.every((route) => doc.paths[openApiPath(route.url)] !== undefined)).toBe(true);
    expect((await fetch(`${peerUrl}/docs/api`)).status).toBe(404);
  });
});

/** Both listeners' documents. */
async function documents(): Promise<[[string, any], [string, any]]> {
  const peer = await (await fetch(`${t.node.info.public_url as string}/openapi.json`)).json();
  return [
    ['loopback', expectOk(await t.request('GET', '/openapi.json'))],
    ['peer', peer],
  ];
}

const operationsOf = (doc: any): { route: string; op: any }[] =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
  );

describe('what generated clients and linters need', () => {
  it("names every operation with an operationId, unique, readable, and upstream's where upstream names it", async () => {
    for (const [listener, doc] of await documents()) {
      const operations = operationsOf(doc);
      expect(
        operations.filter(({ op }) => typeof op.operationId !== 'string').map(({ route }) => route),
        listener,
      ).toEqual([]);
      for (const { route, op } of operations) expect(op.operationId, route).toMatch(/^[a-z][A-Za-z]*$/);
      const ids = operations.map(({ op }) => op.operationId as string);
      expect(
        ids.filter((id, index) => ids.indexOf(id) !== index),
        listener,
      ).toEqual([]);
    }
    const [[, doc]] = await documents();
    const id = (method: string, path: string): string => doc.paths[path][method].operationId;
    expect(id('post', '/v1/messages')).toBe('sendMessage');
    expect(id('get', '/v1/messages/inbox')).toBe('getInbox');
    expect(id('post', '/v1/messages/{message_id}/ack')).toBe('ackMessage');
    expect(id('post', '/v1/chat/sessions/{session_id}/messages')).toBe('sendChatMessage');
    expect(id('get', '/v1/node/identities')).toBe('listNodeIdentities');
    expect(id('post', '/v1/node/identities')).toBe('createNodeIdentity');
    expect(id('get', '/v1/documents/{slug}/versions/{n}')).toBe('getDocumentVersion');
    expect(id('post', '/v1/proposals/{proposal_id}/approve')).toBe('approveProposal');
    expect(id('delete', '/v1/contacts/{contact_id}')).toBe('deleteContact');
    expect(id('post', '/mcp')).toBe('mcpRequest');
  });

  it("says every operation's security, /mcp's included (the bearer API key, or a DIDKey signature), and /mcp holds to it", async () => {
    for (const [listener, doc] of await documents()) {
      expect(
        operationsOf(doc)
          .filter(({ op }) => !Array.isArray(op.security))
          .map(({ route }) => route),
        listener,
      ).toEqual([]);
    }
    const [[, doc]] = await documents();
    const mcp = doc.paths['/mcp'].post;
    expect(mcp.security).toEqual([{ apiKey: [] }, { teamCertificate: [], didKey: [] }, { didKey: [] }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(mcp.requestBody.content['application/json'].schema).toBeDefined();
    expect(Object.keys(mcp.responses)).toEqual(expect.arrayContaining(['200', '202', '4XX']));
    // `/mcp/` is the same endpoint (said in the summary), and GET and DELETE are refused: neither is described.
    expect(doc.paths['/mcp/']).toBeUndefined();
    expect(Object.keys(doc.paths['/mcp'])).toEqual(['post']);
    // As described: no credential, no MCP.
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const headers = { accept: 'application/json, text/event-stream' };
    expectRefusal(await t.request('POST', '/mcp', { body: initialize, headers }), 401);
    // A public operation says so with an empty list, and the peer listener's document names no owner token.
    expect(doc.paths['/health'].get.security).toEqual([]);
    const [, [, peer]] = await documents();
    expect(Object.keys(peer.components.securitySchemes).sort()).toEqual(['apiKey', 'deviceSignature', 'didKey', 'teamCertificate']);
  });

  it("states each route's security as its declared auth mode asks, on both listeners", async () => {
    // Written out here rather than taken from the server: what each mode asks for of a caller.
    const MESSAGING = /^\/(v1\/(messages|chat|contacts|conversations)(\/|$)|mcp$)/;
    const expected = ({ auth, scope, url, identityIfGiven }: RegisteredRoute): unknown[] => {
      switch (auth) {
        case 'public':
          // With identityIfGiven: no credential, or an identity's.
          return identityIfGiven ? [{}, { apiKey: [] }, { teamCertificate: [], didKey: [] }] : [];
        case 'key':
        case 'project':
          return [{ apiKey: [] }];
        case 'identity':
          return [{ apiKey: [] }, { teamCertificate: [], didKey: [] }, ...(MESSAGING.test(url) ? [{ didKey: [] }] : [])];
        case 'owner':
          return [{ ownerToken: [] }];
        case 'didkey':
          return [{ didKey: [] }];
        case 'team':
          return [{ teamCertificate: scope === undefined ? [] : [scope], didKey: [] }];
        case 'device':
          return [{ deviceSignature: [] }];
        default:
          throw new Error(`${url} declares no auth mode`);
      }
    };
    const docs = new Map(await documents());
    let checked = 0;
    for (const route of routes) {
      const op = docs.get(route.listener)?.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      if (op === undefined) continue;
      expect(op.security, `${route.listener} ${route.method} ${route.url} (${route.auth})`).toEqual(expected(route));
      checked += 1;
    }
    expect(checked).toBeGreaterThan(200);
  });

  it("marks a stream's deadline required, as the node requires it, and still refuses its absence with the same 422", async () => {
    const [[, doc]] = await documents();
    const STREAMS = ['/v1/events/stream', '/v1/chat/sessions/{session_id}/stream', '/v1/node/events/stream'];
    for (const path of STREAMS) {
      const deadline = doc.paths[path].get.parameters.find((parameter: any) => parameter.name === 'deadline');
      expect(deadline, path).toMatchObject({ in: 'query', required: true, schema: { type: 'string', format: 'date-time' } });
    }
    await createNodeNamespace(t, 'description.test');
    const project = await createProject(t, 'description', 'description.test');
    const me = await createIdentity(t, project.api_key, { alias: 'reader' });
    const absent = [
      await t.request('GET', '/v1/events/stream', { token: me.api_key }),
      await t.request('GET', `/v1/chat/sessions/${randomUUID()}/stream`, { token: me.api_key }),
      await t.owner('GET', '/v1/node/events/stream'),
    ];
    for (const response of absent) {
      expectRefusal(response, 422, /^query\.deadline: deadline is required: an RFC 3339 timestamp at most 300 s ahead$/, 'SVC_ERR_VALIDATION');
      expect(response.body.detail).toHaveLength(1);
    }
    // Present but not a time, or empty: refused as before, in the route's words.
    const malformed = await t.request('GET', '/v1/events/stream?deadline=tomorrow', { token: me.api_key });
    expectRefusal(malformed, 422, /^query\.deadline: deadline must be an RFC 3339 timestamp with a timezone$/, 'SVC_ERR_VALIDATION');
    const empty = await t.request('GET', '/v1/events/stream?deadline=', { token: me.api_key });
    expectRefusal(empty, 422, /^query\.deadline: deadline is required/, 'SVC_ERR_VALIDATION');
  });

  it('passes redocly lint (recommended-strict, redocly.yaml) on both listeners without a problem, offline', async () => {
    for (const [listener, doc] of await documents()) {
      const result = await redoclyLint(doc);
      const problems = result.problems.map((problem) => `${problem.ruleId} ${problem.severity}: ${problem.message} (${problem.location[0]?.pointer ?? ''})`);
      expect(problems, listener).toEqual([]);
      expect(result.exitCode, `${listener}: ${result.stderr}`).toBe(0);
      expect(result.connections, `${listener}: redocly reached for the network`).toBe(0);
    }
  }, 60_000);
});

describe('/docs/api', () => {
  it('is a reference page served by the node, its assets included, under a content security policy', async () => {
    const page = await fetch(`${t.url}/docs/api/static/index.html`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await page.text();
    // Every script and stylesheet comes from the node itself.
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(1);
    expect(sources.filter((source) => /^(https?:)?\/\//.test(source))).toEqual([]);
    expect((await fetch(`${t.url}/docs/api/static/swagger-ui-bundle.js`)).status).toBe(200);
  });
});
