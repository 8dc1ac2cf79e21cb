/**
 * Many nodes: 20 `svc-node serve` processes, each on its own test host (a network
 * namespace with its own address, or loopback addresses where namespaces cannot be made: the
 * title and the report say which), each with a namespace and 3 identities, mailing each other all
 * to all at 100 sends/s for 60 s while two nodes are SIGKILLed and started again. Every
 * acknowledged mail must arrive exactly once, the outboxes must drain within 120 s of the load,
 * and no node's memory may grow more than 15% over the last half; per-node delivery latency and
 * throughput are printed (the scenario: test/support/many-nodes.ts).
 *
 * MANY_NODES (20), MANY_IDENTITIES (3), MANY_SECONDS (60), MANY_RATE (offered sends/s, 100),
 * MANY_KILLS (2), MANY_DRAIN_SECONDS (120) and MANY_SEED tune it; SVC_NODE_TEST_NETWORK=loopback
 * runs it without namespaces.
 */
import { afterAll, describe, it } from 'vitest';
import { expectDeliveredExactlyOnce, manyNodes, manyNodesReport } from '../support/many-nodes.ts';
import { networkSupport } from '../support/node-network.ts';

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const options = {
  nodes: env('MANY_NODES', 20),
  identitiesPerNode: env('MANY_IDENTITIES', 3),
  seconds: env('MANY_SECONDS', 60),
  rate: env('MANY_RATE', 100),
  kills: env('MANY_KILLS', 2),
  downSeconds: 2,
  drainSeconds: env('MANY_DRAIN_SECONDS', 120),
  rssGrowthLimit: 0.15,
  warmupSeconds: 10,
  seed: env('MANY_SEED', Math.floor(Math.random() * 2 ** 31)),
};
const { mode, reason } = networkSupport();
const scenario = manyNodes(options);

afterAll(() => scenario.dispose());

describe('many nodes', () => {
  it(`${options.nodes} nodes ${mode === 'netns' ? 'in network namespaces' : `on loopback addresses (no namespaces: ${reason})`} mail all to all at ${options.rate}/s for ${options.seconds} s through ${options.kills} kills, each acknowledged mail delivered exactly once`, async () => {
    const result = await scenario.run();
    console.log(manyNodesReport(result));
    expectDeliveredExactlyOnce(result);
  });
});
