/**
 * The core identity surface against baselines measured in the same run:
 * - GET /v1/did/{id}/key vs a bare Fastify JSON route (what the node adds to a read);
 * - POST /v1/workspaces/init (persistent: custody key, did:svc log entry, address, API key)
 *   vs the bare route, reported as a ratio;
 * - custody signing vs node:crypto signing with the key in hand.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Custody } from '../server/custody/custody.ts';
import { startNode } from '../server/index.ts';
import { closeDatabase, openDatabase } from '../server/store/database.ts';
import { startBareRoute } from './bare-route.ts';
import { report, time } from './measure.ts';

const N = Number(process.env.BENCH_N ?? 1000);

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-bench-'));
  const node = await startNode({ dataDir, port: 0, uiDir: null, custody: { backend: 'key-file' }, warn: () => {} });
  const bare = await startBareRoute();
  try {
    const owner = { authorization: `Bearer ${node.ownerToken}`, 'content-type': 'application/json' };
    const base = node.info.core_url;
    await fetch(`${base}/v1/node/namespaces`, { method: 'POST', headers: owner, body: JSON.stringify({ domain: 'bench.test' }) });
    const project = (await (
      await fetch(`${base}/v1/node/projects`, { method: 'POST', headers: owner, body: JSON.stringify({ slug: 'bench', namespace: 'bench.test' }) })
    ).json()) as { api_key: string };
    const init = (i: number) =>
      fetch(`${base}/v1/workspaces/init`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ lifetime: 'persistent', name: `agent-${i}` }),
      }).then((r) => r.json() as Promise<{ did_aw: string }>);

    const baseline = await time(N, () => fetch(bare.url).then((r) => r.json()));
    const created = await time(Math.min(N, 300), (i) => init(i), 0);
    const first = await init(100_000);
    const read = await time(N, () => fetch(`${base}/v1/did/${first.did_aw}/key`).then((r) => r.json()));
    report('core-identity-http', {
      baseline_bare_route: baseline,
      did_key_read: read,
      workspaces_init_persistent: created,
      ratio_read_p50: Math.round((read.p50_ms / baseline.p50_ms) * 100) / 100,
      ratio_init_p50: Math.round((created.p50_ms / baseline.p50_ms) * 100) / 100,
    });
  } finally {
    await bare.close();
    await node.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const custodyDir = mkdtempSync(join(tmpdir(), 'svc-node-bench-'));
  const custody = await Custody.open({ dataDir: custodyDir, backend: 'key-file', warn: () => {} });
  const db = openDatabase({ file: join(custodyDir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
  try {
    const key = custody.createSigningKey('identity');
    const { privateKey } = generateKeyPairSync('ed25519');
    const message = Buffer.alloc(200, 7);
    const native = await time(N * 5, () => sign(null, message, privateKey));
    const inCustody = await time(N * 5, () => custody.sign(key.keyId, message));
    report('custody-sign', {
      baseline_node_crypto: native,
      custody_sign: inCustody,
      ratio_p50: Math.round((inCustody.p50_ms / native.p50_ms) * 100) / 100,
    });
  } finally {
    closeDatabase(db);
    custody.close();
    rmSync(custodyDir, { recursive: true, force: true });
  }
}
