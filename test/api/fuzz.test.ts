/**
 * Bad input (a clear 4xx, never a 500), the sample `npm test` runs: every route in the fuzz table
 * must be a route the server registers (as Fastify itself reports them) and vice versa (so a new
 * route cannot escape fuzzing), and ~300 fuzzed requests across all routes must be answered without
 * a 5xx, with a JSON `detail` for every 4xx, and with stored data unchanged by every refused
 * request. The full run (10,000+ cases) is test/reliability/fuzz.reliability.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary, routeKey, ROUTES, runFuzz, setupFuzzFixtures, type FuzzFixtures } from '../support/fuzz.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const SAMPLE_RUNS = Number(process.env.FUZZ_SAMPLE_RUNS ?? 300);

/**
 * Every route the node can register, as Fastify reports them: both listeners, with the UI built
 * and without it (the /ui/ placeholder), HEAD aside (Fastify adds one per GET).
 */
async function registeredRoutes(): Promise<string[]> {
  const uiDir = mkdtempSync(join(tmpdir(), 'svc-node-ui-'));
  writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>ui</title>');
  const routes = new Set<string>();
  for (const ui of [uiDir, null]) {
    const node = await startTestNode({
      uiDir: ui,
      publicPort: 0,
      onRoute: (_listener, route) => void (route.method !== 'HEAD' && routes.add(routeKey({ method: route.method, path: route.url }))),
    });
    await node.stop();
  }
  rmSync(uiDir, { recursive: true, force: true });
  return [...routes].sort();
}

describe('the fuzz route table', () => {
  it('covers every route the server registers, and only those', async () => {
    const routes = await registeredRoutes();
    const table = ROUTES.map(routeKey);
    expect(new Set(table).size, 'duplicate rows in the route table').toBe(table.length);
    expect(
      routes.filter((route) => !table.includes(route)),
      'routes missing from test/support/fuzz.ts ROUTES',
    ).toEqual([]);
    expect(
      table.filter((route) => !routes.includes(route)),
      'table rows the server no longer registers',
    ).toEqual([]);
    expect(routes.length).toBeGreaterThan(100);
  });
});

describe('fuzzing every route with bad input (sample)', () => {
  let t: TestNode;
  let fx: FuzzFixtures;
  beforeAll(async () => {
    t = await startTestNode();
    fx = await setupFuzzFixtures(t);
  });
  afterAll(async () => {
    await t.stop();
  });

  it(`answers ${SAMPLE_RUNS} fuzzed requests without a 5xx, a shapeless 4xx or a change from a refusal`, async () => {
    const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
    const summary = await runFuzz(fx, { numRuns: SAMPLE_RUNS, ...(seed === undefined ? {} : { seed }), timeoutMs: 10_000 });
    const report = formatSummary(summary);
    expect(
      summary.failures.map((f) => `${f.kind}\n${f.reproduction}`),
      report,
    ).toEqual([]);
    expect(summary.cases).toBe(SAMPLE_RUNS);
  }, 90_000);
});
