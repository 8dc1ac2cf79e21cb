/**
 * A node in its own process, as a user runs it: `svc-node serve` on a fixed port (loopback, or a
 * test host's address), so it can be killed and started again on the same data dir and URLs. The request helpers (identities,
 * teams, documents) drive it through the same NodeEndpoint as an in-process TestNode.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readNodeFile, type ReadyInfo } from '../../server/node-file.ts';
import { startServe, type CliResult, type ServeProcess } from './cli.ts';
import { requestJson, type NodeEndpoint } from './node.ts';

/** A port that was free a moment ago: the node must keep its URL across restarts. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ServedNode extends NodeEndpoint {
  dataDir: string;
  port: number;
  /** The peer listener's origin, with `peerListener`; null without. */
  publicUrl: string | null;
  /** The ready line of the running process. */
  info: ReadyInfo;
  ownerToken: string;
  /** The running process; null between stop() and start(). */
  process: ServeProcess | null;
  /** Starts the process again on the same data dir and port. */
  start(): Promise<void>;
  /** Sends `signal` (SIGTERM: a clean shutdown) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
  /** Stops the process if it runs (SIGTERM, so profiles and logs are flushed), then deletes the data dir. */
  dispose(): Promise<void>;
}

export interface ServedNodeOptions {
  /** Extra `serve` arguments, e.g. `--log`. */
  args?: string[];
  /** Temp dir prefix of the data dir. */
  prefix?: string;
  /** The data dir to serve instead of a new temporary one (a restored node's, say); dispose() deletes it too. */
  dataDir?: string;
  /** The address its listeners bind to (`--host`; a test host's, test/support/node-network.ts); 127.0.0.1 when absent. */
  host?: string;
  /** Also listens for peers (`--public-port`), on a port kept across restarts. */
  peerListener?: boolean;
  /** A command that runs the node in place (`ip netns exec <ns>`): see startServe. */
  wrapper?: string[];
  /** Called with each process once it is ready. */
  onStart?: (process: ServeProcess) => void;
}

export async function startServedNode(options: ServedNodeOptions = {}): Promise<ServedNode> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), options.prefix ?? 'svc-node-served-'));
  const host = options.host ?? '127.0.0.1';
  const port = await freePort();
  const publicPort = options.peerListener ? await freePort() : null;
  const url = `http://${host}:${port}`;
  const args = [
    ...['--data', dataDir, '--port', String(port)],
    ...(options.host === undefined ? [] : ['--host', options.host]),
    ...(publicPort === null ? [] : ['--public-port', String(publicPort)]),
    ...(options.args ?? []),
  ];
  const served: ServedNode = {
    dataDir,
    port,
    publicUrl: publicPort === null ? null : `http://${host}:${publicPort}`,
    url,
    info: {} as ReadyInfo,
    ownerToken: '',
    process: null,
    request: (method, path, opts) => requestJson(url, method, path, opts),
    owner: (method, path, body) => requestJson(url, method, path, { token: served.ownerToken, ...(body === undefined ? {} : { body }) }),
    async start() {
      served.process = await startServe(args, options.wrapper === undefined ? {} : { wrapper: options.wrapper });
      served.info = served.process.ready as unknown as ReadyInfo;
      options.onStart?.(served.process);
      served.ownerToken = readNodeFile(dataDir)?.owner_token ?? '';
      if (served.ownerToken === '') throw new Error(`no node.json in ${dataDir}`);
    },
    async stop(signal = 'SIGTERM') {
      const running = served.process;
      if (running === null) throw new Error('the node is not running');
      served.process = null;
      return running.stop(signal);
    },
    async dispose() {
      await served.process?.stop('SIGTERM');
      served.process = null;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await served.start();
  return served;
}
