/**
 * `svc-node serve`: the headless node. Prints exactly one ready line on stdout (everything else
 * goes to stderr) and stops cleanly on SIGTERM/SIGINT with exit code 0.
 */
import { readyLine } from './ready-line.ts';
import { flushCompileCache } from 'node:module';
import { startNode } from '../index.ts';
import type { BackendName } from '../custody/types.ts';
import { chooseBackend, recordedBackend } from '../custody/select.ts';

export interface ServeArgs {
  dataDir: string;
  host: string;
  port: number;
  publicPort: number | null;
  custody: string | undefined;
  log: boolean;
  /** `--dns-server host:port`: the name server for all of the node's DNS; null: the machine's. */
  dnsServer: string | null;
}

export async function serve(args: ServeArgs): Promise<void> {
  const backend: BackendName = chooseBackend({ flag: args.custody, env: process.env, recorded: recordedBackend(args.dataDir) });
  const node = await startNode({
    dataDir: args.dataDir,
    host: args.host,
    port: args.port,
    publicPort: args.publicPort,
    custody: { backend },
    log: args.log,
    ...(args.dnsServer === null ? {} : { dnsServer: args.dnsServer }),
    warn: (message) => process.stderr.write(`${message}\n`),
  });

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`svc-node: ${signal}, shutting down\n`);
    node.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`svc-node: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  // Before the ready line: whoever reads it may stop the node at once, and until a handler is
  // installed a SIGTERM kills the process without a clean shutdown.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.stdout.write(readyLine(node.info));
  process.stderr.write(`svc-node: open the UI at ${node.info.ui_url}\n`);
  // Node writes the compile cache (bin/svc-node.js enables it) only at exit; a node that is
  // killed or crashes would never save it, so save what the start compiled now. A no-op when the
  // cache is off; a failed write only means a slower next start.
  flushCompileCache();
}
