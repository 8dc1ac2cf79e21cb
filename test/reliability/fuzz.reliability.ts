/**
 * Bad input (a clear 4xx, never a 500), the full run: at least 10,000 fuzzed requests (FUZZ_RUNS to
 * change) spread over every route of the three surfaces, the owner API and federation inbound, with
 * malformed JSON, wrong types, oversize values, odd Unicode, path tricks and forged auth headers.
 * No 5xx, no hang, a JSON `detail` on every 4xx, stored data unchanged by refused requests, and the
 * node answering throughout. FUZZ_SEED replays a run; FUZZ_SHRINK=1 stops at the first failure and
 * lets fast-check shrink it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary, ROUTES, runFuzz, setupFuzzFixtures, type FuzzFixtures } from '../support/fuzz.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

describe('fuzzing every route with bad input (full run)', () => {
  let t: TestNode;
  let fx: FuzzFixtures;
  beforeAll(async () => {
    t = await startTestNode();
    fx = await setupFuzzFixtures(t);
  });
  afterAll(async () => {
    await t.stop();
  });

  it(`answers ${RUNS} fuzzed requests without a 5xx, a shapeless 4xx or a change from a refusal`, async () => {
    const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
    const summary = await runFuzz(fx, {
      numRuns: RUNS,
      ...(seed === undefined ? {} : { seed }),
      shrink: process.env.FUZZ_SHRINK === '1',
      log: (line) => console.log(line),
    });
    const report = formatSummary(summary);
    console.log(report);
    expect(
      summary.failures.map((f) => `${f.kind}\n${f.reproduction}`),
      report,
    ).toEqual([]);
    expect(summary.cases).toBe(RUNS);
    // Spread over all routes: every fuzzable route got cases.
    expect(summary.routesFuzzed).toBe(ROUTES.filter((route) => !route.exempt).length);
  });
});
