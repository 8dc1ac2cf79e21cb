/**
 * The mail list's benchmark: the Mail view of an identity with 100,000 messages, in Debian's
 * Chromium against a real node serving the built UI (BENCH_ONLY=inbox-ui).
 *
 * - time to first rows: from navigation start (the app boots, signs in with the one-time link,
 *   mints the identity's session key, asks for the inbox's first page) to the first message row in
 *   the DOM, recorded in the page by a MutationObserver; then, warm, from a click on Inbox (coming
 *   from Archive) to its first rows, several times;
 * - a scroll: the list scrolled by a fixed step every animation frame for a few seconds (a fast
 *   fling: pages keep arriving from the node as it goes), the time between frames measured in the
 *   page with requestAnimationFrame: p50, p95, max and the frames over 50 ms, the main thread's
 *   long tasks meanwhile, the rows in the DOM (the virtual list keeps them few) and how many
 *   messages had paged in by the end.
 *
 * The inbox is seeded straight into the database from one real signed message (seed.ts).
 * BENCH_UI_MESSAGES, BENCH_UI_SCROLL_MS and BENCH_UI_STEP_PX change the sizes.
 */
import { startNode, type RunningNode } from '../server/index.ts';
import { ensureUiBuilt } from '../test/e2e/build-ui.ts';
import { launchChromium } from '../test/e2e/browser.ts';
import { startBenchNode } from './fixtures.ts';
import { report, summarize } from './measure.ts';
import { seedInbox } from './seed.ts';

const MESSAGES = Number(process.env.BENCH_UI_MESSAGES ?? 100_000);
const SCROLL_MS = Number(process.env.BENCH_UI_SCROLL_MS ?? 5000);
/** Pixels per frame: about two rows, some 7,000 px a second at 60 frames a second. */
const STEP_PX = Number(process.env.BENCH_UI_STEP_PX ?? 120);
const WARM_RUNS = 5;
const ROWS = '[data-testid="mail-list"] [role="option"]';

// Page-side code is written as strings: it runs in Chromium, not in this process.
const WATCH_FIRST_ROWS = `
  new MutationObserver((_, observer) => {
    if (document.querySelector('${ROWS}')) {
      window.__firstRowsAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
`;

/** Scrolls the list by `step` px each frame for `ms`; answers the frame intervals, the long tasks and the largest row count seen. */
const SCROLL = `(async ({ ms, step }) => {
  const list = document.querySelector('[data-testid="mail-list"]');
  const intervals = [];
  const longTasks = [];
  // Main-thread tasks over 50 ms (Chromium's Long Tasks API): jank a frame interval could hide.
  const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((e) => e.duration)));
  observer.observe({ type: 'longtask' });
  let maxRows = 0;
  await new Promise((resolve) => {
    let last = performance.now();
    const end = last + ms;
    const frame = (now) => {
      intervals.push(now - last);
      last = now;
      maxRows = Math.max(maxRows, list.querySelectorAll('[role="option"]').length);
      list.scrollTop += step;
      if (now < end) requestAnimationFrame(frame);
      else resolve();
    };
    requestAnimationFrame(frame);
  });
  observer.disconnect();
  return { intervals: intervals.slice(1), maxRows, longTasks };
})`;

async function uiNode(dataDir: string): Promise<{ node: RunningNode; uiLink: () => Promise<string> }> {
  const node = await startNode({ dataDir, port: 0, custody: { backend: 'key-file' }, warn: () => {} });
  const uiLink = async (): Promise<string> => {
    const response = await fetch(`${node.info.core_url}/v1/node/ui-link`, { method: 'POST', headers: { authorization: `Bearer ${node.ownerToken}` } });
    return ((await response.json()) as { ui_url: string }).ui_url;
  };
  return { node, uiLink };
}

export async function run(): Promise<void> {
  ensureUiBuilt();
  const bench = await startBenchNode();
  let served: RunningNode | null = null;
  const chrome = await launchChromium();
  try {
    const reader = await bench.identity('ui-reader');
    const sender = await bench.identity('ui-sender');
    const { message_id: template } = await bench.post<{ message_id: string }>('/v1/messages', sender.api_key, {
      to_alias: reader.alias,
      subject: 'A message among many',
      body: 'Short, like most mail: a line or two of **Markdown** that the list previews.',
    });
    const seedStarted = performance.now();
    await seedInbox(bench, reader.agent_id, template, MESSAGES - 1);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    await bench.node.close();

    const { node, uiLink } = await uiNode(bench.dataDir);
    served = node;
    const listed = (await (await fetch(`${node.info.core_url}/v1/node/identities`, { headers: { authorization: `Bearer ${node.ownerToken}` } })).json()) as {
      identities: { identity_id: string; agent_id: string }[];
    };
    const identityId = listed.identities.find((identity) => identity.agent_id === reader.agent_id)?.identity_id;
    if (identityId === undefined) throw new Error('the reader identity is not listed');

    const context = await chrome.browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
    const origin = new URL(node.info.core_url).origin;
    // The identity switcher's choice, as the app stores it: the reader's Mail opens first.
    await context.addInitScript(`localStorage.setItem(${JSON.stringify(`svc-node.current-identity@${origin}`)}, ${JSON.stringify(identityId)});`);
    await context.addInitScript(WATCH_FIRST_ROWS);
    const page = await context.newPage();

    await page.goto(await uiLink());
    await page.waitForSelector(ROWS, { timeout: 60_000 });
    const coldMs = (await page.evaluate('window.__firstRowsAt')) as number;

    // Warm: Archive (empty) → Inbox, to the first rows, measured in the page from the click.
    const warm: number[] = [];
    for (let i = 0; i < WARM_RUNS; i++) {
      await page.getByTestId('folder-archive').click();
      await page.getByTestId('mail-empty').waitFor({ timeout: 30_000 });
      warm.push(
        (await page.evaluate(`new Promise((resolve) => {
          const started = performance.now();
          const observer = new MutationObserver(() => {
            if (document.querySelector('${ROWS}')) { observer.disconnect(); resolve(performance.now() - started); }
          });
          observer.observe(document.body, { childList: true, subtree: true });
          document.querySelector('[data-testid="folder-inbox"]').click();
        })`)) as number,
      );
    }

    const rowsBefore = await page.locator(ROWS).count();
    const scroll = (await page.evaluate(`${SCROLL}(${JSON.stringify({ ms: SCROLL_MS, step: STEP_PX })})`)) as {
      intervals: number[];
      maxRows: number;
      longTasks: number[];
    };
    const loaded = await page.locator('.list-head .count').textContent();
    const frames = summarize(scroll.intervals);
    const sorted = [...scroll.intervals].sort((a, b) => a - b);
    const round = (x: number) => Math.round(x * 10) / 10;
    report('inbox-ui', {
      messages: MESSAGES,
      browser: `chromium ${chrome.browser.version()}`,
      first_rows_ms: { cold_page_load: round(coldMs), warm_folder_switch: summarize(warm) },
      scroll: {
        duration_ms: SCROLL_MS,
        px_per_frame: STEP_PX,
        frames: frames.n,
        frame_ms: { p50: round(frames.p50_ms), p95: round(sorted[Math.floor(0.95 * sorted.length)] ?? 0), max: round(sorted.at(-1) ?? 0) },
        frames_over_50ms: sorted.filter((ms) => ms > 50).length,
        long_tasks: { count: scroll.longTasks.length, max_ms: round(Math.max(0, ...scroll.longTasks)) },
        rows_in_dom: { before: rowsBefore, max_while_scrolling: scroll.maxRows },
        messages_paged_in: loaded,
      },
      seed_seconds: Math.round(seedSeconds),
    });
    await context.close();
  } finally {
    await chrome.close();
    await served?.close();
    await bench.stop();
  }
}
