/**
 * Declared schemas on a real Fastify app with the node's error handling: a request outside its
 * schema is the node's 422 `{"detail": [{loc, msg, type}]}` located by part; an answer leaves as
 * its declared schema parses it, so an undeclared field (a `secret` a handler let slip) never
 * reaches the wire, nested in arrays and unions too; an answer that drifted from its schema is
 * logged and cut to its declared part in production, and fails loudly (a 500) when responses are
 * checked (the test suites); a success answer with no declared schema for its status is refused.
 * Strings, buffers, streams and SSE are written as they are.
 */
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifySchema } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { conflict } from '../errors.ts';
import { installErrorHandlers } from './error-handler.ts';
import { installRouteSchemas } from './route-schemas.ts';
import { installSse, openSse } from './sse.ts';

const apps: FastifyInstance[] = [];

const Item = z.object({ id: z.string(), tags: z.record(z.string(), z.string()) });
const Shape = z.discriminatedUnion('kind', [z.object({ kind: z.literal('circle'), r: z.number() }), z.object({ kind: z.literal('square'), side: z.number() })]);
const Thing = z.object({ name: z.string(), count: z.number(), items: z.array(Item), shape: Shape, note: z.string().nullable().optional() });
type Thing = z.output<typeof Thing>;

const DECLARED: Thing = { name: 'x', count: 1, items: [{ id: 'a', tags: { k: 'v' } }], shape: { kind: 'circle', r: 2 } };
/** The declared answer with a `secret` at every depth: top, in an array's object, in a union's option. */
const LEAKY = { ...DECLARED, secret: 'top', items: [{ id: 'a', tags: { k: 'v' }, secret: 'item' }], shape: { kind: 'circle', r: 2, secret: 'shape' } };

interface Logged {
  level: number;
  msg: string;
  route?: string;
  problems?: string[];
  err?: { message: string };
}

async function appWith(validateResponses: boolean, answer: unknown, logged: Logged[] = []): Promise<FastifyInstance> {
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => void logged.push(JSON.parse(line) as Logged) } } });
  apps.push(app);
  installErrorHandlers(app);
  installSse(app);
  installRouteSchemas(app, { validateResponses });
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/things/:id',
    {
      schema: {
        params: z.object({ id: z.uuid() }),
        querystring: z.object({ limit: z.coerce.number().int().max(10).optional() }),
        body: z.strictObject({ name: z.string().min(1) }),
        response: { 200: Thing },
      },
    },
    // Typed as the schema says, so the drifted answers below reach the serializer.
    async () => answer as Thing,
  );
  // Answers 201 though it declares 200 only (its schema typed loosely, so the handler may).
  const declares200: FastifySchema = { response: { 200: Thing } };
  app.post('/created', { schema: declares200 }, async (_request, reply) => reply.code(201).send(answer));
  typed.get('/undescribed', { schema: { hide: true } }, async () => ({ built: 'from the route table' }));
  app.get('/text', async (_request, reply) => reply.type('text/plain').send('plain text'));
  app.get('/bytes', async (_request, reply) => reply.type('application/octet-stream').send(Buffer.from('bytes')));
  app.get('/stream', async (_request, reply) => reply.type('text/html').send(Readable.from(['<p>streamed</p>'])));
  app.get('/refused', { schema: declares200 }, async () => {
    throw conflict('SVC_ERR_MESSAGE_ID_REUSED', 'taken');
  });
  app.get('/events', async (request, reply) => {
    // Frames are checked by the stream's own writer (sse-frames.ts), not by the serializer.
    const stream = openSse(request, reply, { closesAt: new Date(Date.now() + 60_000), deadline: null }, { frame: Thing });
    stream.send('frame', DECLARED);
    stream.close();
    return reply;
  });
  await app.ready();
  return app;
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

const ID = '7b3c9f1e-2d4a-4c8b-9e6f-0a1b2c3d4e5f';
const post = (app: FastifyInstance) => app.inject({ method: 'POST', url: `/things/${ID}`, payload: { name: 'a' } });

describe('route schemas', () => {
  it('refuses input outside its schema with the node’s 422, located in path, query or body', async () => {
    const app = await appWith(false, DECLARED);
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

  it('never writes an undeclared field in production: at the top, in an array’s objects, in a union’s option', async () => {
    const logged: Logged[] = [];
    const answer = await post(await appWith(false, LEAKY, logged));
    expect(answer.statusCode).toBe(200);
    expect(answer.payload).not.toContain('secret');
    expect(answer.json()).toEqual(DECLARED);
    // Undeclared keys are dropped quietly: the answer itself parses.
    expect(logged).toEqual([]);
  });

  it('answers a drifted answer’s declared part in production, and logs the drift as an error', async () => {
    const logged: Logged[] = [];
    const drifted = { ...LEAKY, count: 'one', shape: { kind: 'hexagon', r: 2, secret: 'shape' } };
    const answer = await post(await appWith(false, drifted, logged));
    // The write behind the answer is done: the client still learns it, without anything undeclared.
    expect(answer.statusCode).toBe(200);
    expect(answer.payload).not.toContain('secret');
    expect(answer.json()).toEqual({ ...DECLARED, count: 'one', shape: { kind: 'hexagon', r: 2 } });
    expect(logged).toEqual([
      expect.objectContaining({
        level: 50,
        msg: 'answer outside its declared response schema: sent its declared part',
        route: 'POST /things/:id',
        problems: [expect.stringMatching(/^response\.count: /), expect.stringMatching(/^response\.shape\.kind: /)],
      }),
    ]);
    // What was sent is logged by path, never by value.
    expect(JSON.stringify(logged)).not.toContain('secret');
  });

  it('fails an answer with an undeclared field when responses are checked (the test suites), so a test notices', async () => {
    const good = await appWith(true, DECLARED);
    expect((await post(good)).json()).toEqual(DECLARED);
    const logged: Logged[] = [];
    const answer = await post(await appWith(true, LEAKY, logged));
    expect(answer.statusCode).toBe(500);
    expect(answer.json()).toEqual({ detail: 'Internal error', code: 'SVC_ERR_INTERNAL' });
    expect(logged.map((line) => line.err?.message)).toEqual([
      'POST /things/:id answered outside its declared response schema: response.items.0.secret: not declared; response.shape.secret: not declared; response.secret: not declared',
    ]);
  });

  it('fails an answer outside its declared schema when responses are checked', async () => {
    const answer = await post(await appWith(true, { ...DECLARED, count: 'one' }));
    expect(answer.statusCode).toBe(500);
    expect(answer.json()).toEqual({ detail: 'Internal error', code: 'SVC_ERR_INTERNAL' });
  });

  it('refuses a success answer for a status its route declares no schema for, in production too', async () => {
    for (const validateResponses of [false, true]) {
      const logged: Logged[] = [];
      const app = await appWith(validateResponses, DECLARED, logged);
      const answer = await app.inject({ method: 'POST', url: '/created' });
      expect(answer.statusCode).toBe(500);
      expect(answer.payload).not.toContain('circle');
      expect(logged.map((line) => line.err?.message)).toEqual(['POST /created answered 201 with a body, but declares no response schema for 201']);
      // A route hidden from the API description (the description itself) answers what it builds.
      expect((await app.inject({ method: 'GET', url: '/undescribed' })).json()).toEqual({ built: 'from the route table' });
      // Refusals are the error handler's {detail, code}, whatever the route declares for success.
      const refused = await app.inject({ method: 'GET', url: '/refused' });
      expect([refused.statusCode, refused.json()]).toEqual([409, { detail: 'taken', code: 'SVC_ERR_MESSAGE_ID_REUSED' }]);
    }
  });

  it('writes strings, buffers, streams and SSE frames as they are, when responses are checked', async () => {
    const app = await appWith(true, DECLARED);
    expect((await app.inject({ method: 'GET', url: '/text' })).payload).toBe('plain text');
    expect((await app.inject({ method: 'GET', url: '/bytes' })).rawPayload).toEqual(Buffer.from('bytes'));
    expect((await app.inject({ method: 'GET', url: '/stream' })).payload).toBe('<p>streamed</p>');
    // SSE over real HTTP on loopback: the stream's own writer, untouched by the serializer.
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const events = await fetch(`${url}/events`);
    expect(events.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await events.text()).toContain(`event: frame\ndata: ${JSON.stringify(DECLARED)}\n\n`);
  });
});
