/**
 * The connection flood that once took the node down, at full size: ~20,000 half-open requests (a
 * partial request line, then nothing) to the peer listener of a `svc-node serve --public-port`
 * process with its default caps and timeouts, held open at once by several flood processes (flood
 * workers are half-open-flood.ts) from 64 loopback addresses, while a prober asks the loopback
 * listener for /v1/node/info with the owner token every 50 ms, each time on a new connection.
 *
 * It passes when every probe answered 200, the node never held more descriptors than it did
 * before the flood plus the peer listener's total cap (and a small margin), every flood connection
 * was either refused at accept or answered 408 at the header timeout, and the peer listener serves
 * a request again once the flood is over. Before the caps, these requests used up the process's
 * descriptors and the loopback listener stopped answering.
 *
 * PEER_FLOOD_CONNECTIONS (20000) and PEER_FLOOD_WORKERS (4) tune it. Linux only: the flood's
 * addresses are 127.0.x.y on `lo`, and descriptors are counted in /proc.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { summarize } from '../../bench/measure.ts';
import { connectionBudget } from '../../server/http/connection-limits.ts';
import { parseLimit } from '../../server/http/fd-limit.ts';
import { NODE_BIN, REPO_ROOT } from '../support/cli.ts';
import { rawRequest } from '../support/http.ts';
import { freePort, startServedNode } from '../support/served-node.ts';

const CONNECTIONS = Number(process.env.PEER_FLOOD_CONNECTIONS ?? 20_000);
const WORKERS = Number(process.env.PEER_FLOOD_WORKERS ?? 4);
const ADDRESSES_PER_WORKER = 16;
const PROBE_EVERY_MS = 50;
const PROBE_TIMEOUT_MS = 5_000;
/** Descriptors the node may open beyond its baseline and the peer cap (the prober, a log, a WAL checkpoint). */
const FD_MARGIN = 64;

interface Tally {
  refused: number;
  timedOut: number;
  other: number;
  connectErrors: number;
}

const openFds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;
/** The node process's own soft descriptor limit, as its fd-limit.ts reads it for itself. */
const fdLimitOf = (pid: number): number | null =>
  parseLimit(
    readFileSync(`/proc/${pid}/limits`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'))
      ?.split(/\s{2,}/)[1],
  );

/** One GET of the owner's node info on a new connection: its status (0: failed) and latency. */
function probe(url: string, token: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number): void => resolve({ status, ms: performance.now() - started });
    const request = httpGet(`${url}/v1/node/info`, { agent: false, timeout: PROBE_TIMEOUT_MS, headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      response.on('end', () => done(response.statusCode ?? 0));
      response.on('error', () => done(0));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => done(0));
  });
}

function runFloodWorker(url: string, count: number, block: number): Promise<Tally> {
  const child = spawn(NODE_BIN, [join(REPO_ROOT, 'test/reliability/half-open-flood.ts'), url, String(count), String(block), String(ADDRESSES_PER_WORKER)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout) as Tally) : reject(new Error(`flood worker exited ${code}: ${stderr}`))));
  });
}

describe('peer listener under a connection flood', () => {
  it(`holds ~${CONNECTIONS} half-open requests to its caps, and the loopback listener never fails`, async () => {
    const node = await startServedNode({ args: ['--public-port', String(await freePort())], prefix: 'svc-node-flood-' });
    onTestFinished(() => node.dispose());
    const peerUrl = node.info.public_url as string;
    const pid = node.info.pid;
    const { peer } = connectionBudget(fdLimitOf(pid));
    const baseline = openFds(pid);

    const probes: { status: number; ms: number }[] = [];
    let fdPeak = baseline;
    let flooding = true;
    const prober = (async () => {
      // The test clears `flooding` once the flood is over, while this loop awaits; the types do not see that.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      while (flooding) {
        probes.push(await probe(node.url, node.ownerToken));
        fdPeak = Math.max(fdPeak, openFds(pid));
        await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
      }
    })();
    const sampler = setInterval(() => (fdPeak = Math.max(fdPeak, openFds(pid))), 20);

    const started = performance.now();
    const perWorker = Math.ceil(CONNECTIONS / WORKERS);
    let tallies: Tally[];
    try {
      tallies = await Promise.all(Array.from({ length: WORKERS }, (_, i) => runFloodWorker(peerUrl, perWorker, i + 1)));
    } finally {
      flooding = false;
      clearInterval(sampler);
      await prober;
    }
    const seconds = (performance.now() - started) / 1000;
    const total = tallies.reduce((sum, t) => ({
      refused: sum.refused + t.refused,
      timedOut: sum.timedOut + t.timedOut,
      other: sum.other + t.other,
      connectErrors: sum.connectErrors + t.connectErrors,
    }));
    const failed = probes.filter((p) => p.status !== 200);
    const latency = summarize(probes.map((p) => p.ms));
    console.log(
      `peer flood: ${perWorker * WORKERS} half-open requests from ${WORKERS * ADDRESSES_PER_WORKER} addresses in ${seconds.toFixed(1)} s ` +
        `(caps ${peer.perClient} per client, ${peer.total} in all): ${total.refused} refused at accept, ${total.timedOut} answered 408, ` +
        `${total.other} other, ${total.connectErrors} never connected; node descriptors ${baseline} → peak ${fdPeak}; ` +
        `loopback probes ${probes.length}, ${failed.length} failed, p50 ${latency.p50_ms.toFixed(1)} ms, p99 ${latency.p99_ms.toFixed(1)} ms, ` +
        `max ${Math.max(...probes.map((p) => p.ms)).toFixed(1)} ms`,
    );

    expect(failed).toEqual([]);
    expect(probes.length).toBeGreaterThan(20);
    expect(fdPeak).toBeLessThanOrEqual(baseline + peer.total + FD_MARGIN);
    expect(total.other).toBe(0);
    expect(total.refused + total.timedOut + total.connectErrors).toBe(perWorker * WORKERS);
    expect(total.timedOut).toBeGreaterThanOrEqual(peer.total);
    expect(total.refused).toBeGreaterThan((perWorker * WORKERS) / 2);
    // The flood is over: its connections are gone and the peer listener serves again.
    expect((await rawRequest(peerUrl, 'GET', '/v1/blueprints', { localAddress: '127.0.0.2', headers: { connection: 'close' } })).status).toBe(200);
  });
});
