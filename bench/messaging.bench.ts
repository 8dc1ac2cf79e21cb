/**
 * Messaging's benchmarks, each against a baseline measured in the same run:
 * - wake latency: POST /v1/messages returning → the mail_message frame on the recipient's open
 *   stream, with 200 other idle streams open (upstream polls every second);
 * - mail throughput: signed, persisted, authenticated sends/s with 8 concurrent clients, as a ratio
 *   to a bare Fastify route driven the same way.
 * Inbox at scale lives with the other scale benchmarks, in scale.bench.ts.
 */
import { connectSse, deadlineIn, type SseClient } from '../test/support/sse.ts';
import { startBareRoute } from './bare-route.ts';
import { startBenchNode, type BenchNode } from './fixtures.ts';
import { report, summarize } from './measure.ts';

const SENDS = Number(process.env.BENCH_WAKE_SENDS ?? 1000);
const IDLE_STREAMS = Number(process.env.BENCH_IDLE_STREAMS ?? 200);
const THROUGHPUT_REQUESTS = Number(process.env.BENCH_THROUGHPUT_REQUESTS ?? 4000);
const CLIENTS = 8;

async function openStream(bench: BenchNode, apiKey: string): Promise<SseClient> {
  const response = await connectSse(`${bench.url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(290))}`, { token: apiKey });
  if (!response.stream) throw new Error(`stream refused: ${response.status}`);
  const connected = await response.stream.next();
  if (connected.event !== 'connected') throw new Error(`unexpected first frame ${connected.event}`);
  return response.stream;
}

async function wakeLatency(bench: BenchNode): Promise<void> {
  const alice = await bench.identity('wake-alice');
  const bob = await bench.identity('wake-bob');
  const idle: SseClient[] = [];
  for (let i = 0; i < IDLE_STREAMS; i++) idle.push(await openStream(bench, (await bench.identity(`idle-${i}`)).api_key));
  const stream = await openStream(bench, bob.api_key);
  const samples: number[] = [];
  try {
    for (let i = 0; i < SENDS; i++) {
      const sent = await bench.post<{ message_id: string }>('/v1/messages', alice.api_key, { to_alias: bob.alias, subject: `n${i}`, body: 'wake' });
      const returned = performance.now();
      const frame = await stream.next(5000);
      if (frame.data.message_id !== sent.message_id) throw new Error('frames out of order');
      // A frame can beat the HTTP response back to the client: that is zero latency, not negative.
      samples.push(Math.max(0, frame.receivedAt - returned));
    }
  } finally {
    stream.close();
    for (const s of idle) s.close();
  }
  report('wake-latency', { sends: SENDS, idle_streams: IDLE_STREAMS, latency: summarize(samples), upstream_poll_interval_ms: 1000 });
}

/** Requests per second of `fire` driven by `CLIENTS` concurrent loops. */
async function throughput(total: number, fire: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < total; i = next++) await fire(i);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

async function mailThroughput(bench: BenchNode): Promise<void> {
  const senders = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => bench.identity(`tp-sender-${i}`)));
  const recipient = await bench.identity('tp-recipient');
  const bare = await startBareRoute();
  try {
    const post = (url: string, token: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) =>
        r.arrayBuffer(),
      );
    const body = { to_alias: recipient.alias, subject: 'throughput', body: 'x'.repeat(200) };
    await throughput(200, (i) => post(bare.url, 'warmup', body).then(() => post(`${bench.url}/v1/messages`, senders[i % CLIENTS]!.api_key, body)));
    const baseline = await throughput(THROUGHPUT_REQUESTS, () => post(bare.url, 'x', body));
    const mail = await throughput(THROUGHPUT_REQUESTS, (i) => post(`${bench.url}/v1/messages`, senders[i % CLIENTS]!.api_key, body));
    report('mail-throughput', {
      clients: CLIENTS,
      requests: THROUGHPUT_REQUESTS,
      baseline_bare_route_rps: Math.round(baseline),
      signed_persisted_mail_rps: Math.round(mail),
      ratio: Math.round((mail / baseline) * 1000) / 1000,
    });
  } finally {
    await bare.close();
  }
}

export async function run(): Promise<void> {
  for (const bench of [wakeLatency, mailThroughput]) {
    const node = await startBenchNode();
    try {
      await bench(node);
    } finally {
      await node.stop();
    }
  }
}
