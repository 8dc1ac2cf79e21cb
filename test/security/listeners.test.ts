/**
 * The two listeners' boundaries (DESIGN §7), each property stated once:
 * - loopback: a page on a rebound DNS name (a foreign `Host`) or a foreign page (a foreign
 *   `Origin`) is refused with a JSON 403 before any handler runs, on every kind of endpoint it
 *   serves (owner API, spec API, MCP, UI), while the node's own Host spellings and Origin pass;
 * - peer (the tunnel-facing one): no owner route exists there at all, whatever the token (the
 *   list is read from the route registrations in server/, so a new owner route is covered the day
 *   it is added), and neither the UI nor MCP is served.
 * node-security.test.ts covers the neighbouring details (CORS preflight, rate limit, UI codes).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { rawRequest } from '../support/http.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const DOMAIN = 'listeners.test';
const UI_MARKER = 'security-suite UI';

let t: TestNode;
let uiDir: string;
let peerUrl: string;
let identityKey: string;

beforeAll(() => {
  uiDir = mkdtempSync(join(tmpdir(), 'svc-node-ui-'));
  writeFileSync(join(uiDir, 'index.html'), `<!doctype html><title>${UI_MARKER}</title>`);
  return () => rmSync(uiDir, { recursive: true, force: true });
});
beforeAll(async () => {
  t = await startTestNode({ publicPort: 0, uiDir });
  peerUrl = t.node.info.public_url as string;
  return () => t.stop();
});
beforeAll(async () => {
  await createNodeNamespace(t, DOMAIN);
  const project = await createProject(t, 'listeners', DOMAIN);
  identityKey = (await createIdentity(t, project.api_key, persistent('agent'))).api_key;
});

const port = (url: string): number => Number(new URL(url).port);

interface Target {
  what: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What a request the guard lets through gets. */
  expectServed(response: Awaited<ReturnType<typeof rawRequest>>): void;
}

/** One endpoint of each kind the loopback listener serves, with the credentials it needs. */
const targets = (): Target[] => [
  {
    what: 'owner API',
    method: 'GET',
    path: '/v1/node/info',
    headers: { authorization: `Bearer ${t.node.ownerToken}` },
    expectServed: (r) => expect(expectOk(r).node_id).toBe(t.node.nodeId),
  },
  {
    what: 'spec API',
    method: 'GET',
    path: `/v1/namespaces/${DOMAIN}`,
    headers: {},
    expectServed: (r) => expect(expectOk(r).domain).toBe(DOMAIN),
  },
  {
    what: 'MCP',
    method: 'POST',
    path: '/mcp/',
    headers: { authorization: `Bearer ${identityKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'security-suite', version: '1' } },
    }),
    expectServed: (r) => expect(expectOk(r).result.serverInfo).toBeDefined(),
  },
  {
    what: 'UI',
    method: 'GET',
    path: '/ui/',
    headers: {},
    expectServed: (r) => {
      expect(r.status).toBe(200);
      expect(String(r.body)).toContain(UI_MARKER);
    },
  },
];

const send = (base: string, target: Target, extra: Record<string, string>) =>
  rawRequest(base, target.method, target.path, { headers: { ...target.headers, ...extra }, ...(target.body === undefined ? {} : { body: target.body }) });

describe('loopback listener: DNS rebinding and foreign pages', () => {
  it('refuses a foreign Host with a JSON 403 on the owner API, the spec API, MCP and the UI', async () => {
    const own = port(t.url);
    const hosts = [
      'evil.example',
      `evil.example:${own}`,
      `127.0.0.1.evil.example:${own}`,
      `localhost.evil.example:${own}`,
      `127.0.0.1:${own + 1}`,
      `127.0.0.1:${port(peerUrl)}`,
      '127.0.0.1',
    ];
    for (const target of targets()) {
      for (const host of hosts) {
        expectRefusal(await send(t.url, target, { host }), 403, /^Host ".*" is not served here$/, 'SVC_ERR_HOST_REFUSED');
      }
    }
  });

  it('refuses a foreign Origin with a JSON 403 on the owner API, the spec API, MCP and the UI', async () => {
    const own = port(t.url);
    const origins = ['http://evil.example', 'null', `http://127.0.0.1:${own}.evil.example`, `https://127.0.0.1:${own}`, `http://127.0.0.1:${port(peerUrl)}`];
    for (const target of targets()) {
      for (const origin of origins) {
        expectRefusal(await send(t.url, target, { origin }), 403, /^Origin ".*" is not allowed$/, 'SVC_ERR_HOST_REFUSED');
      }
    }
  });

  it('refuses a state-changing owner request from a foreign Host or Origin before it runs', async () => {
    const headers = { authorization: `Bearer ${t.node.ownerToken}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ slug: 'rebound' });
    expectRefusal(
      await rawRequest(t.url, 'POST', '/v1/node/projects', { headers: { ...headers, host: 'evil.example' }, body }),
      403,
      undefined,
      'SVC_ERR_HOST_REFUSED',
    );
    expectRefusal(
      await rawRequest(t.url, 'POST', '/v1/node/projects', { headers: { ...headers, origin: 'http://evil.example' }, body }),
      403,
      undefined,
      'SVC_ERR_HOST_REFUSED',
    );
    const slugs = expectOk(await t.owner('GET', '/v1/node/projects')).projects.map((p: { slug: string }) => p.slug);
    expect(slugs).not.toContain('rebound');
  });

  it("serves the node's own Host spellings and Origin on the owner API, the spec API, MCP and the UI", async () => {
    const own = port(t.url);
    for (const target of targets()) {
      for (const host of [`127.0.0.1:${own}`, `localhost:${own}`]) target.expectServed(await send(t.url, target, { host }));
      target.expectServed(await send(t.url, target, { origin: t.url }));
    }
  });

  it('serves the headless UI with a CSP that runs only its own scripts', async () => {
    const response = await fetch(`${t.url}/ui/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim())
        .filter(Boolean)
        .map((d) => [d.split(' ')[0], d]),
    );
    expect(directives.get('script-src')).toBe("script-src 'self'");
    expect(directives.get('object-src')).toBe("object-src 'none'");
    expect(directives.get('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(directives.get('base-uri')).toBe("base-uri 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

/** Every `/v1/node/...` route that server/ registers, read from the sources. */
function ownerRoutes(): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) {
        for (const match of readFileSync(file, 'utf8').matchAll(/\.(get|post|put|patch|delete)\(\s*'(\/v1\/node\/[^']*)'/g)) {
          routes.push({ method: (match[1] as string).toUpperCase(), path: match[2] as string });
        }
      }
    }
  };
  walk(join(REPO_ROOT, 'server'));
  return routes;
}

/** A route pattern with every `:param` filled in. */
const concrete = (path: string): string => path.replace(/:[a-z_]+/g, '00000000-0000-4000-8000-000000000000');

describe('peer listener', () => {
  it('has no owner route: each /v1/node route registered in server/ is "No route" there, even with the owner token', async () => {
    const routes = ownerRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(25);
    expect(routes).toContainEqual({ method: 'GET', path: '/v1/node/info' });
    expect(routes).toContainEqual({ method: 'POST', path: '/v1/node/identities/:agent_id/export' });
    expect(routes).toContainEqual({ method: 'POST', path: '/v1/node/teams/:team_id/sign' });
    const authorization = `Bearer ${t.node.ownerToken}`;
    for (const { method, path } of routes) {
      const target = concrete(path);
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
      const headers = { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
      const onPeer = await rawRequest(peerUrl, method, target, { headers, ...(body === undefined ? {} : { body }) });
      expectRefusal(onPeer, 404, /^No route /, 'SVC_ERR_ROUTE_NOT_FOUND');
      // The same route exists on loopback: without the owner token it is refused there, not missing.
      const onLoopback = await rawRequest(t.url, method, target, { ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }) });
      expect(onLoopback.status, `${method} ${path} on loopback: ${JSON.stringify(onLoopback.body)}`).toBe(path === '/v1/node/session' ? 422 : 401);
    }
  });

  it('serves neither the UI nor MCP', async () => {
    const mcp = targets().find((target) => target.what === 'MCP')!;
    for (const path of ['/mcp/', '/mcp']) {
      for (const method of ['POST', 'GET', 'DELETE']) {
        expectRefusal(
          await rawRequest(peerUrl, method, path, { headers: mcp.headers, ...(method === 'POST' ? { body: mcp.body! } : {}) }),
          404,
          /^No route /,
          'SVC_ERR_ROUTE_NOT_FOUND',
        );
      }
    }
    for (const path of ['/ui/', '/ui', '/ui/index.html']) expectRefusal(await rawRequest(peerUrl, 'GET', path), 404, /^No route /, 'SVC_ERR_ROUTE_NOT_FOUND');
  });

  it("still serves the spec's endpoints: the refusals above are the peer app's shape, not a dead port", async () => {
    expect(expectOk(await rawRequest(peerUrl, 'GET', `/v1/namespaces/${DOMAIN}`, { headers: { host: 'node.example.com' } })).domain).toBe(DOMAIN);
  });
});
