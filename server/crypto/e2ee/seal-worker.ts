/**
 * The seal worker thread: seal-envelope.ts's prepareEnvelope (the key assertions verified, the
 * content encrypted, a key wrap per recipient and the sender's copy), run beside the node's event
 * loop (seal-pool.ts says why). It is given the message and published keys, and, when custody
 * lends it for the one job, the sender's signing key: it then signs the envelope (and the bytes
 * custody asks it to sign beside it) and forgets the key with the job. It never holds an
 * encryption private key, and keeps nothing between jobs but verified assertion signatures.
 *
 * As the render worker (server/markdown/worker.ts), the pool starts this very module through
 * SEAL_WORKER_URL, which is right in the sources and in the bundled build alike; so this module
 * imports nothing at its top but worker_threads, and loads the crypto core inside the thread.
 */
import type { KeyObject } from 'node:crypto';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { E2eeEnvelope } from './envelope.ts';
import type { PreparedEnvelope, SealRequest } from './seal-envelope.ts';

/** Passed as workerData: this module serves only when started by the pool. */
export const SEAL_WORKER_ROLE = 'svc-node:seal-worker';

/** This module's own URL: the worker's entry point. */
export const SEAL_WORKER_URL: string = import.meta.url;

/** The sender's signing key, lent by custody for one job: its did:key (which must be the envelope's from.did), and more bytes to sign with it. */
export interface WorkerSigner {
  key: KeyObject;
  did: string;
  alsoSign?: Buffer;
}

export interface SealJob {
  id: number;
  request: SealRequest;
  signer?: WorkerSigner;
}

export type SealReply =
  | { type: 'ready' }
  | { type: 'prepared'; id: number; envelope: PreparedEnvelope['envelope']; bytes: Uint8Array }
  | { type: 'sealed'; id: number; envelope: E2eeEnvelope; alsoSignature?: Uint8Array }
  | { type: 'failed'; id: number; message: string };

async function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  const { prepareEnvelope, signPreparedEnvelope } = await import('./seal-envelope.ts');
  const { VerifiedKeyAssertions } = await import('./verified-key-assertions.ts');
  const { signBytes } = await import('../ed25519.ts');
  // The same few assertions come back send after send: their signatures are checked once here too.
  const verified = new VerifiedKeyAssertions();
  port.on('message', ({ id, request, signer }: SealJob) => {
    let reply: SealReply;
    try {
      const prepared = prepareEnvelope(request, (assertion, expect) => verified.verify(assertion, expect));
      if (signer === undefined) reply = { type: 'prepared', id, ...prepared };
      else {
        const { key, did, alsoSign } = signer;
        const envelope = signPreparedEnvelope(prepared, { did, sign: (bytes) => signBytes(key, bytes) });
        reply = { type: 'sealed', id, envelope, ...(alsoSign === undefined ? {} : { alsoSignature: signBytes(key, alsoSign) }) };
      }
    } catch (error) {
      reply = { type: 'failed', id, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ type: 'ready' } satisfies SealReply);
}

if (!isMainThread && parentPort !== null && workerData === SEAL_WORKER_ROLE) void serve(parentPort);
