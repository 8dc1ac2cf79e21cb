/**
 * Declared schemas on a real Fastify app with the node's error handling: a request outside its
 * schema is the node's 422 `{"detail": [{loc, msg, type}]}` located by part; a declared response
 * is written as plain JSON, and with response checking on, an answer outside its schema fails
 * loudly (a 500) instead of reaching a client.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installErrorHandlers } from './error-handler.ts';
import { installRouteSchemas } from './route-schemas.ts';

const apps: FastifyInstance[] = [];

async function appWith(validateResponses: boolean, answer: unknown): Promise<FastifyInstance> {
  const app = Fastify();
  apps.push(app);
  installErrorHandlers(app);
  installRouteSchemas(app, { validateResponses });
  app.withTypeProvider<ZodTypeProvider>().post(
    '/things/:id',
    {
      schema: {
        params: z.object({ id: z.uuid() }),
        querystring: z.object({ limit: z.coerce.number().int().max(10).optional() }),
        body: z.strictObject({ name: z.string().min(1) }),
        response: { 200: z.object({ name: z.string(), count: z.number() }) },
      },
    },
    // Typed as the schema says, so the drifted answers below reach the serializer.
    async () => answer as { name: string; count: number },
  );
  await app.ready();
  return app;
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

const ID = '7b3c9f1e-2d4a-4c8b-9e6f-0a1b2c3d4e5f';

describe('route schemas', () => {
  it('refuses input outside its schema with the node’s 422, located in path, query or body', async () => {
    const app = await appWith(false, { name: 'x', count: 1 });
    const path = await app.inject({ method: 'POST', url: '/things/not-a-uuid', payload: { name: 'a' } });
    expect(path.statusCode).toBe(422);
    expect(path.json()).toEqual({ detail: [expect.objectContaining({ loc: ['path', 'id'], type: 'invalid_format' })], code: 'SVC_ERR_VALIDATION' });
    const query = await app.inject({ method: 'POST', url: `/things/${ID}?limit=99`, payload: { name: 'a' } });
    expect(query.json().detail[0].loc).toEqual(['query', 'limit']);
    const body = await app.inject({ method: 'POST', url: `/things/${ID}`, payload: { name: '', extra: 1 } });
    expect(body.statusCode).toBe(422);
    expect(body.json().detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([['body', 'name'], ['body']]);
    // No body at all is checked as an empty object: the missing field is named.
    const none = await app.inject({ method: 'POST', url: `/things/${ID}` });
    expect(none.json().detail[0].loc).toEqual(['body', 'name']);
  });

  it('writes declared responses as plain JSON, without checking them, in production', async () => {
    const app = await appWith(false, { name: 'x', count: 'not a number', extra: true });
    const answer = await app.inject({ method: 'POST', url: `/things/${ID}`, payload: { name: 'a' } });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ name: 'x', count: 'not a number', extra: true });
  });

  it('fails an answer outside its declared schema when responses are checked (the test suites)', async () => {
    const good = await appWith(true, { name: 'x', count: 1 });
    expect((await good.inject({ method: 'POST', url: `/things/${ID}`, payload: { name: 'a' } })).json()).toEqual({ name: 'x', count: 1 });
    const drifted = await appWith(true, { name: 'x', count: 'one' });
    const answer = await drifted.inject({ method: 'POST', url: `/things/${ID}`, payload: { name: 'a' } });
    expect(answer.statusCode).toBe(500);
    expect(answer.json()).toEqual({ detail: 'Internal error', code: 'SVC_ERR_INTERNAL' });
  });
});
