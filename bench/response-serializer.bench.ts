/**
 * What writing answers as their declared schema parses them costs (server/http/route-schemas.ts),
 * against writing them with JSON.stringify as the node did before, in the same run
 * (BENCH_ONLY=response-serializer):
 * - the read-heavy answers, for real: the inbox's first page of 50 messages and a page of mail
 *   search results, fetched once from a real node;
 * - over HTTP: two Fastify apps on loopback serve those same answers under the same route schemas,
 *   one with the node's serializer and one with JSON.stringify, taking turns request by request;
 * - the serializer alone, per answer, both ways;
 * - for scale, the real node's inbox and search reads.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { InboxPage } from '../contract/core/mail.ts';
import { SearchResults } from '../contract/core/search.ts';
import { installRouteSchemas } from '../server/http/route-schemas.ts';
import { startBenchNode } from './fixtures.ts';
import { report, time, timeInterleaved, type Timing } from './measure.ts';

const READS = Number(process.env.BENCH_SERIALIZER_READS ?? 2000);
const CALLS = Number(process.env.BENCH_SERIALIZER_CALLS ?? 20_000);
const MESSAGES = 60;

type Answers = { inbox: z.output<typeof InboxPage>; search: z.output<typeof SearchResults> };

/**
 * A loopback app answering `answers` under their route schemas: as the node does, or with `plain`
 * as it did before (JSON.stringify, and no check of the status an answer is sent with).
 */
async function serve(answers: Answers, plain: boolean): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  if (plain) app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  else installRouteSchemas(app);
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get('/inbox', { schema: { response: { 200: InboxPage } } }, async () => answers.inbox);
  api.get('/search', { schema: { response: { 200: SearchResults } } }, async () => answers.search);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url };
}

// p50: the mean and p99 of sub-millisecond calls are decided by the other load on the machine.
const ratio = (after: Timing, before: Timing): number => Math.round((after.p50_ms / before.p50_ms) * 100) / 100;

export async function run(): Promise<void> {
  const bench = await startBenchNode();
  const apps: FastifyInstance[] = [];
  try {
    const sender = await bench.identity('serializer-sender');
    const reader = await bench.identity('serializer-reader');
    for (let i = 0; i < MESSAGES; i++) {
      await bench.post('/v1/messages', sender.api_key, {
        to_alias: reader.alias,
        subject: `quarterly report ${i}`,
        body: `The quarterly numbers, part ${i}: ${'figures '.repeat(40)}`,
      });
    }
    const get = (path: string) => fetch(`${bench.url}${path}`, { headers: { authorization: `Bearer ${reader.api_key}` } }).then((r) => r.json());
    const answers: Answers = {
      inbox: InboxPage.parse(await get('/v1/messages/inbox?limit=50')),
      search: SearchResults.parse(await get('/v1/search?q=quarterly&limit=50')),
    };

    const after = await serve(answers, false);
    const before = await serve(answers, true);
    apps.push(after.app, before.app);
    for (const path of ['/inbox', '/search'] as const) {
      const read = (base: string) => () => fetch(`${base}${path}`).then((r) => r.arrayBuffer());
      const http = await timeInterleaved(READS, { before: read(before.url), after: read(after.url) });
      const answer = path === '/inbox' ? answers.inbox : answers.search;
      const schema = path === '/inbox' ? InboxPage : SearchResults;
      const alone = await timeInterleaved(CALLS, {
        before: async () => JSON.stringify(answer),
        after: async () => JSON.stringify(schema.parse(answer)),
      });
      const node = await time(READS, () => get(path === '/inbox' ? '/v1/messages/inbox?limit=50' : '/v1/search?q=quarterly&limit=50'));
      report(`response-serializer${path.replace('/', '-')}`, {
        answer_bytes: JSON.stringify(answer).length,
        http_before: http.before,
        http_after: http.after,
        http_ratio_p50: ratio(http.after, http.before),
        serializer_before: alone.before,
        serializer_after: alone.after,
        serializer_ratio_p50: ratio(alone.after, alone.before),
        node_read: node,
      });
    }
  } finally {
    await Promise.all(apps.map((app) => app.close()));
    await bench.stop();
  }
}
