/**
 * Sealing beside the event loop. Nearly all of a seal (the key wraps' X25519 and HKDF, the
 * content's AES-GCM, the canonical JSON the hashes and the signature cover) takes public keys only;
 * on the main thread it ran inside the send's transaction, where every other request of the node
 * waited for it, and sealed mail went at half the rate of plaintext (docs/benchmarks.md). Here it
 * runs in one worker thread (seal-worker.ts), on the machine's other core, while the main thread
 * serves and commits the sends around it.
 *
 * - Nothing secret crosses but what custody lends: the worker gets the message and the parties'
 *   published assertions, and verifies the assertions itself. Custody may lend it the sender's
 *   signing key for the one job (custody.ts, sealBeside), so that the signatures are made there
 *   too; the key stays in this process, is never written anywhere, and the worker drops it with
 *   the job. Without it the envelope comes back unsigned, to be signed in custody
 *   (seal-envelope.ts, signPreparedEnvelope).
 * - Never in the way: `seal` and `prepare` answer null, and the caller seals on its own thread as before,
 *   while the worker is starting (the first sends never wait for it), when it failed or died, when
 *   it refused the request (the caller's own seal then refuses it with the proper error), and when
 *   more sends wait than a burst of them needs (a flood never queues without bound).
 * - An idle worker is unref'd, so it never keeps a process alive. One pool serves every node in
 *   the process, as the render pool does (CPU is per process).
 */
import { Worker } from 'node:worker_threads';
import { lazily } from '../../lazy.ts';
import type { E2eeEnvelope } from './envelope.ts';
import type { PreparedEnvelope, SealRequest } from './seal-envelope.ts';
// Types only: a value imported from seal-worker.ts would bundle it into the main chunk (see there).
import type { SealJob, SealReply, WorkerSigner } from './seal-worker.ts';

/** Seals that may wait for the worker; past it a send seals on its own thread. */
export const SEAL_QUEUE_MAX = 64;
/** How long a worker that could not start is left alone before the next try. */
const RESPAWN_AFTER_MS = 60_000;
/** The process's Node flags, less `--input-type`, which no worker started from a file may have. */
const WORKER_EXEC_ARGV = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));

const workerEntry = lazily(async () => {
  const { SEAL_WORKER_URL, SEAL_WORKER_ROLE } = await import('./seal-worker.ts');
  return { url: new URL(SEAL_WORKER_URL), role: SEAL_WORKER_ROLE };
});

/** What the pool has done since the process started (tests and diagnostics read it). */
export interface SealPoolStats {
  prepared: number;
  /** Requests answered null: the caller sealed them itself. */
  declined: number;
  workers_started: number;
}

export class SealPool {
  #worker: Worker | null = null;
  #ready = false;
  #spawning = false;
  /** A worker that died before it was ready is not started again before this time. */
  #retryAt = 0;
  #nextId = 1;
  readonly #waiting = new Map<number, (reply: SealReply | null) => void>();
  readonly #stats: SealPoolStats = { prepared: 0, declined: 0, workers_started: 0 };

  get stats(): Readonly<SealPoolStats> {
    return { ...this.#stats };
  }

  /** The envelope prepared in the worker, unsigned, or null: the caller then seals it itself. */
  async prepare(request: SealRequest): Promise<PreparedEnvelope | null> {
    const reply = await this.#run({ request });
    return reply?.type === 'prepared' ? { envelope: reply.envelope, bytes: asBuffer(reply.bytes) } : null;
  }

  /**
   * The envelope sealed and signed in the worker with the key custody lends it for this one job
   * (`signer`), with `signer.alsoSign` signed too; null when the worker did not (the caller seals
   * and signs itself).
   */
  async seal(request: SealRequest, signer: WorkerSigner): Promise<SealedInWorker | null> {
    const reply = await this.#run({ request, signer });
    if (reply?.type !== 'sealed') return null;
    return { envelope: reply.envelope, ...(reply.alsoSignature === undefined ? {} : { alsoSignature: asBuffer(reply.alsoSignature) }) };
  }

  #run(job: Omit<SealJob, 'id'>): Promise<SealReply | null> {
    const worker = this.#worker;
    if (worker === null || !this.#ready || this.#waiting.size >= SEAL_QUEUE_MAX) {
      if (worker === null) this.#spawn();
      this.#stats.declined++;
      return Promise.resolve(null);
    }
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      worker.ref();
      worker.postMessage({ id, ...job } satisfies SealJob);
    });
  }

  /** Stops the worker; what waits is answered null. The next `prepare` starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#lost(worker);
    this.#retryAt = 0;
    await worker?.terminate();
  }

  #spawn(): void {
    if (this.#spawning || this.#worker !== null || Date.now() < this.#retryAt) return;
    this.#spawning = true;
    workerEntry().then(
      ({ url, role }) => {
        this.#spawning = false;
        const worker = new Worker(url, { workerData: role, execArgv: WORKER_EXEC_ARGV });
        this.#worker = worker;
        this.#ready = false;
        this.#stats.workers_started++;
        worker.unref();
        worker.on('message', (reply: SealReply) => this.#onReply(worker, reply));
        worker.on('error', () => this.#lost(worker));
        worker.on('exit', () => this.#lost(worker));
      },
      // The module could not load: seals stay on the main thread, as they always could.
      () => {
        this.#spawning = false;
        this.#retryAt = Date.now() + RESPAWN_AFTER_MS;
      },
    );
  }

  #onReply(worker: Worker, reply: SealReply): void {
    if (worker !== this.#worker) return;
    if (reply.type === 'ready') {
      this.#ready = true;
      return;
    }
    const resolve = this.#waiting.get(reply.id);
    this.#waiting.delete(reply.id);
    if (this.#waiting.size === 0) worker.unref();
    if (reply.type !== 'failed') {
      this.#stats.prepared++;
      resolve?.(reply);
    } else {
      this.#stats.declined++;
      resolve?.(null);
    }
  }

  #lost(worker: Worker | null): void {
    if (worker === null || this.#worker !== worker) return;
    if (!this.#ready) this.#retryAt = Date.now() + RESPAWN_AFTER_MS;
    this.#worker = null;
    this.#ready = false;
    for (const resolve of this.#waiting.values()) resolve(null);
    this.#stats.declined += this.#waiting.size;
    this.#waiting.clear();
  }
}

/** What the worker sealed with a lent key: the signed envelope, and the signature of the bytes asked beside it. */
export interface SealedInWorker {
  envelope: E2eeEnvelope;
  alsoSignature?: Buffer;
}

/** A byte array that crossed threads, as the Buffer it was (no copy). */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The process's one seal pool. */
export const sealPool = new SealPool();
