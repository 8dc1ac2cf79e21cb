/**
 * The one error handler: every refusal is `{"detail": ..., "code": ...}` with a code from the
 * catalogue answered with the response's status. Fastify's own refusals (its body parser, its
 * body limit, its router, its URL decoding) included: they carry the catalogue's codes, not
 * Fastify's FST_ERR_* names, and a fault of ours is a 500 that says nothing more.
 */
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { errorCatalogue, isErrorCode, type ErrorCode } from '../../contract/errors.ts';
import { notFound, rateLimited } from '../errors.ts';
import { frameworkErrorHandler, installErrorHandlers } from './error-handler.ts';
import { installJsonBody } from './json-body.ts';
import { MAX_JSON_DEPTH } from '../json-depth.ts';

const apps: FastifyInstance[] = [];

/** A small app with the node's error handling; `nodeBodies` swaps Fastify's JSON parser for the node's. */
async function appWith(nodeBodies: boolean, bodyLimit = 64): Promise<FastifyInstance> {
  const app = Fastify({ bodyLimit, frameworkErrors: frameworkErrorHandler });
  apps.push(app);
  installErrorHandlers(app);
  if (nodeBodies) installJsonBody(app);
  app.post('/echo', async (request) => ({ got: request.body ?? null }));
  app.get('/things/:id', async (request) => {
    if ((request.params as { id: string }).id === 'busy') throw rateLimited('SVC_ERR_RATE_LIMITED', 'Slow down', 7);
    throw notFound('SVC_ERR_TEAM_NOT_FOUND', 'No such team');
  });
  app.get('/broken', async () => {
    throw new Error('a secret of ours');
  });
  await app.ready();
  return app;
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** The response is `{detail, code}` with exactly `code`, answered with the catalogue's status for it. */
function expectCode(response: LightMyRequestResponse, code: ErrorCode, detail?: RegExp): void {
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json() as { detail: unknown; code: unknown };
  expect(Object.keys(body)).toEqual(['detail', 'code']);
  expect(isErrorCode(body.code)).toBe(true);
  expect(body.code).toBe(code);
  expect(response.statusCode).toBe(errorCatalogue[code].status);
  expect(body.detail).toBeTypeOf('string');
  if (detail) expect(body.detail).toMatch(detail);
}

const json = { 'content-type': 'application/json' };

describe.each([
  ["Fastify's own JSON parser", false],
  ["the node's JSON parser", true],
])("Fastify's refusals carry catalogue codes (%s)", (_name, nodeBodies) => {
  it('answers a body that is not JSON with 400 SVC_ERR_MALFORMED_JSON', async () => {
    const app = await appWith(nodeBodies);
    expectCode(await app.inject({ method: 'POST', url: '/echo', headers: json, payload: '{"a":' }), 'SVC_ERR_MALFORMED_JSON');
    expectCode(await app.inject({ method: 'POST', url: '/echo', headers: json, payload: 'not json' }), 'SVC_ERR_MALFORMED_JSON');
  });

  it('answers a body over the limit with 413 SVC_ERR_BODY_TOO_LARGE', async () => {
    const app = await appWith(nodeBodies);
    const response = await app.inject({ method: 'POST', url: '/echo', headers: json, payload: JSON.stringify({ text: 'x'.repeat(100) }) });
    expectCode(response, 'SVC_ERR_BODY_TOO_LARGE', /^Request body is too large$/);
  });

  it('answers a body of a media type no parser takes with 415 SVC_ERR_UNSUPPORTED_MEDIA_TYPE', async () => {
    const app = await appWith(nodeBodies);
    const form = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1' });
    expectCode(form, 'SVC_ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a method and path no route has with 404 SVC_ERR_ROUTE_NOT_FOUND', async () => {
    const app = await appWith(nodeBodies);
    expectCode(await app.inject({ method: 'GET', url: '/nowhere?x=1' }), 'SVC_ERR_ROUTE_NOT_FOUND', /^No route GET \/nowhere$/);
    expectCode(await app.inject({ method: 'DELETE', url: '/echo' }), 'SVC_ERR_ROUTE_NOT_FOUND', /^No route DELETE \/echo$/);
  });

  it('answers a URL that does not decode with 400 SVC_ERR_MALFORMED_REQUEST', async () => {
    const app = await appWith(nodeBodies);
    expectCode(await app.inject({ method: 'GET', url: '/things/%ZZ' }), 'SVC_ERR_MALFORMED_REQUEST');
  });

  it("keeps a thrown refusal's code and headers, and answers a fault of ours with 500 SVC_ERR_INTERNAL only", async () => {
    const app = await appWith(nodeBodies);
    const busy = await app.inject({ method: 'GET', url: '/things/busy' });
    expectCode(busy, 'SVC_ERR_RATE_LIMITED', /^Slow down$/);
    expect(busy.headers['retry-after']).toBe('7');
    expectCode(await app.inject({ method: 'GET', url: '/things/x' }), 'SVC_ERR_TEAM_NOT_FOUND', /^No such team$/);
    const broken = await app.inject({ method: 'GET', url: '/broken' });
    expect(broken.statusCode).toBe(500);
    expect(broken.json()).toEqual({ detail: 'Internal error', code: 'SVC_ERR_INTERNAL' });
  });
});

describe("the node's JSON parser", () => {
  it('answers JSON nested deeper than it reads with 400 SVC_ERR_JSON_TOO_DEEP, and reads JSON within it', async () => {
    const app = await appWith(true, 4096);
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    expectCode(await app.inject({ method: 'POST', url: '/echo', headers: json, payload: deep }), 'SVC_ERR_JSON_TOO_DEEP', /deeper than/);
    expect((await app.inject({ method: 'POST', url: '/echo', headers: json, payload: '[[1]]' })).json()).toEqual({ got: [[1]] });
  });
});
