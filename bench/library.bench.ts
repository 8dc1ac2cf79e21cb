/**
 * The library surface's benchmarks, each against a baseline measured in the same run. The servers
 * (node and bare route alike) run on a worker thread, as a server runs in its own process: with the
 * load generator on the same event loop, the client's own fetch cost would dominate both sides.
 * - signed-request cost: GET /v1/shelf with the full team-auth envelope verified (certificate,
 *   signature, seven fields, replay cache), requests/s with 8 concurrent clients as a ratio to a
 *   bare Fastify route sent the same headers; target ≥ 0.5;
 * - update-from-source on a 200-file profile: the per-part 3-way merge, the new version's insert
 *   and the pin update, p99 over real HTTP; target ≤ 50 ms. Headers are signed before timing
 *   starts: signing is the client's cost, not the server's.
 */
import type { TeamHeaders } from '../server/auth/team-envelope-client.ts';
import { blueprintPayload, profileFiles } from '../test/support/library.ts';
import { report, summarize } from './measure.ts';
import { startWorkerServer, type WorkerServer } from './server-worker.ts';
import { member } from './team.ts';

const REQUESTS = Number(process.env.BENCH_SHELF_REQUESTS ?? 4000);
const MERGES = Number(process.env.BENCH_MERGES ?? 200);
const PROFILE_FILES = 200;
const CLIENTS = 8;

async function throughput(headers: TeamHeaders[], fire: (h: TeamHeaders) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < headers.length; i = next++) await fire(headers[i]!);
    }),
  );
  return headers.length / ((performance.now() - started) / 1000);
}

async function signedShelfReads(node: WorkerServer): Promise<void> {
  const team = await member(node, 'shelf');
  for (const ref of ['planner', 'builder', 'reviewer']) {
    const body = JSON.stringify({ files: profileFiles({ ref }) });
    await team.send('POST', '/v1/profiles', team.sign('POST', '/v1/profiles', body), body);
  }
  const bare = await startWorkerServer('bare');
  try {
    const batch = (n: number) => Array.from({ length: n }, () => team.sign('GET', '/v1/shelf'));
    const read = (url: string) => (h: TeamHeaders) => fetch(url, { headers: h }).then((r) => r.arrayBuffer());
    await throughput(batch(200), read(bare.url));
    await throughput(batch(200), read(`${node.url}/v1/shelf`));
    const baseline = await throughput(batch(REQUESTS), read(bare.url));
    const shelf = await throughput(batch(REQUESTS), read(`${node.url}/v1/shelf`));
    report('signed-shelf-read', {
      clients: CLIENTS,
      requests: REQUESTS,
      shelf_profiles: 3,
      baseline_bare_route_rps: Math.round(baseline),
      signed_shelf_rps: Math.round(shelf),
      ratio: Math.round((shelf / baseline) * 1000) / 1000,
      target_ratio: 0.5,
    });
  } finally {
    await bare.stop();
  }
}

/** A profile of 200 files: profile.yaml, instructions and 198 artifacts. */
function bigProfile(mission: string) {
  const files: Record<string, string> = {};
  for (let i = 0; i < PROFILE_FILES - 2; i++) files[`artifacts/note-${String(i).padStart(3, '0')}.md`] = `# Note ${i}\n\n${'Some text. '.repeat(40)}\n`;
  return { ref: 'big', mission, files };
}

async function updateFromSource(node: WorkerServer): Promise<void> {
  const team = await member(node, 'merge');
  const publish = async (version: string, mission: string) => {
    const body = JSON.stringify(blueprintPayload({ ref: 'big.team', version: `${version}.0.0`, profiles: [bigProfile(mission)] }));
    await team.send('POST', '/v1/blueprints/import', team.sign('POST', '/v1/blueprints/import', body), body);
  };
  await publish('1', 'Mission 1');
  const importBody = JSON.stringify({ source_blueprint_ref: 'big.team', profile_ref: 'big' });
  await team.send('POST', '/v1/shelf/import', team.sign('POST', '/v1/shelf/import', importBody), importBody);
  const samples: number[] = [];
  for (let i = 0; i < MERGES; i++) {
    await publish(String(i + 2), `Mission ${i + 2}`);
    const path = '/v1/profiles/big/update-from-source';
    const body = JSON.stringify({ target_version: `0.${i + 2}.0` });
    const headers = team.sign('POST', path, body);
    const started = performance.now();
    const result = (await (await team.send('POST', path, headers, body)).json()) as { updated_parts: string[] };
    samples.push(performance.now() - started);
    if (result.updated_parts.join() !== 'field:mission') throw new Error(`unexpected merge: ${JSON.stringify(result)}`);
  }
  report('update-from-source', { profile_files: PROFILE_FILES, merges: MERGES, latency: summarize(samples), target_p99_ms: 50 });
}

export async function run(): Promise<void> {
  for (const bench of [signedShelfReads, updateFromSource]) {
    const node = await startWorkerServer('node');
    try {
      await bench(node);
    } finally {
      await node.stop();
    }
  }
}
