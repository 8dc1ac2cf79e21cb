/**
 * The many-node federation scenario, shared by the reliability suite (20 nodes, 60 s)
 * and the regular suite's short run. Every node is a `svc-node serve` on its own test host
 * (node-network.ts: a network namespace, or a loopback address where namespaces cannot be made),
 * with its own namespace `n<i>.test`, a few identities `n<i>.test/m<j>`, and a peer table naming
 * every other node's domain → that node's peer listener. Only the public surface is used: the
 * process, its node.json, and HTTP.
 *
 * Identities mail identities on other nodes, all to all, offered open-loop (on a clock, so a
 * federation that falls behind shows as queued mail and latency rather than a slower test) while
 * some nodes are SIGKILLed and started again on the same data dir, address and ports. Afterwards
 * the senders' outboxes get a bounded time to drain; then every inbox is read in full.
 *
 * What must hold: every acknowledged send (a 2xx with its message_id) is in its recipient's inbox
 * exactly once, with that id, and nowhere else; none bounced or still queued; sends refused only
 * because their node was killed while they were in flight (those may or may not have committed,
 * so one may show up once, unacknowledged); and each node's resident memory grows by at most the
 * stated share over the last half of the run (a restarted node from the end of its warm-up on).
 * Per node it reports delivery latency (the send's answer → the recipient node's `created_at` of
 * its copy, one clock on one machine) and throughput.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import { summarize, type Timing } from '../../bench/measure.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from './identities.ts';
import { createNodeNetwork, startHostNode, type HostNode, type NodeNetwork } from './node-network.ts';
import type { ApiResponse } from './node.ts';
import { pool } from './pool.ts';
import { seeded } from './seeded.ts';

export interface ManyNodesOptions {
  nodes: number;
  identitiesPerNode: number;
  seconds: number;
  /** Offered sends per second, all nodes together. */
  rate: number;
  /** Nodes SIGKILLed (each a different one) and started again during the run. */
  kills: number;
  /** How long a killed node stays down before it is started again. */
  downSeconds: number;
  /** The longest the outboxes may take to drain once the load stops. */
  drainSeconds: number;
  /** The most a node's resident memory may grow over the last half of the run (0.15: 15%). */
  rssGrowthLimit: number;
  /** After a restart, memory is measured from this many seconds on. */
  warmupSeconds: number;
  seed: number;
}

/** Sends in flight beyond which the generator holds back (and counts it): the test client's own bound. */
const MAX_IN_FLIGHT = 256;
/** A memory window shorter than this says nothing; the node is reported as not measured. */
const MIN_RSS_WINDOW_SECONDS = 6;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const ok = (status: number): boolean => status >= 200 && status < 300;
const append = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
};

interface Member {
  node: NodeState;
  address: string;
  apiKey: string;
}

interface NodeState {
  name: string;
  domain: string;
  served: HostNode;
  members: Member[];
  up: boolean;
  /** Bumped at each kill: a send begun in an earlier generation and unanswered was cut off by it. */
  generation: number;
  /** Seconds into the run when the node was last started again; null if never killed. */
  restartedAt: number | null;
  rss: { at: number; bytes: number }[];
}

interface Send {
  index: number;
  from: Member;
  to: Member;
  generation: number;
  /** Date.now() when the 2xx came back (compared with the recipient node's clock: the same one). */
  ackedAt: number | null;
  /** Milliseconds from the request to its 2xx. */
  answerMs: number | null;
  messageId: string | null;
  /** Unanswered because its node was killed while it was in flight. */
  cutOff: boolean;
}

export interface Kill {
  node: string;
  at: number;
  signal: string | null;
  backAt: number;
}

export interface NodeFigures {
  name: string;
  address: string;
  sent: number;
  received: number;
  perSecond: number;
  latency: Timing;
  /** RSS growth over the measured window, or why the node was not measured. */
  rss: { from: number; to: number; growth: number; window: string } | { excluded: string };
}

export interface ManyNodesResult {
  network: string;
  options: ManyNodesOptions;
  setupSeconds: number;
  kills: Kill[];
  offered: number;
  acked: number;
  cutOff: number;
  heldBack: number;
  errors: string[];
  /** `POST /v1/messages` → its 2xx, acknowledged sends only. */
  answers: Timing;
  /** Seconds from the end of the load until nothing acknowledged was queued (or the bound). */
  drainSeconds: number;
  stillQueued: string[];
  bounced: string[];
  lost: string[];
  duplicated: string[];
  misdelivered: string[];
  unexpected: string[];
  /** Unacknowledged sends cut off by a kill that arrived anyway. */
  cutOffArrived: number;
  latency: Timing;
  /** Acknowledged sends delivered before the load stopped, per second of load. */
  deliveredDuringRun: number;
  nodes: NodeFigures[];
}

export interface ManyNodes {
  run(): Promise<ManyNodesResult>;
  /** Stops every node, removes their data dirs and the test hosts; safe to call again. */
  dispose(): Promise<void>;
}

/** A call that must succeed (setup). */
async function must(what: string, reply: Promise<ApiResponse>): Promise<any> {
  const { status, body } = await reply;
  if (!ok(status)) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

/** Every item of a paged mail list (`/v1/messages/inbox` or `/sent`), newest first. */
async function allPages(member: Member, path: string): Promise<any[]> {
  const items: any[] = [];
  let before: string | null = null;
  for (;;) {
    const query: string = `${path}?limit=200${before === null ? '' : `&before=${encodeURIComponent(before)}`}`;
    const page = await must(`${member.address} ${path}`, member.node.served.request('GET', query, { token: member.apiKey }));
    items.push(...page.messages);
    if (!page.has_more) return items;
    before = page.next_before as string;
  }
}

function residentBytes(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    // Killed between the check and the read.
    return null;
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

interface Landed {
  member: Member;
  id: string;
  /** The recipient node's `created_at` of its copy (ms). */
  createdAt: number;
}

/**
 * Each send against the copies found in the inboxes (by the index in its subject): acknowledged
 * ones must be in their recipient's inbox once under their id; an unacknowledged one may arrive
 * (once) only when a kill cut its answer off. `endedWall` is when the load stopped.
 */
function tallyDeliveries(sends: Send[], landed: Map<number, Landed[]>, endedWall: number) {
  const lost: string[] = [];
  const duplicated: string[] = [];
  const misdelivered: string[] = [];
  const unexpected: string[] = [];
  let cutOffArrived = 0;
  const latencies = new Map<NodeState, number[]>();
  let deliveredDuringRun = 0;
  for (const s of sends) {
    const copies = landed.get(s.index) ?? [];
    const what = `#${s.index} ${s.from.address} → ${s.to.address}`;
    if (copies.length > 1) duplicated.push(`${what}: ${copies.length} copies`);
    for (const copy of copies) {
      if (copy.member !== s.to || (s.messageId !== null && copy.id !== s.messageId)) misdelivered.push(`${what}: ${copy.id} in ${copy.member.address}`);
    }
    if (s.ackedAt === null) {
      if (copies.length === 0) continue;
      if (s.cutOff) cutOffArrived++;
      else unexpected.push(`${what}: delivered, never acknowledged nor cut off by a kill`);
      continue;
    }
    const copy = copies.find((c) => c.member === s.to && c.id === s.messageId);
    if (copy === undefined) {
      lost.push(what);
      continue;
    }
    // A copy stored before the answer reached the client is zero latency, not negative.
    append(latencies, s.to.node, Math.max(0, copy.createdAt - s.ackedAt));
    if (copy.createdAt <= endedWall) deliveredDuringRun++;
  }
  return { lost, duplicated, misdelivered, unexpected, cutOffArrived, latencies, deliveredDuringRun };
}

export function manyNodes(options: ManyNodesOptions): ManyNodes {
  const random = seeded(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let network: NodeNetwork | null = null;
  const nodes: NodeState[] = [];

  async function setUp(): Promise<void> {
    network = createNodeNetwork(options.nodes);
    const net = network;
    await pool(net.hosts, 4, async (host) => {
      const served = await startHostNode(net, host, { prefix: 'svc-node-many-' });
      nodes[host.index - 1] = {
        name: `n${host.index}`,
        domain: `n${host.index}.test`,
        served,
        members: [],
        up: true,
        generation: 0,
        restartedAt: null,
        rss: [],
      };
    });
    await pool(nodes, 4, async (node) => {
      await createNodeNamespace(node.served, node.domain);
      const project = await createProject(node.served, 'many', node.domain);
      for (let j = 1; j <= options.identitiesPerNode; j++) {
        const made = await createIdentity(node.served, project.api_key, persistent(`m${j}`));
        expect(made.address).toBe(`${node.domain}/m${j}`);
        node.members.push({ node, address: made.address, apiKey: made.api_key });
      }
    });
    const entries = nodes.flatMap((node) => nodes.filter((other) => other !== node).map((other) => [node, other] as const));
    await pool(entries, 8, async ([node, other]) => {
      await must(`${node.name} peer ${other.domain}`, node.served.owner('POST', '/v1/node/peers', { domain: other.domain, url: other.served.publicUrl }));
    });
  }

  function sampleMemory(at: number): void {
    for (const node of nodes) {
      const pid = node.up ? node.served.process?.child.pid : undefined;
      const bytes = pid === undefined ? null : residentBytes(pid);
      if (bytes !== null) node.rss.push({ at, bytes });
    }
  }

  async function killAndRestart(node: NodeState, since: () => number, kills: Kill[]): Promise<void> {
    node.up = false;
    node.generation++;
    const at = since();
    const { signal } = await node.served.stop('SIGKILL');
    await sleep(options.downSeconds * 1000);
    await node.served.start();
    node.restartedAt = since();
    node.up = true;
    kills.push({ node: node.name, at, signal, backAt: node.restartedAt });
  }

  function send(index: number, sends: Send[], errors: string[]): Promise<void> {
    const from = pick(nodes.filter((n) => n.up).flatMap((n) => n.members));
    const to = pick(nodes.filter((n) => n !== from.node).flatMap((n) => n.members));
    const item: Send = { index, from, to, generation: from.node.generation, ackedAt: null, answerMs: null, messageId: null, cutOff: false };
    const began = performance.now();
    sends.push(item);
    const body = { to_address: to.address, subject: `many ${index}`, body: `many-nodes mail ${index} from ${from.address} to ${to.address}` };
    return from.node.served.request('POST', '/v1/messages', { token: from.apiKey, body }).then(
      (reply) => {
        if (ok(reply.status) && reply.body.status === 'queued') {
          item.ackedAt = Date.now();
          item.answerMs = performance.now() - began;
          item.messageId = reply.body.message_id as string;
        } else errors.push(`${from.address} → ${to.address}: ${reply.status} ${JSON.stringify(reply.body)}`);
      },
      (error: unknown) => {
        if (from.node.generation !== item.generation) item.cutOff = true;
        else errors.push(`${from.address} → ${to.address}: ${error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error)}`);
      },
    );
  }

  /** Offers `rate` sends/s for `seconds`, killing and restarting nodes on schedule, sampling memory every second. */
  async function drive(): Promise<{ sends: Send[]; errors: string[]; heldBack: number; kills: Kill[]; endedWall: number }> {
    const victims: NodeState[] = [];
    while (victims.length < Math.min(options.kills, nodes.length)) {
      const node = pick(nodes);
      if (!victims.includes(node)) victims.push(node);
    }
    // Kills fall in the first half, so a restarted node still has a measured stretch after its warm-up.
    const schedule = victims.map((node, k) => ({ node, at: options.seconds * (0.2 + (0.25 * k) / Math.max(1, victims.length - 1)) }));
    const sends: Send[] = [];
    const errors: string[] = [];
    const kills: Kill[] = [];
    const inFlight = new Set<Promise<void>>();
    const tasks: Promise<void>[] = [];
    let heldBack = 0;
    const started = performance.now();
    const since = (): number => (performance.now() - started) / 1000;
    let nextSample = 0;
    for (let offered = 0; ;) {
      const elapsed = since();
      if (elapsed >= options.seconds) break;
      if (elapsed >= nextSample) {
        sampleMemory(elapsed);
        nextSample += 1;
      }
      while (schedule.length > 0 && elapsed >= schedule[0]!.at) tasks.push(killAndRestart(schedule.shift()!.node, since, kills));
      for (const due = Math.floor(elapsed * options.rate); offered < due; offered++) {
        if (inFlight.size >= MAX_IN_FLIGHT) {
          heldBack++;
          continue;
        }
        const done = send(offered, sends, errors).finally(() => inFlight.delete(done));
        inFlight.add(done);
      }
      await sleep(5);
    }
    const endedWall = Date.now();
    await Promise.all([...inFlight, ...tasks]);
    return { sends, errors, heldBack, kills, endedWall };
  }

  /** Polls the senders' Sent lists until no acknowledged send is queued, or the bound passes. */
  async function drain(acked: Send[]): Promise<{ seconds: number; stillQueued: string[]; bounced: string[]; notSent: string[] }> {
    const bySender = new Map<Member, Send[]>();
    for (const s of acked) append(bySender, s.from, s);
    const started = performance.now();
    for (;;) {
      const stillQueued: string[] = [];
      const bounced: string[] = [];
      const notSent: string[] = [];
      await pool([...bySender], 8, async ([member, sent]) => {
        const state = new Map((await allPages(member, '/v1/messages/sent')).map((m) => [m.message_id as string, m]));
        for (const s of sent) {
          const item = state.get(s.messageId!);
          const what = `#${s.index} ${member.address} → ${s.to.address}`;
          if (item === undefined) notSent.push(`${what}: acknowledged, yet not in the sender's Sent`);
          else if (item.status === 'bounced') bounced.push(`${what}: bounced (${item.last_error})`);
          else if (item.status === 'queued')
            stillQueued.push(`${what}: queued after ${item.attempts} attempts, next at ${item.next_attempt_at} (${item.last_error})`);
        }
      });
      const seconds = (performance.now() - started) / 1000;
      if (stillQueued.length === 0 || seconds >= options.drainSeconds) return { seconds, stillQueued, bounced, notSent };
      await sleep(1000);
    }
  }

  function memoryOf(node: NodeState): NodeFigures['rss'] {
    const from = Math.max(options.seconds / 2, node.restartedAt === null ? 0 : node.restartedAt + options.warmupSeconds);
    const span = options.seconds - from;
    if (span < MIN_RSS_WINDOW_SECONDS) {
      return {
        excluded:
          node.restartedAt === null
            ? `the last half is under ${MIN_RSS_WINDOW_SECONDS} s`
            : `restarted at ${node.restartedAt.toFixed(1)} s: warm-up runs past the end`,
      };
    }
    const during = (a: number, b: number): number => median(node.rss.filter((s) => s.at >= a && s.at < b).map((s) => s.bytes));
    const start = during(from, from + span / 3);
    const end = during(options.seconds - span / 3, options.seconds);
    return { from: start, to: end, growth: (end - start) / start, window: `${from.toFixed(0)}-${options.seconds} s` };
  }

  return {
    async run() {
      const setupStarted = performance.now();
      await setUp();
      const setupSeconds = (performance.now() - setupStarted) / 1000;
      const driven = await drive();
      const acked = driven.sends.filter((s) => s.ackedAt !== null);
      const drained = await drain(acked);

      // Every inbox in full: where each numbered mail landed, and how often.
      const landed = new Map<number, Landed[]>();
      const bounceMail: string[] = [];
      await pool(
        nodes.flatMap((n) => n.members),
        8,
        async (member) => {
          for (const mail of await allPages(member, '/v1/messages/inbox')) {
            if (mail.origin === 'bounce') bounceMail.push(`${member.address}: bounce "${mail.subject}"`);
            const index = /^many (\d+)$/.exec(mail.subject)?.[1];
            if (index === undefined) continue;
            append(landed, Number(index), { member, id: mail.message_id as string, createdAt: Date.parse(mail.created_at) });
          }
        },
      );

      const tally = tallyDeliveries(driven.sends, landed, driven.endedWall);
      const latencies = (node: NodeState): number[] => tally.latencies.get(node) ?? [];

      const figures = nodes.map((node): NodeFigures => ({
        name: node.name,
        address: node.served.host.address,
        sent: acked.filter((s) => s.from.node === node).length,
        received: latencies(node).length,
        perSecond: latencies(node).length / options.seconds,
        latency: summarize(latencies(node)),
        rss: memoryOf(node),
      }));
      return {
        network: network!.describe(),
        options,
        setupSeconds,
        kills: driven.kills,
        offered: driven.sends.length + driven.heldBack,
        acked: acked.length,
        cutOff: driven.sends.filter((s) => s.cutOff).length,
        heldBack: driven.heldBack,
        errors: driven.errors,
        answers: summarize(acked.map((s) => s.answerMs!)),
        drainSeconds: drained.seconds,
        stillQueued: drained.stillQueued,
        bounced: [...drained.bounced, ...bounceMail],
        lost: [...drained.notSent, ...tally.lost],
        duplicated: tally.duplicated,
        misdelivered: tally.misdelivered,
        unexpected: tally.unexpected,
        cutOffArrived: tally.cutOffArrived,
        latency: summarize([...tally.latencies.values()].flat()),
        deliveredDuringRun: tally.deliveredDuringRun / options.seconds,
        nodes: figures,
      };
    },
    async dispose() {
      await Promise.all(nodes.map((node) => node.served.dispose()));
      network?.teardown();
    },
  };
}

const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

/** The run's figures, every line naming the network mode that ran. */
export function manyNodesReport(r: ManyNodesResult): string {
  const o = r.options;
  const kills = r.kills.map((k) => `${k.node} ${k.signal} at ${k.at.toFixed(1)} s, back at ${k.backAt.toFixed(1)} s`).join('; ');
  const head = [
    `many-nodes on ${r.network}`,
    `  ${o.nodes} nodes × ${o.identitiesPerNode} identities, offered ${o.rate}/s for ${o.seconds} s (seed ${o.seed}); setup ${r.setupSeconds.toFixed(1)} s; kills: ${kills || 'none'}`,
    `  sends: ${r.offered} offered, ${r.acked} acknowledged (${(r.acked / o.seconds).toFixed(1)}/s), ${r.cutOff} cut off by kills (${r.cutOffArrived} of them arrived), ${r.errors.length} errors, ${r.heldBack} held back; answered p50 ${r.answers.p50_ms.toFixed(0)} ms, p99 ${r.answers.p99_ms.toFixed(0)} ms`,
    `  delivery: ${r.stillQueued.length === 0 ? `drained ${r.drainSeconds.toFixed(1)} s after the load` : `${r.stillQueued.length} still queued after ${r.drainSeconds.toFixed(1)} s`}; ` +
      `delivered during the load ${r.deliveredDuringRun.toFixed(1)}/s; lost ${r.lost.length}, duplicated ${r.duplicated.length}, misdelivered ${r.misdelivered.length}, ` +
      `unexpected ${r.unexpected.length}, bounced ${r.bounced.length}; latency p50 ${r.latency.p50_ms.toFixed(0)} ms, p99 ${r.latency.p99_ms.toFixed(0)} ms`,
  ];
  const rows = r.nodes.map((n) => {
    const rss =
      'excluded' in n.rss
        ? `RSS not measured (${n.rss.excluded})`
        : `RSS ${mb(n.rss.from)} → ${mb(n.rss.to)} MiB (${(n.rss.growth * 100).toFixed(1)}%, ${n.rss.window})`;
    return `    ${n.name.padEnd(4)} ${n.address.padEnd(13)} sent ${String(n.sent).padStart(5)}  received ${String(n.received).padStart(5)} (${n.perSecond.toFixed(1)}/s)  latency p50 ${n.latency.p50_ms.toFixed(0)} ms p99 ${n.latency.p99_ms.toFixed(0)} ms  ${rss}`;
  });
  return [...head, '  per node (latency: the send answered → the recipient node stored its copy):', ...rows].join('\n');
}

/** The scenario's checks, the same for every size. */
export function expectDeliveredExactlyOnce(r: ManyNodesResult): void {
  const first = (list: string[]): string[] => list.slice(0, 20);
  expect(
    r.kills.map((k) => k.signal),
    'kills that landed',
  ).toEqual(Array.from({ length: r.options.kills }, () => 'SIGKILL'));
  expect(r.acked, 'acknowledged sends').toBeGreaterThan(0);
  expect(first(r.errors), 'sends refused or failed other than by a kill').toEqual([]);
  expect(r.heldBack, 'sends held back because too many were in flight').toBe(0);
  expect(first(r.stillQueued), `acknowledged sends still queued ${r.options.drainSeconds} s after the load`).toEqual([]);
  expect(first(r.bounced), 'bounces').toEqual([]);
  expect(first(r.lost), 'acknowledged sends missing from the recipient inbox').toEqual([]);
  expect(first(r.duplicated), 'sends delivered more than once').toEqual([]);
  expect(first(r.misdelivered), 'copies in an inbox not the recipient, or under another id').toEqual([]);
  expect(first(r.unexpected), 'deliveries of sends neither acknowledged nor cut off').toEqual([]);
  const grown = r.nodes
    .filter((n) => 'growth' in n.rss && n.rss.growth > r.options.rssGrowthLimit)
    .map((n) => `${n.name}: ${'growth' in n.rss ? (n.rss.growth * 100).toFixed(1) : ''}%`);
  expect(grown, `nodes whose RSS grew more than ${r.options.rssGrowthLimit * 100}% over the last half`).toEqual([]);
}
