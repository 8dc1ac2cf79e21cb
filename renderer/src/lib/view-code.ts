/**
 * A view's code and styles load when the view is first opened (router.ts). The desktop app reads
 * them from its own files, but a browser on the headless node fetches them from the node, and that
 * fails while the node restarts or when a connection drops. Two habits of the browser make a plain
 * second try useless:
 *
 * - a stylesheet link that failed stays in the page, and Vite takes a link in the page as loaded,
 *   so the view would open without its styles;
 * - a script that failed to load is remembered as failed for the page's life: importing it again
 *   fails at once, without asking the node.
 *
 * So a link that fails leaves the page as it fails (`forgetFailedLinks`); a view whose load fails
 * waits until the node answers and tries once more (`loadViewCode`: enough when only a stylesheet
 * failed); when that fails too, the page loads again straight on the view that was asked for
 * (`reloadOnto`: drafts live in storage, the session too), at most once a minute. Past that the
 * failure stands, and the window says so.
 */

/** A view's code did not load, even once the node answered again. */
export class ViewCodeUnavailable extends Error {
  override readonly name = 'ViewCodeUnavailable';
  constructor(cause: unknown) {
    super('This view could not be loaded from the node.', { cause });
  }
}

/**
 * From now on, a stylesheet or script preload that fails leaves `target` as it fails, so that the
 * next try adds a fresh one. The listener runs in the capture phase, before Vite's own listener on
 * the link, which still hears the failure. Returns the function that stops it.
 */
export function forgetFailedLinks(target: Document): () => void {
  const onError = (event: Event): void => {
    const element = event.target;
    if (element instanceof HTMLLinkElement && (element.rel === 'stylesheet' || element.rel === 'modulepreload')) element.remove();
  };
  target.addEventListener('error', onError, true);
  return () => target.removeEventListener('error', onError, true);
}

/**
 * `load`, and if it fails, once more as soon as `nodeAnswers` resolves. A second failure is a
 * `ViewCodeUnavailable`.
 */
export function loadViewCode<T>(load: () => Promise<T>, nodeAnswers: () => Promise<void>): () => Promise<T> {
  return async () => {
    try {
      return await load();
    } catch {
      await nodeAnswers();
      try {
        return await load();
      } catch (error) {
        throw new ViewCodeUnavailable(error);
      }
    }
  };
}

/** Reloads at most this often: a page that cannot load a view even fresh must not reload in a loop. */
export const RELOAD_SPACING_MS = 60_000;
/** Where the time of the last reload is kept across it (the tab's sessionStorage). */
export const RELOAD_KEY = 'svc-node.view-code-reloaded-at';

export interface ReloadEnv {
  storage: Pick<Storage, 'getItem' | 'setItem'>;
  now(): number;
  /** Puts `href` (the view's `#/...`) in the address bar and loads the page again. */
  reloadAt(href: string): void;
}

/**
 * Loads the page again on `href`, unless it already did within the last minute. True when it
 * reloads; false when the failure must stand.
 */
export function reloadOnto(href: string, env: ReloadEnv): boolean {
  const last = Number(env.storage.getItem(RELOAD_KEY) ?? '0');
  if (env.now() - last < RELOAD_SPACING_MS) return false;
  env.storage.setItem(RELOAD_KEY, String(env.now()));
  env.reloadAt(href);
  return true;
}

/**
 * Resolves once `ask` gets any answer from the node (a refusal is an answer too), asking every
 * `everyMs` until then.
 */
export async function untilAnswered(
  ask: () => Promise<unknown>,
  answered: (error: unknown) => boolean,
  everyMs: number,
  sleep: (ms: number) => Promise<void>,
): Promise<void> {
  for (;;) {
    try {
      await ask();
      return;
    } catch (error) {
      if (answered(error)) return;
    }
    await sleep(everyMs);
  }
}
