/**
 * The node's local security model (DESIGN §7) and its error contract (DESIGN §5): the loopback
 * listener's Host/Origin guard and owner token, the one-time UI code, the peer listener that
 * serves only the spec's endpoints, and JSON errors (never a 500, never HTML) for bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../server/http/limits.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { rawExchange, rawRequest } from '../support/http.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { didKeyHeaders, testKey } from '../support/keys.ts';
import { registerByOwner, setDnsController, setPublicOrigin } from '../support/namespaces.ts';
import { startTestNode, type ApiResponse, type TestNode } from '../support/node.ts';

let t: TestNode;
const controller = testKey();
const DOMAIN = 'guarded.test';

beforeAll(async () => {
  t = await startTestNode({ allowedOrigins: ['app://svc-node'] });
  expectOk(await registerByOwner(t, DOMAIN, controller.didKey), 201);
});
afterAll(async () => {
  await t.stop();
});

const port = () => new URL(t.url).port;

describe('Host and Origin guard (loopback listener)', () => {
  it('refuses a foreign Host with 403, on the spec surface and the owner API', async () => {
    for (const host of ['evil.example', `evil.example:${port()}`, `127.0.0.1:1`, '127.0.0.1']) {
      expectRefusal(await rawRequest(t.url, 'GET', `/v1/namespaces/${DOMAIN}`, { headers: { host } }), 403, /Host/, 'SVC_ERR_HOST_REFUSED');
    }
    expectRefusal(
      await rawRequest(t.url, 'GET', '/v1/node/info', { headers: { host: 'evil.example', authorization: `Bearer ${t.node.ownerToken}` } }),
      403,
      /Host/,
      'SVC_ERR_HOST_REFUSED',
    );
  });

  it('serves its own loopback Host spellings', async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, `LOCALHOST:${port()}`]) {
      expect(expectOk(await rawRequest(t.url, 'GET', `/v1/namespaces/${DOMAIN}`, { headers: { host } })).domain).toBe(DOMAIN);
    }
  });

  it('refuses a disallowed Origin with 403 and allows its own', async () => {
    for (const origin of ['https://evil.example', 'null', `http://localhost:${Number(port()) + 1}`, 'app://other']) {
      expectRefusal(await rawRequest(t.url, 'GET', `/v1/namespaces/${DOMAIN}`, { headers: { origin } }), 403, /Origin/, 'SVC_ERR_HOST_REFUSED');
    }
    // A state-changing request from a foreign page never reaches the handler.
    const body = JSON.stringify({ domain: 'csrf.test' });
    const headers = {
      origin: 'https://evil.example',
      'content-type': 'application/json',
      ...didKeyHeaders(controller, { domain: 'csrf.test', operation: 'register' }),
    };
    expectRefusal(await rawRequest(t.url, 'POST', '/v1/namespaces', { headers, body }), 403, undefined, 'SVC_ERR_HOST_REFUSED');
    expectRefusal(await t.request('GET', '/v1/namespaces/csrf.test'), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');

    const own = await rawRequest(t.url, 'GET', `/v1/namespaces/${DOMAIN}`, { headers: { origin: t.url } });
    expect(expectOk(own).domain).toBe(DOMAIN);
    expect(own.headers.get('access-control-allow-origin')).toBe(t.url);
  });

  it('gives an allowed extra origin CORS headers and answers its preflight with 204', async () => {
    const origin = 'app://svc-node';
    const response = await rawRequest(t.url, 'GET', `/v1/namespaces/${DOMAIN}`, { headers: { origin } });
    expect(expectOk(response).domain).toBe(DOMAIN);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    expect(response.headers.get('vary')).toMatch(/Origin/);

    const preflight = await rawRequest(t.url, 'OPTIONS', '/v1/workspaces/init', {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/x-svc-timestamp/);

    expectRefusal(
      await rawRequest(t.url, 'OPTIONS', '/v1/workspaces/init', { headers: { origin: 'https://evil.example' } }),
      403,
      undefined,
      'SVC_ERR_HOST_REFUSED',
    );
    // A node without the extra origin refuses it.
    const plain = await startTestNode();
    try {
      expectRefusal(await rawRequest(plain.url, 'GET', '/v1/namespaces/x.test', { headers: { origin } }), 403, /Origin/, 'SVC_ERR_HOST_REFUSED');
    } finally {
      await plain.stop();
    }
  });
});

describe('owner API', () => {
  it('refuses a request without the owner token, or with a wrong one, with 401', async () => {
    const project = await createProject(t, 'owner-checks');
    for (const token of [undefined, 'svc_ot_wrong', `${t.node.ownerToken}0`, t.node.ownerToken.slice(0, -1), project.api_key]) {
      for (const [method, path] of [
        ['GET', '/v1/node/info'],
        ['GET', '/v1/node/projects'],
        ['GET', '/v1/node/identities'],
        ['GET', '/v1/node/namespaces'],
        ['POST', '/v1/node/ui-link'],
      ] as const) {
        expectRefusal(await t.request(method, path, token ? { token } : {}), 401, /owner token/, 'SVC_ERR_OWNER_TOKEN_REQUIRED');
      }
    }
    expectRefusal(await t.request('POST', '/v1/node/projects', { body: { slug: 'intruder' } }), 401, undefined, 'SVC_ERR_OWNER_TOKEN_REQUIRED');
    expectRefusal(
      await t.request('POST', '/v1/node/namespaces', { token: 'nope', body: { domain: 'intruder.test' } }),
      401,
      undefined,
      'SVC_ERR_OWNER_TOKEN_REQUIRED',
    );
    const slugs = expectOk(await t.owner('GET', '/v1/node/projects')).projects.map((p: { slug: string }) => p.slug);
    expect(slugs).not.toContain('intruder');
    expect(expectOk(await t.owner('GET', '/v1/node/namespaces')).namespaces.map((n: { domain: string }) => n.domain)).not.toContain('intruder.test');
  });

  it('answers the owner with node info', async () => {
    const info = expectOk(await t.owner('GET', '/v1/node/info'));
    expect(info).toMatchObject({ node_id: t.node.nodeId, core_url: t.url, data_dir: t.dataDir, custody_backend: 'key-file' });
  });

  it('trades a UI link code for a browser session (never the owner token) exactly once', async () => {
    const { ui_url } = expectOk(await t.owner('POST', '/v1/node/ui-link'));
    expect(ui_url.startsWith(`${t.url}/ui/#code=`)).toBe(true);
    const code = new URL(ui_url).hash.replace(/^#code=/, '');
    expect(code.length).toBeGreaterThan(20);

    const signedIn = expectOk(await t.request('POST', '/v1/node/session', { body: { code } }));
    // A browser session of its own: never the owner token.
    expect(signedIn.session_token).toMatch(/^svc_os_[0-9a-f]{64}$/);
    expect(JSON.stringify(signedIn)).not.toContain(t.node.ownerToken);
    expectRefusal(await t.request('POST', '/v1/node/session', { body: { code } }), 401, /already used/, 'SVC_ERR_UI_LINK_INVALID');

    expectRefusal(await t.request('POST', '/v1/node/session', { body: { code: 'made-up' } }), 401, undefined, 'SVC_ERR_UI_LINK_INVALID');
    expectValidation(await t.request('POST', '/v1/node/session', { body: {} }), 'code');
    expectValidation(await t.request('POST', '/v1/node/session', { body: { code: 'c'.repeat(129) } }), 'code');
    expectRefusal(await t.request('POST', '/v1/node/session', { raw: '{"code":' }), 400, undefined, 'SVC_ERR_MALFORMED_JSON');

    // Each link is its own code; one from uiLink() works too, once.
    const other = new URL(t.node.uiLink()).hash.replace(/^#code=/, '');
    expect(other).not.toBe(code);
    expect(expectOk(await t.request('POST', '/v1/node/session', { body: { code: other } })).session_token).not.toBe(signedIn.session_token);
    expectRefusal(await t.request('POST', '/v1/node/session', { body: { code: other } }), 401, undefined, 'SVC_ERR_UI_LINK_INVALID');
  });
});

describe('peer listener', () => {
  let peerNode: TestNode;
  let peerUrl: string;

  beforeAll(async () => {
    peerNode = await startTestNode({ publicPort: 0 });
    peerUrl = peerNode.node.info.public_url as string;
    expectOk(await registerByOwner(peerNode, 'peer.test', controller.didKey), 201);
    // The tunnel's public URL, which DNS names for namespaces registered through the peer listener.
    await setPublicOrigin(peerNode, 'https://peer-node.test');
  });
  afterAll(async () => {
    await peerNode.stop();
  });

  it('is reported as public_url, on its own port', () => {
    expect(peerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(peerUrl).not.toBe(peerNode.url);
    expect(t.node.info.public_url).toBeNull();
  });

  it("serves the spec's endpoints under any Host", async () => {
    const loopbackView = expectOk(await peerNode.request('GET', '/v1/namespaces/peer.test'));
    for (const host of ['evil.example', 'node.example.com', new URL(peerUrl).host]) {
      expect(expectOk(await rawRequest(peerUrl, 'GET', '/v1/namespaces/peer.test', { headers: { host } }))).toEqual(loopbackView);
    }
    setDnsController(peerNode, 'via-peer.test', controller.didKey, 'https://peer-node.test');
    const body = JSON.stringify({ domain: 'via-peer.test' });
    const headers = {
      host: 'tunnel.example',
      'content-type': 'application/json',
      ...didKeyHeaders(controller, { domain: 'via-peer.test', operation: 'register' }),
    };
    expect(expectOk(await rawRequest(peerUrl, 'POST', '/v1/namespaces', { headers, body }), 201).domain).toBe('via-peer.test');
    expectRefusal(await rawRequest(peerUrl, 'GET', '/v1/namespaces/unknown.test'), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
  });

  it('never serves the owner API or the UI', async () => {
    const authorization = `Bearer ${peerNode.node.ownerToken}`;
    for (const [method, path] of [
      ['GET', '/v1/node/info'],
      ['GET', '/v1/node/identities'],
      ['POST', '/v1/node/ui-link'],
      ['POST', '/v1/node/session'],
      ['GET', '/ui/'],
      ['GET', '/'],
    ] as const) {
      expectRefusal(await rawRequest(peerUrl, method, path, { headers: { authorization } }), 404, undefined, 'SVC_ERR_ROUTE_NOT_FOUND');
    }
    expect(expectOk(await peerNode.owner('GET', '/v1/node/info')).public_url).toBe(peerUrl);
  });

  it('takes federation inbound (mail from other nodes)', async () => {
    expectRefusal(
      await rawRequest(peerUrl, 'POST', '/v1/federation/messages', { headers: { 'content-type': 'application/json' }, body: '{}' }),
      422,
      undefined,
      'SVC_ERR_VALIDATION',
    );
  });

  it('limits each client to a burst, then answers 429 with Retry-After, while loopback is never limited', async () => {
    const limited = await startTestNode({ publicPort: 0, peerRateLimit: { burst: 5, perSecond: 0.2 } });
    try {
      const url = limited.node.info.public_url as string;
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await rawRequest(url, 'GET', '/v1/namespaces/none.test')).status);
      expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
      const refused = await rawRequest(url, 'GET', '/v1/namespaces/none.test');
      expectRefusal(refused, 429, /Too many requests/, 'SVC_ERR_RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      for (let i = 0; i < 10; i++) expect((await limited.request('GET', '/v1/namespaces/none.test')).status).toBe(404);
    } finally {
      await limited.stop();
    }
  });

  it('does not honour the owner token for the owner-driven archive and replace', async () => {
    await createNodeNamespace(peerNode, 'owned-by-peer-node.test');
    const project = await createProject(peerNode, 'peer-project', 'owned-by-peer-node.test');
    const identity = await createIdentity(peerNode, project.api_key, persistent('exposed'));
    const authorization = `Bearer ${peerNode.node.ownerToken}`;
    for (const action of ['archive', 'replace']) {
      expectRefusal(
        await rawRequest(peerUrl, 'POST', `/api/v1/agents/${identity.agent_id}/${action}`, { headers: { authorization } }),
        401,
        undefined,
        'SVC_ERR_AUTH_INVALID',
      );
    }
    expect(expectOk(await peerNode.request('GET', '/v1/auth/introspect', { token: identity.api_key })).status).toBe('active');
    // The project's authority key, a spec credential, works there.
    const archived = await rawRequest(peerUrl, 'POST', `/api/v1/agents/${identity.agent_id}/archive`, {
      headers: { authorization: `Bearer ${project.api_key}` },
    });
    expect(expectOk(archived).status).toBe('archived');
  });
});

describe('error contract', () => {
  it('answers an unknown route with a JSON 404', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing-here'],
      ['POST', '/v2/namespaces'],
      ['DELETE', '/v1/namespaces'],
      ['POST', '/'],
    ] as const) {
      expectRefusal(await t.request(method, path), 404, /No route/, 'SVC_ERR_ROUTE_NOT_FOUND');
    }
  });

  it('sends a browser at the loopback root to the UI', async () => {
    const response = await rawRequest(t.url, 'GET', '/');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/ui/');
    // The Host guard still applies to it.
    expectRefusal(await rawRequest(t.url, 'GET', '/', { headers: { host: 'evil.example' } }), 403, /Host/, 'SVC_ERR_HOST_REFUSED');
  });

  it('answers a body over the limit with a JSON 413', async () => {
    const project = await createProject(t, 'big-bodies');
    const raw = JSON.stringify({ alias: 'big', context: { blob: 'x'.repeat(BODY_LIMIT_BYTES) } });
    expectRefusal(await t.request('POST', '/v1/workspaces/init', { token: project.api_key, raw }), 413, /too large/, 'SVC_ERR_BODY_TOO_LARGE');
    expectRefusal(await t.request('POST', '/v1/namespaces', { raw: `"${'y'.repeat(BODY_LIMIT_BYTES + 1)}"` }), 413, undefined, 'SVC_ERR_BODY_TOO_LARGE');
    const identities = expectOk(await t.owner('GET', '/v1/node/identities')).identities;
    expect(identities.filter((i: { project_slug: string }) => i.project_slug === 'big-bodies')).toEqual([]);
  });

  it('answers a body of another media type with a JSON 415', async () => {
    expectRefusal(
      await t.request('POST', '/v1/namespaces', { raw: 'domain=x.test', headers: { 'content-type': 'text/plain' } }),
      415,
      undefined,
      'SVC_ERR_UNSUPPORTED_MEDIA_TYPE',
    );
    expectRefusal(
      await t.request('POST', '/v1/namespaces', { raw: 'domain=x.test', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      undefined,
      'SVC_ERR_UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('answers an undecodable URL or an overlong path parameter with a JSON 4xx', async () => {
    expectRefusal(await t.request('GET', '/v1/did/%ZZ/key'), 400, /not a valid url/, 'SVC_ERR_MALFORMED_REQUEST');
    expectRefusal(await t.request('GET', '/v1/namespaces/%E0%A4%A/addresses'), 400, undefined, 'SVC_ERR_MALFORMED_REQUEST');
    const overlong = await t.request('GET', `/v1/namespaces/${DOMAIN}/addresses/${'n'.repeat(600)}`);
    expect(overlong.status).toBeGreaterThanOrEqual(400);
    expectRefusal(overlong, overlong.status);
  });

  it('answers bytes that are not HTTP with a JSON 400 and closes', async () => {
    const answer = await rawExchange(t.url, 'HELLO \u0001 nonsense\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ detail: expect.any(String), code: 'SVC_ERR_MALFORMED_REQUEST' });
  });

  it('never answers bad input with a 500', async () => {
    const routes: [string, string][] = [
      ['POST', '/v1/namespaces'],
      ['GET', '/v1/namespaces?controller_did=%00'],
      ['POST', `/v1/namespaces/${DOMAIN}/verify`],
      ['POST', `/v1/namespaces/${DOMAIN}/addresses`],
      ['PUT', `/v1/namespaces/${DOMAIN}/addresses/alice`],
      ['POST', `/v1/namespaces/${DOMAIN}/addresses/alice/reassign`],
      ['DELETE', `/v1/namespaces/${DOMAIN}/addresses/alice`],
      ['GET', '/v1/namespaces/%E0%A4%A/addresses'],
      ['POST', '/v1/did'],
      ['PUT', '/v1/did/did:svc:2CiZ88hVF4JuQim8nnSuyeiV2HF2'],
      ['GET', '/v1/did/%ZZ/key'],
      ['POST', '/v1/workspaces/init'],
      ['GET', '/v1/auth/introspect'],
      ['PATCH', '/v1/agents/me'],
      ['PUT', '/v1/agents/me/rotate'],
      ['DELETE', '/v1/agents/me'],
      ['GET', `/v1/agents/resolve/${DOMAIN}/${'n'.repeat(600)}`],
      ['POST', '/api/v1/agents/..%2F..%2Fetc/archive'],
      ['POST', '/api/v1/agents/00000000-0000-4000-8000-000000000000/replace'],
      ['POST', '/v1/node/session'],
      ['POST', '/v1/node/projects'],
    ];
    const bodies = [
      undefined,
      '',
      'null',
      '[]',
      '"text"',
      '12e999',
      '{}',
      '{"a":',
      '{"domain":{"$gt":""},"name":[1,2],"did_key":null}',
      '{"__proto__":{"admin":true}}',
      `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      '\u0000\uFFFF',
    ];
    const auths: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: `Bearer svc_sk_${'z'.repeat(64)}` },
      { authorization: 'DIDKey did:key:z6Mk x y' },
      { authorization: `DIDKey ${controller.didKey} ${'A'.repeat(86)}`, 'x-svc-timestamp': 'yesterday' },
      { authorization: `Bearer ${t.node.ownerToken}` },
    ];
    const seen: ApiResponse[] = [];
    for (const [method, path] of routes) {
      for (const body of bodies) {
        for (const auth of auths) {
          const headers: Record<string, string> = { ...auth };
          if (body !== undefined) headers['content-type'] = 'application/json';
          const response = await rawRequest(t.url, method, path, { headers, ...(body === undefined ? {} : { body }) });
          expect(response.status, `${method} ${path} ${String(body).slice(0, 40)} ${JSON.stringify(auth)} → ${JSON.stringify(response.body)}`).toBeLessThan(
            500,
          );
          seen.push(response);
        }
      }
    }
    const refusals = seen.filter((r) => r.status >= 400);
    expect(refusals.length).toBeGreaterThan(seen.length / 2);
    // Each a JSON {detail, code} whose code the catalogue answers with that status.
    for (const response of refusals) expectRefusal(response, response.status);
  });
});
