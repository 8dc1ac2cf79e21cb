/**
 * A server under test on its own thread, so the load generator (the main thread) does not share
 * its event loop: `bare` is the same-run baseline route, `node` a whole svc-node.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parentPort, workerData, Worker } from 'node:worker_threads';
import { startNode } from '../server/index.ts';
import { startBareRoute } from './bare-route.ts';

export interface WorkerServer {
  url: string;
  /** The node's owner token; empty for the bare route. */
  ownerToken: string;
  /** The node's data dir, removed on stop; empty for the bare route. */
  dataDir: string;
  stop(): Promise<void>;
}

/** Starts `kind` in a worker thread and resolves once it listens. */
export function startWorkerServer(kind: 'bare' | 'node'): Promise<WorkerServer> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { kind } });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', ({ url, ownerToken, dataDir }: { url: string; ownerToken: string; dataDir: string }) =>
      resolve({
        url,
        ownerToken,
        dataDir,
        stop: async () => {
          const exited = new Promise((done) => worker.once('exit', done));
          worker.postMessage('stop');
          await exited;
        },
      }),
    );
  });
}

if (parentPort && (workerData as { kind?: string } | null)?.kind) {
  const port = parentPort;
  if ((workerData as { kind: string }).kind === 'bare') {
    const bare = await startBareRoute();
    port.postMessage({ url: bare.url, ownerToken: '', dataDir: '' });
    port.once('message', () => void bare.close().then(() => port.close()));
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-bench-'));
    const node = await startNode({ dataDir, port: 0, uiDir: null, custody: { backend: 'key-file' }, warn: () => {} });
    port.postMessage({ url: node.info.core_url, ownerToken: node.ownerToken, dataDir });
    port.once(
      'message',
      () =>
        void node.close().then(() => {
          rmSync(dataDir, { recursive: true, force: true });
          port.close();
        }),
    );
  }
}
