/**
 * The render worker thread: markdown.ts's renderMarkdown, run off the node's event loop, so a
 * hostile document can stall this thread (and be terminated by pool.ts at its time budget) but
 * never the listeners.
 *
 * The pool starts this very module as the worker's entry, through WORKER_URL below rather than a
 * path of its own: in the Electron build server/ is bundled and this module becomes a chunk whose
 * name only the bundler knows, and `import.meta.url` is that chunk's URL either way. So this module
 * imports nothing heavy at its top (the main thread loads it to learn the URL); the renderer loads
 * inside the thread, and the thread says `ready` once it has.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

/** Passed as workerData: this module serves only when started by the pool. */
export const WORKER_ROLE = 'svc-node:render-worker';

/** This module's own URL: the worker's entry point, in the sources and in the bundled build. */
export const WORKER_URL: string = import.meta.url;

export interface RenderRequest {
  id: number;
  markdown: string;
  /** The team's asset ids with the URL each image gets (a function cannot cross threads). */
  assets: [id: string, url: string][];
}

export type WorkerMessage = { type: 'ready' } | { type: 'rendered'; id: number; html: string } | { type: 'failed'; id: number; message: string };

async function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  const { renderMarkdown } = await import('./markdown.ts');
  port.on('message', (request: RenderRequest) => {
    const urls = new Map(request.assets);
    let reply: WorkerMessage;
    try {
      const html = renderMarkdown(request.markdown, { assetIds: new Set(urls.keys()), assetUrl: (id) => urls.get(id) ?? '' });
      reply = { type: 'rendered', id: request.id, html };
    } catch (error) {
      reply = { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ type: 'ready' } satisfies WorkerMessage);
}

if (!isMainThread && workerData === WORKER_ROLE && parentPort !== null) void serve(parentPort);
