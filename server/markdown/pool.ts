/**
 * Markdown rendering off the event loop: one worker thread (worker.ts), started at the
 * first render, never at the node's start. markdown-it and sanitize-html are linear but slow on
 * hostile input (a 200k-character table takes over a second), so on the main thread a few previews
 * stalled every request of the node. Here they only occupy the worker:
 *
 * - a time budget per render: past it the worker is terminated (a fresh one starts for the next
 *   document) and the caller gets a 422 "too complex to render"; so is a render that outgrows the
 *   worker's heap limit;
 * - one worker (the machine the node targets has two cores: one stays for the listeners) and a
 *   bounded queue per listener: beyond it a 503 with Retry-After, so a flood of previews cannot
 *   pile up work; renders for the loopback listener (the owner's app) go first and have their
 *   own queue, so peers keeping theirs full never make the owner wait behind them;
 * - an idle worker is unref'd, so it never keeps a process alive.
 *
 * The pool is shared by every node in the process (CPU is per process, not per node).
 */
import { Worker } from 'node:worker_threads';
import { invalid, unavailable, type ServiceError } from '../errors.ts';
import type { Listener } from '../http/listener.ts';
import { lazily } from '../lazy.ts';
// Types only: a value imported from worker.ts would bundle it into the main chunk (see worker.ts).
import type { RenderRequest, WorkerMessage } from './worker.ts';

/** The longest one render may take before it is stopped and refused. */
export const RENDER_BUDGET_MS = 5_000;
/** Renders that may wait behind the running one, per listener. */
export const RENDER_QUEUE_MAX = 8;
/** Whose renders run first when both wait. */
const LANES: readonly Listener[] = ['loopback', 'peer'];
/** The worker's old-generation heap: a render that needs more is refused as too complex. */
export const RENDER_HEAP_MB = 256;
/** How long a new worker may take to load the renderer (a cold start on a loaded machine). */
const WORKER_START_MS = 30_000;
const BUSY_RETRY_AFTER_SECONDS = 5;
/** The process's Node flags, less `--input-type` (a process run with --eval has it), which no worker started from a file may have. */
const WORKER_EXEC_ARGV = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));

/** What the pool has done since the process started (tests and diagnostics read it). */
export interface RenderPoolStats {
  /** Documents rendered to HTML. */
  rendered: number;
  /** Renders stopped at the time budget. */
  timed_out: number;
  /** Renders lost with their worker (heap limit, crash). */
  crashed: number;
  /** Renders refused because the queue was full. */
  refused_busy: number;
  workers_started: number;
}

interface Job {
  id: number;
  markdown: string;
  assets: RenderRequest['assets'];
  resolve: (html: string) => void;
  reject: (error: ServiceError) => void;
}

export interface RenderPoolOptions {
  budgetMs?: number;
  queueMax?: number;
  heapMb?: number;
}

// The worker's entry is worker.ts itself (see there); importing it is cheap and loads no renderer.
const workerEntry = lazily(async () => {
  const { WORKER_URL, WORKER_ROLE } = await import('./worker.ts');
  return { url: new URL(WORKER_URL), role: WORKER_ROLE };
});

export class RenderPool {
  readonly #budgetMs: number;
  readonly #queueMax: number;
  readonly #heapMb: number;
  readonly #queues: Record<Listener, Job[]> = { loopback: [], peer: [] };
  #worker: Worker | null = null;
  #spawning = false;
  #ready = false;
  #startTimer: NodeJS.Timeout | null = null;
  #running: { job: Job; timer: NodeJS.Timeout } | null = null;
  #nextId = 1;
  readonly #stats: RenderPoolStats = { rendered: 0, timed_out: 0, crashed: 0, refused_busy: 0, workers_started: 0 };

  constructor(options: RenderPoolOptions = {}) {
    this.#budgetMs = options.budgetMs ?? RENDER_BUDGET_MS;
    this.#queueMax = options.queueMax ?? RENDER_QUEUE_MAX;
    this.#heapMb = options.heapMb ?? RENDER_HEAP_MB;
  }

  get stats(): Readonly<RenderPoolStats> {
    return { ...this.#stats };
  }

  /**
   * The sanitised HTML of `markdown`, rendered for a request on `listener`; 422 when it is too
   * complex, 503 when that listener's queue is full.
   */
  render(markdown: string, assets: RenderRequest['assets'], listener: Listener = 'peer'): Promise<string> {
    const queue = this.#queues[listener];
    if (queue.length >= this.#queueMax) {
      this.#stats.refused_busy++;
      return Promise.reject(unavailable('SVC_ERR_RENDERER_BUSY', 'The document renderer is busy; try again in a few seconds', BUSY_RETRY_AFTER_SECONDS));
    }
    return new Promise<string>((resolve, reject) => {
      queue.push({ id: this.#nextId++, markdown, assets, resolve, reject });
      this.#pump();
    });
  }

  #waiting(): number {
    return this.#queues.loopback.length + this.#queues.peer.length;
  }

  /** The next job: the loopback listener's first. */
  #next(): Job | undefined {
    for (const lane of LANES) {
      const job = this.#queues[lane].shift();
      if (job !== undefined) return job;
    }
    return undefined;
  }

  /** Stops the worker (queued renders are refused); the next render starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#drop(unavailable('SVC_ERR_RENDERER_UNAVAILABLE', 'The document renderer stopped'));
    await worker?.terminate();
  }

  #pump(): void {
    if (this.#running !== null || this.#waiting() === 0) return;
    if (this.#worker === null) return this.#spawn();
    if (!this.#ready) return;
    const job = this.#next()!;
    const timer = setTimeout(() => this.#expire(job), this.#budgetMs);
    this.#running = { job, timer };
    this.#worker.ref();
    this.#worker.postMessage({ id: job.id, markdown: job.markdown, assets: job.assets } satisfies RenderRequest);
  }

  #spawn(): void {
    if (this.#spawning) return;
    this.#spawning = true;
    workerEntry().then(
      ({ url, role }) => {
        this.#spawning = false;
        const worker = new Worker(url, { workerData: role, execArgv: WORKER_EXEC_ARGV, resourceLimits: { maxOldGenerationSizeMb: this.#heapMb } });
        this.#worker = worker;
        this.#ready = false;
        this.#stats.workers_started++;
        this.#startTimer = setTimeout(() => this.#startFailed(worker), WORKER_START_MS);
        worker.on('message', (message: WorkerMessage) => this.#onMessage(worker, message));
        worker.on('error', (error) => this.#onExit(worker, error));
        worker.on('exit', () => this.#onExit(worker, null));
      },
      () => {
        this.#spawning = false;
        this.#failQueued(unavailable('SVC_ERR_RENDERER_UNAVAILABLE', 'The document renderer could not be loaded'));
      },
    );
  }

  #onMessage(worker: Worker, message: WorkerMessage): void {
    if (worker !== this.#worker) return;
    if (message.type === 'ready') {
      this.#ready = true;
      this.#clearStartTimer();
    } else {
      const running = this.#running;
      if (running === null || running.job.id !== message.id) return;
      clearTimeout(running.timer);
      this.#running = null;
      if (message.type === 'rendered') {
        this.#stats.rendered++;
        running.job.resolve(message.html);
      } else {
        running.job.reject(invalid('SVC_ERR_DOCUMENT_TOO_COMPLEX', `This document could not be rendered: ${message.message}`));
      }
    }
    if (this.#running === null && this.#waiting() === 0) worker.unref();
    this.#pump();
  }

  /** The running render took its whole budget: stop the worker, refuse it, go on with a new one. */
  #expire(job: Job): void {
    if (this.#running?.job !== job) return;
    this.#stats.timed_out++;
    this.#running = null;
    this.#stopWorker();
    job.reject(
      invalid(
        'SVC_ERR_DOCUMENT_TOO_COMPLEX',
        `This document is too complex to render (it takes more than ${this.#budgetMs / 1000} s); split very large tables or lists`,
      ),
    );
    this.#pump();
  }

  /** The worker died: out of heap on the running document, or it never started. */
  #onExit(worker: Worker, error: Error | null): void {
    if (worker !== this.#worker) return;
    const started = this.#ready;
    this.#worker = null;
    this.#ready = false;
    this.#clearStartTimer();
    const running = this.#running;
    if (running !== null) {
      clearTimeout(running.timer);
      this.#running = null;
      this.#stats.crashed++;
      const outOfMemory = (error as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      running.job.reject(
        invalid('SVC_ERR_DOCUMENT_TOO_COMPLEX', `This document is too complex to render${outOfMemory ? ` (it needs more than ${this.#heapMb} MB)` : ''}`),
      );
    }
    // A worker that cannot even start would fail again at once: refuse what waits instead of looping.
    if (!started) this.#failQueued(unavailable('SVC_ERR_RENDERER_UNAVAILABLE', 'The document renderer could not start'));
    this.#pump();
  }

  #startFailed(worker: Worker): void {
    if (worker !== this.#worker) return;
    this.#stopWorker();
    this.#failQueued(unavailable('SVC_ERR_RENDERER_UNAVAILABLE', 'The document renderer did not start in time; try again'));
  }

  #stopWorker(): void {
    const worker = this.#worker;
    this.#worker = null;
    this.#ready = false;
    this.#clearStartTimer();
    void worker?.terminate();
  }

  #clearStartTimer(): void {
    if (this.#startTimer !== null) clearTimeout(this.#startTimer);
    this.#startTimer = null;
  }

  #failQueued(error: ServiceError): void {
    for (const lane of LANES) for (const job of this.#queues[lane].splice(0)) job.reject(error);
  }

  #drop(error: ServiceError): void {
    const running = this.#running;
    this.#running = null;
    if (running !== null) {
      clearTimeout(running.timer);
      running.job.reject(error);
    }
    this.#failQueued(error);
    this.#stopWorker();
  }
}

/** The process's one render pool. */
export const renderPool = new RenderPool();
