/**
 * The many-node federation scenario (test/support/many-nodes.ts) at CI size: 4 `svc-node serve`
 * processes on their own test hosts, mailing all to all for 15 s while one is SIGKILLed and
 * started again; every acknowledged mail arrives exactly once and the outboxes drain. Network
 * namespaces where this machine allows them (root and iproute2), else distinct loopback addresses:
 * the test's title, a warning and the printed report say which ran. The full size is
 * test/reliability/many-nodes.reliability.ts.
 */
import { afterAll, describe, it } from 'vitest';
import { expectDeliveredExactlyOnce, manyNodes, manyNodesReport } from '../support/many-nodes.ts';
import { networkSupport } from '../support/node-network.ts';

const options = {
  nodes: 4,
  identitiesPerNode: 3,
  seconds: 15,
  rate: 20,
  kills: 1,
  downSeconds: 2,
  drainSeconds: 45,
  rssGrowthLimit: 0.15,
  warmupSeconds: 10,
  seed: Math.floor(Math.random() * 2 ** 31),
};
const { mode, reason } = networkSupport();
const scenario = manyNodes(options);

afterAll(() => scenario.dispose());

describe('federation across many nodes', () => {
  it(
    `${options.nodes} nodes ${mode === 'netns' ? 'in network namespaces' : `on loopback addresses (no namespaces: ${reason})`} deliver every acknowledged mail exactly once through a kill`,
    { timeout: 120_000 },
    async () => {
      const result = await scenario.run();
      console.log(manyNodesReport(result));
      expectDeliveredExactlyOnce(result);
    },
  );
});
