/**
 * The node describes its own API (issue 15): `GET /openapi.json` is an OpenAPI 3.1 document built
 * from the routes as Fastify registers them, so every route appears in it (a route cannot be added
 * without being described), routes that declare schemas carry them, and `/docs/api` is a readable
 * reference served by the node itself. The peer listener describes only what it serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

/** Routes that are not the API: the UI's files and redirect, and the reference page's assets. */
const NOT_API = /^\/(ui|docs\/api|openapi\.json)?(\/|$)/;

let t: TestNode;
const routes: { listener: string; method: string; url: string }[] = [];

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
    const api = routes.filter((route) => route.listener === 'loopback' && route.method !== 'HEAD' && !NOT_API.test(route.url));
    expect(api.length).toBeGreaterThan(100);
    const missing = api.filter((route) => doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()] === undefined);
    expect(missing.map((route) => `${route.method} ${route.url}`)).toEqual([]);
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
    expect(doc.paths['/v1/contacts/{contact_id}'].delete.parameters).toContainEqual(expect.objectContaining({ name: 'contact_id', in: 'path', required: true }));
    // The declared auth mode is the operation's security requirement.
    expect(add.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
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
