/**
 * The seal worker thread: seal-envelope.ts's prepareEnvelope (the key assertions verified, the
 * content encrypted, a key wrap per recipient and the sender's copy), run beside the node's event
 * loop (seal-pool.ts says why). It is given the message and published keys only: no private key
 * ever reaches it, and what it returns is signed in custody, on the main thread.
 *
 * As the render worker (server/markdown/worker.ts), the pool starts this very module through
 * SEAL_WORKER_URL, which is right in the sources and in the bundled build alike; so this module
 * imports nothing at its top but worker_threads, and loads the crypto core inside the thread.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { PreparedEnvelope, SealRequest } from './seal-envelope.ts';

/** Passed as workerData: this module serves only when started by the pool. */
export const SEAL_WORKER_ROLE = 'svc-node:seal-worker';

/** This module's own URL: the worker's entry point. */
export const SEAL_WORKER_URL: string = import.meta.url;

export interface SealJob {
  id: number;
  request: SealRequest;
}

export type SealReply =
  | { type: 'ready' }
  | { type: 'prepared'; id: number; envelope: PreparedEnvelope['envelope']; bytes: Uint8Array }
  | { type: 'failed'; id: number; message: string };

async function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  const { prepareEnvelope } = await import('./seal-envelope.ts');
  const { VerifiedKeyAssertions } = await import('./verified-key-assertions.ts');
  // The same few assertions come back send after send: their signatures are checked once here too.
  const verified = new VerifiedKeyAssertions();
  port.on('message', ({ id, request }: SealJob) => {
    let reply: SealReply;
    try {
      const { envelope, bytes } = prepareEnvelope(request, (assertion, expect) => verified.verify(assertion, expect));
      reply = { type: 'prepared', id, envelope, bytes };
    } catch (error) {
      reply = { type: 'failed', id, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ type: 'ready' } satisfies SealReply);
}

if (!isMainThread && parentPort !== null && workerData === SEAL_WORKER_ROLE) void serve(parentPort);
