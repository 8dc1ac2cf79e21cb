/**
 * Federation's benchmarks: mail between two nodes on loopback, each measure against local delivery
 * on the same nodes in the same run. Node A (namespace a.bench) and node B (b.bench) each have
 * their own data dir and a peer listener (`--public-port`), and each one's peer table points at
 * the other's peer listener, so deliveries and sender checks meet the connection caps and rate
 * limits a real peer meets. Only the public API is used: whatever federation delivery the server
 * has is what is measured. Each measure gets a fresh pair, so a backlog one leaves behind cannot
 * slow the next.
 * - federation-wake-latency: `POST /v1/messages` from A returning → the `mail_message` frame on
 *   the recipient's event stream, to b.bench (cross-node) and a.bench (local) in turns, with idle
 *   streams open on both nodes. Target: cross-node p99 ≤ 50 ms.
 * - federation-throughput: 8 concurrent senders on A for a while, to 8 identities on B and then to
 *   8 on A; messages per second from the first send to the last frame at the recipients. Target:
 *   cross-node / local ≥ 0.5.
 * - federation-burst: a burst of mail accepted as fast as 8 senders can, timed until the last one
 *   is at its recipient. Target: cross-node time / local time ≤ 2.
 * - federation-peer-down: B stopped; mail from 4 senders to 4 identities on B sent evenly over the
 *   time it is down; B restarted on the same data dir and ports; the time until the backlog is in
 *   B's inboxes, and checks that every message arrived exactly once and, per sender and recipient,
 *   in send order (B's inbox lists by arrival). Targets: drained, exactly once, in order.
 *
 * Environment (defaults in brackets):
 * - BENCH_FED_WAKE_SENDS [1000]: sends each way in the wake-latency measure;
 * - BENCH_IDLE_STREAMS [200]: idle event streams open on each node during it;
 * - BENCH_FED_SECONDS [10]: how long the throughput measure's senders send, each way;
 * - BENCH_FED_BURST [5000]: mails in each burst;
 * - BENCH_FED_DOWN_SECONDS [120]: how long B is down; BENCH_FED_DOWN_MAILS [500]: mail sent meanwhile;
 * - BENCH_FED_TIMEOUT_SECONDS [600]: the longest wait for mail to arrive; a measure still waiting
 *   then reports what arrived, with its target not met (a single wake send that long fails the run).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { requestJson, type ApiResponse } from '../test/support/node.ts';
import { startBenchNode, type BenchNode } from './fixtures.ts';
import { MailArrivals } from './mail-arrivals.ts';
import { report, summarize } from './measure.ts';

const WAKE_SENDS = Number(process.env.BENCH_FED_WAKE_SENDS ?? 1000);
const IDLE_STREAMS = Number(process.env.BENCH_IDLE_STREAMS ?? 200);
const SUSTAINED_SECONDS = Number(process.env.BENCH_FED_SECONDS ?? 10);
const BURST = Number(process.env.BENCH_FED_BURST ?? 5000);
const DOWN_SECONDS = Number(process.env.BENCH_FED_DOWN_SECONDS ?? 120);
const DOWN_MAILS = Number(process.env.BENCH_FED_DOWN_MAILS ?? 500);
const TIMEOUT_MS = Number(process.env.BENCH_FED_TIMEOUT_SECONDS ?? 600) * 1000;
const SENDERS = 8;
const WAKE_WARMUP = 10;
const round = (x: number, places = 3): number => Math.round(x * 10 ** places) / 10 ** places;

interface Pair {
  a: BenchNode;
  b: BenchNode;
}
type Identity = Awaited<ReturnType<BenchNode['identity']>>;

/** Two nodes that deliver to each other through their peer listeners, for the length of `measure`. */
export async function withPair(measure: (pair: Pair) => Promise<void>): Promise<void> {
  const a = await startBenchNode({ namespace: 'a.bench', peerListener: true });
  const b = await startBenchNode({ namespace: 'b.bench', peerListener: true });
  try {
    await a.post('/v1/node/peers', a.node.ownerToken, { domain: 'b.bench', url: b.publicUrl });
    await b.post('/v1/node/peers', b.node.ownerToken, { domain: 'a.bench', url: a.publicUrl });
    await measure({ a, b });
  } finally {
    await a.stop();
    await b.stop();
  }
}

async function identities(node: BenchNode, prefix: string, count: number): Promise<Identity[]> {
  const made: Identity[] = [];
  for (let i = 0; i < count; i++) made.push(await node.identity(`${prefix}-${i}`));
  return made;
}

const addressOf = (identity: Identity): string => {
  if (identity.address === null) throw new Error(`${identity.alias} has no address`);
  return identity.address;
};

/** One mail from `from` on `node` to `to` (an address); its message_id. */
async function send(node: BenchNode, from: Identity, to: string, subject: string, body = 'bench'): Promise<string> {
  return (await node.post<{ message_id: string }>('/v1/messages', from.api_key, { to_address: to, subject, body })).message_id;
}

async function wakeLatency({ a, b }: Pair): Promise<void> {
  const alice = await a.identity('alice');
  const remote = await b.identity('bob');
  const local = await a.identity('carol');
  const idle = [
    await MailArrivals.open(a.url, await identities(a, 'idle', IDLE_STREAMS)),
    await MailArrivals.open(b.url, await identities(b, 'idle', IDLE_STREAMS)),
  ];
  const arrivals = { remote: await MailArrivals.open(b.url, [remote]), local: await MailArrivals.open(a.url, [local]) };
  const samples = { remote: [] as number[], local: [] as number[] };
  const once = async (to: 'remote' | 'local', i: number): Promise<number> => {
    const id = await send(a, alice, addressOf(to === 'remote' ? remote : local), `n${i}`, 'wake');
    const returned = performance.now();
    // A frame can beat the HTTP response back to the client: that is zero latency, not negative.
    return Math.max(0, (await arrivals[to].waitFor(id, TIMEOUT_MS)) - returned);
  };
  try {
    // Taking turns send by send, so load from outside the run falls on both alike.
    for (let i = 0; i < WAKE_WARMUP + WAKE_SENDS; i++) {
      for (const to of ['remote', 'local'] as const) {
        const latency = await once(to, i);
        if (i >= WAKE_WARMUP) samples[to].push(latency);
      }
    }
  } finally {
    for (const open of [...idle, arrivals.remote, arrivals.local]) await open.close();
  }
  const timing = (s: number[]) => ({ ...summarize(s), max_ms: round(Math.max(...s)) });
  const crossNode = timing(samples.remote);
  report('federation-wake-latency', {
    sends: WAKE_SENDS,
    idle_streams_per_node: IDLE_STREAMS,
    cross_node: crossNode,
    local: timing(samples.local),
    targets: { cross_node_p99_ms: 50 },
    targets_met: { cross_node_p99: crossNode.p99_ms <= 50 },
  });
}

interface Delivery {
  sent: number;
  delivered: number;
  /** Every message arrived before the timeout. */
  complete: boolean;
  /** First send to the last send's answer. */
  accept_seconds: number;
  /** First send to the last arrival (to the timeout when incomplete). */
  seconds: number;
  delivered_per_second: number;
}

/**
 * `SENDERS` loops on A sending to `recipients` (on `at`) in turn while `more(i)` says so for the
 * i-th mail, counted where they arrive: the recipients' event streams.
 */
async function deliver(a: BenchNode, at: BenchNode, recipients: Identity[], more: (i: number) => boolean): Promise<Delivery> {
  const senders = await identities(a, `sender-${at === a ? 'local' : 'remote'}`, SENDERS);
  const arrivals = await MailArrivals.open(at.url, recipients);
  try {
    const ids: string[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      senders.map(async (sender) => {
        for (let i = next++; more(i); i = next++) ids.push(await send(a, sender, addressOf(recipients[i % recipients.length]!), `m${i}`));
      }),
    );
    const accepted = performance.now();
    const complete = await arrivals.waitForCount(ids.length, TIMEOUT_MS);
    const seconds = ((complete ? arrivals.lastArrival(ids) : performance.now()) - started) / 1000;
    const delivered = arrivals.arrived.size;
    return {
      sent: ids.length,
      delivered,
      complete,
      accept_seconds: round((accepted - started) / 1000),
      seconds: round(seconds),
      delivered_per_second: round(delivered / seconds, 1),
    };
  } finally {
    await arrivals.close();
  }
}

async function throughput({ a, b }: Pair): Promise<void> {
  const forSeconds = (): ((i: number) => boolean) => {
    const end = performance.now() + SUSTAINED_SECONDS * 1000;
    return () => performance.now() < end;
  };
  const local = await deliver(a, a, await identities(a, 'tp', SENDERS), forSeconds());
  const crossNode = await deliver(a, b, await identities(b, 'tp', SENDERS), forSeconds());
  const ratio = round(crossNode.delivered_per_second / local.delivered_per_second);
  report('federation-throughput', {
    senders: SENDERS,
    sending_seconds: SUSTAINED_SECONDS,
    local,
    cross_node: crossNode,
    ratio,
    targets: { ratio: 0.5 },
    targets_met: { ratio: crossNode.complete && ratio >= 0.5 },
  });
}

async function burst({ a, b }: Pair): Promise<void> {
  const local = await deliver(a, a, await identities(a, 'burst', SENDERS), (i) => i < BURST);
  const crossNode = await deliver(a, b, await identities(b, 'burst', SENDERS), (i) => i < BURST);
  const ratio = round(crossNode.seconds / local.seconds);
  report('federation-burst', {
    mails: BURST,
    senders: SENDERS,
    local,
    cross_node: crossNode,
    ratio_time: ratio,
    targets: { ratio_time: 2 },
    targets_met: { ratio_time: crossNode.complete && ratio <= 2 },
  });
}

interface Sent {
  id: string;
  /** `from>to`: order is promised per sender and recipient. */
  pair: string;
  seq: number;
}

/** Mail from `senders` on A to `recipients` on B, `count` of them spread evenly over `seconds`. */
async function sendSpread(a: BenchNode, senders: Identity[], recipients: Identity[], count: number, seconds: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  const nextSeq = new Map<string, number>();
  const started = performance.now();
  for (let k = 0; k < count; k++) {
    await sleep(Math.max(0, started + (k * seconds * 1000) / count - performance.now()));
    const from = senders[k % senders.length]!;
    const to = recipients[Math.floor(k / senders.length) % recipients.length]!;
    const pair = `${addressOf(from)}>${addressOf(to)}`;
    const seq = nextSeq.get(pair) ?? 0;
    nextSeq.set(pair, seq + 1);
    sent.push({ id: await send(a, from, addressOf(to), `${pair} #${seq}`), pair, seq });
  }
  return sent;
}

interface InboxPage {
  messages: { message_id: string }[];
  has_more: boolean;
  next_before: string | null;
}

/** The identity's whole inbox in arrival order (the inbox lists newest arrival first). */
async function arrivalOrder(node: BenchNode, identity: Identity): Promise<{ message_id: string }[]> {
  const items: { message_id: string }[] = [];
  let before: string | null = null;
  do {
    const page: ApiResponse<InboxPage> = await requestJson<InboxPage>(
      node.url,
      'GET',
      `/v1/messages/inbox?limit=200${before === null ? '' : `&before=${encodeURIComponent(before)}`}`,
      { token: identity.api_key },
    );
    if (page.status !== 200) throw new Error(`inbox: ${page.status} ${JSON.stringify(page.body)}`);
    items.push(...page.body.messages);
    before = page.body.has_more ? page.body.next_before : null;
  } while (before !== null);
  return items.reverse();
}

/** What B's inboxes hold against what was sent: lost, doubled, foreign, and pairs out of order. */
async function checkInboxes(b: BenchNode, recipients: Identity[], sent: Sent[]) {
  const byId = new Map(sent.map((s) => [s.id, s]));
  const seen = new Set<string>();
  /** The highest seq seen so far per pair: a lower one arrived after a later send. */
  const highest = new Map<string, number>();
  const outOfOrder = new Set<string>();
  let duplicates = 0;
  let unexpected = 0;
  for (const recipient of recipients) {
    for (const { message_id } of await arrivalOrder(b, recipient)) {
      const message = byId.get(message_id);
      if (message === undefined || !message.pair.endsWith(`>${addressOf(recipient)}`)) unexpected++;
      else if (seen.has(message_id)) duplicates++;
      else {
        seen.add(message_id);
        const before = highest.get(message.pair) ?? -1;
        if (message.seq < before) outOfOrder.add(message.pair);
        highest.set(message.pair, Math.max(message.seq, before));
      }
    }
  }
  return { missing: sent.length - seen.size, duplicates, unexpected, pairs: new Set(sent.map((s) => s.pair)).size, pairs_out_of_order: outOfOrder.size };
}

async function peerDown({ a, b }: Pair): Promise<void> {
  const senders = await identities(a, 'down-sender', 4);
  const recipients = await identities(b, 'down', 4);
  // Opened before B stops: like EventSource, they come back with Last-Event-ID when B does.
  const arrivals = await MailArrivals.open(b.url, recipients);
  let drain: { complete: boolean; seconds: number };
  let sent: Sent[];
  try {
    await b.node.close();
    const down = performance.now();
    sent = await sendSpread(a, senders, recipients, DOWN_MAILS, DOWN_SECONDS);
    await sleep(Math.max(0, down + DOWN_SECONDS * 1000 - performance.now()));
    await b.restart();
    const back = performance.now();
    const complete = await arrivals.waitForCount(sent.length, TIMEOUT_MS);
    drain = { complete, seconds: round(((complete ? arrivals.lastArrival(sent.map((s) => s.id)) : performance.now()) - back) / 1000) };
  } finally {
    await arrivals.close();
  }
  const checks = await checkInboxes(b, recipients, sent);
  const exactlyOnce = checks.missing === 0 && checks.duplicates === 0 && checks.unexpected === 0;
  report('federation-peer-down', {
    mails: sent.length,
    senders: senders.length,
    recipients: recipients.length,
    down_seconds: DOWN_SECONDS,
    drained: drain.complete,
    drain_seconds_after_restart: drain.seconds,
    ...checks,
    targets_met: { drained: drain.complete, exactly_once: exactlyOnce, in_order: checks.pairs_out_of_order === 0 },
  });
}

export async function run(): Promise<void> {
  for (const measure of [wakeLatency, throughput, burst, peerDown]) await withPair(measure);
}
