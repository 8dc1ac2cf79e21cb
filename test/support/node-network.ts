/**
 * Test hosts for many-node federation tests: N machines, each with its own address, made by the
 * test itself and torn down after. Only these addresses are ever addressed.
 *
 * - Network namespaces (root, `ip` present, `ip netns add` works): a bridge in the root namespace
 *   holding 10.231.<k>.254/24 (the first /24 of 10.231/16 no address or route here uses), and per
 *   host a namespace joined to it by a veth pair, 10.231.<k>.<i>/24, lo up. Traffic between nodes
 *   crosses a link, and each node meets its peers at their own source addresses, so per-client
 *   limits apply per node as they would between machines.
 * - Otherwise: distinct loopback addresses 127.0.231.<i> in this namespace, said on stderr and in
 *   `describe()`. Nodes still listen on their own addresses, but every connection between them
 *   leaves from 127.0.0.1, so a receiving node sees all its peers as one client.
 *
 * SVC_NODE_TEST_NETWORK=loopback forces the fallback where namespaces work (to run that mode too).
 *
 * Teardown runs in the test's afterAll and, should the process end first, in exit and signal
 * handlers. Names start `svt<pid><letter>`: a later run removes what a killed one left (its pid is
 * gone), node processes inside included, and never touches a run that is still going.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { startServedNode, type ServedNode } from './served-node.ts';

export type NetworkMode = 'netns' | 'loopback';

export interface TestHost {
  /** 1-based. */
  index: number;
  address: string;
  /** The host's network namespace; null in loopback mode (the root namespace). */
  namespace: string | null;
}

export interface NodeNetwork {
  mode: NetworkMode;
  hosts: TestHost[];
  /** One line naming the mode, the addresses and, for loopback, why namespaces were not used. */
  describe(): string;
  /** Kills what still runs on the hosts and removes them; safe to call again. */
  teardown(): void;
}

const PREFIX = 'svt';
/** A name this helper made, with the pid of the process that made it. */
const OURS = /^svt(\d+)[a-z]/;
const LOOPBACK_NET = '127.0.231';

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function tryIp(...args: string[]): boolean {
  try {
    ip(...args);
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let support: { mode: NetworkMode; reason: string | null } | null = null;

/** Whether namespaces can be made here (probed once per process), and if not, why. */
export function networkSupport(): { mode: NetworkMode; reason: string | null } {
  support ??= (() => {
    const without = (reason: string) => ({ mode: 'loopback' as const, reason });
    if (process.env.SVC_NODE_TEST_NETWORK === 'loopback') return without('SVC_NODE_TEST_NETWORK=loopback');
    if (process.platform !== 'linux') return without(`${process.platform} has no network namespaces`);
    if (process.getuid?.() !== 0) return without('not running as root');
    if (!tryIp('-V')) return without('the `ip` command (iproute2) is missing');
    const probe = `${PREFIX}${process.pid}probe`;
    try {
      ip('netns', 'add', probe);
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? error).trim();
      return without(`\`ip netns add\` failed: ${stderr.split('\n')[0]}`);
    }
    ip('netns', 'del', probe);
    return { mode: 'netns' as const, reason: null };
  })();
  return support;
}

/** Namespaces and links of runs whose process is gone, with the node processes still inside. */
function removeLeftovers(): void {
  const dead = (name: string): boolean => {
    const pid = OURS.exec(name)?.[1];
    return pid !== undefined && !alive(Number(pid));
  };
  for (const namespace of ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')) {
    if (!dead(namespace)) continue;
    killInside(namespace);
    tryIp('netns', 'del', namespace);
  }
  for (const line of ip('-o', 'link', 'show').split('\n')) {
    const name = /^\d+:\s+([^:@\s]+)/.exec(line)?.[1];
    if (name !== undefined && dead(name)) tryIp('link', 'del', name);
  }
}

function killInside(namespace: string): void {
  let pids: string[];
  try {
    pids = ip('netns', 'pids', namespace)
      .split('\n')
      .filter((pid) => pid !== '');
  } catch {
    // No such namespace (never made, or removed already).
    return;
  }
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

/** The third octet of the first 10.231.<k>.0/24 that no address or route of this namespace mentions. */
function freeSubnet(): number {
  const used = `${ip('-4', '-o', 'addr', 'show')}\n${ip('-4', 'route', 'show')}`;
  for (let k = 0; k < 256; k++) if (!new RegExp(`(^|[^\\d.])10\\.231\\.${k}\\.`, 'm').test(used)) return k;
  throw new Error('every 10.231.<k>.0/24 is in use here');
}

/** Every network made by this process and not yet torn down, for the exit handlers. */
const live = new Set<NodeNetwork>();
/** Processes started on each network's hosts, killed by its teardown if still running. */
const children = new WeakMap<NodeNetwork, Set<ChildProcess>>();
let made = 0;
let handlersInstalled = false;

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const tearDownAll = (): void => {
    for (const network of live) network.teardown();
  };
  process.once('exit', tearDownAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      tearDownAll();
      // The default action, now that the hosts are gone.
      process.kill(process.pid, signal);
    });
  }
}

function namespaceNetwork(count: number, tag: string): NodeNetwork {
  removeLeftovers();
  const k = freeSubnet();
  const bridge = `${tag}b`;
  const hosts: TestHost[] = Array.from({ length: count }, (_, i) => ({ index: i + 1, address: `10.231.${k}.${i + 1}`, namespace: `${tag}-${i + 1}` }));
  let torn = false;
  const network: NodeNetwork = {
    mode: 'netns',
    hosts,
    describe: () => `network namespaces: ${count} hosts ${hosts[0]?.address}-${hosts.at(-1)?.address} on bridge ${bridge} (10.231.${k}.254/24)`,
    teardown() {
      if (torn) return;
      torn = true;
      live.delete(network);
      for (const child of children.get(network) ?? []) child.kill('SIGKILL');
      for (const host of hosts) {
        killInside(host.namespace!);
        tryIp('netns', 'del', host.namespace!);
        // Its pair went with the namespace; this only matters when the namespace was never made.
        tryIp('link', 'del', `${tag}v${host.index}`);
      }
      tryIp('link', 'del', bridge);
    },
  };
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `10.231.${k}.254/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    for (const host of hosts) {
      const [outside, inside, ns] = [`${tag}v${host.index}`, `${tag}p${host.index}`, host.namespace!];
      ip('netns', 'add', ns);
      ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
      ip('link', 'set', inside, 'netns', ns);
      ip('link', 'set', outside, 'master', bridge, 'up');
      ip('-n', ns, 'addr', 'add', `${host.address}/24`, 'dev', inside);
      ip('-n', ns, 'link', 'set', inside, 'up');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
  } catch (error) {
    network.teardown();
    throw error;
  }
  return network;
}

function loopbackNetwork(count: number, reason: string): NodeNetwork {
  const hosts: TestHost[] = Array.from({ length: count }, (_, i) => ({ index: i + 1, address: `${LOOPBACK_NET}.${i + 1}`, namespace: null }));
  let torn = false;
  const network: NodeNetwork = {
    mode: 'loopback',
    hosts,
    describe: () => `loopback addresses (no network namespaces: ${reason}): ${count} hosts ${hosts[0]?.address}-${hosts.at(-1)?.address} in the root namespace`,
    teardown() {
      if (torn) return;
      torn = true;
      live.delete(network);
      for (const child of children.get(network) ?? []) child.kill('SIGKILL');
    },
  };
  return network;
}

/** `count` test hosts (at most 253), in namespaces when this machine allows, else on loopback. */
export function createNodeNetwork(count: number): NodeNetwork {
  if (count < 1 || count > 253) throw new Error(`a node network has 1-253 hosts, not ${count}`);
  const { mode, reason } = networkSupport();
  const tag = `${PREFIX}${process.pid}${String.fromCharCode(97 + (made++ % 26))}`;
  const network = mode === 'netns' ? namespaceNetwork(count, tag) : loopbackNetwork(count, reason ?? '');
  if (mode === 'loopback') console.warn(`node-network: ${network.describe()}`);
  children.set(network, new Set());
  live.add(network);
  installExitHandlers();
  return network;
}

/** A served node on a test host; `publicUrl` is its peer listener, the URL other nodes list for it. */
export interface HostNode extends ServedNode {
  host: TestHost;
  publicUrl: string;
}

/**
 * Starts `svc-node serve` on `host`, both listeners bound to the host's address (`--host`): the
 * loopback listener's Host check accepts the address it is bound to and the owner API asks only
 * for the token, so the test reaches the owner and identity APIs there directly (through the
 * bridge in namespace mode), and other nodes reach the peer listener. Restarts keep the ports, so
 * the node keeps its URLs.
 */
export async function startHostNode(network: NodeNetwork, host: TestHost, options: { prefix?: string } = {}): Promise<HostNode> {
  const served = await startServedNode({
    prefix: options.prefix ?? 'svc-node-host-',
    host: host.address,
    peerListener: true,
    // `ip netns exec` execs the node in place, so the child is the node itself: its pid, signals and /proc entry.
    ...(host.namespace === null ? {} : { wrapper: ['ip', 'netns', 'exec', host.namespace] }),
    onStart: ({ child, ready }) => {
      children.get(network)?.add(child);
      child.once('exit', () => children.get(network)?.delete(child));
      // Memory is read from /proc/<pid>: the pid must be the node's, not a wrapper's.
      if (ready.pid !== child.pid) throw new Error(`the node runs as pid ${String(ready.pid)}, not as the spawned ${String(child.pid)}`);
    },
  });
  return Object.assign(served, { host, publicUrl: served.publicUrl! });
}
