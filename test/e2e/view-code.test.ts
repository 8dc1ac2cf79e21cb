/**
 * A view opened while the node restarts, in Debian's Chromium against a real headless node: the
 * browser fetches each view's code from the node when the view is first opened, so with the node
 * down that load fails, and the browser remembers a failed script for the page's life. The window
 * waits for the node, then shows the view that was asked for, with its styles, by itself; and a
 * view that was never asked for still loads normally afterwards.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unexpectedConsoleErrors } from './browser.ts';
import { startHeadlessNode, type HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot, stopRig, type AppRig } from './steps.ts';

const WAIT = 15_000;
/** The node's restart, the window's next ask (every second) and a fresh page load. */
const RECOVER = 45_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];

/** The stylesheets the page holds that came from a view's own file, by view name. */
const viewSheets = (): Promise<string[]> =>
  page.evaluate(
    "[...document.styleSheets].map((sheet) => /\\/(\\w+View)-[\\w-]+\\.css$/.exec(sheet.href ?? '')?.[1]).filter((name) => name !== undefined)",
  ) as Promise<string[]>;

/** Links whose file never arrived: a page that kept one would show a view without its styles. */
const brokenLinks = (): Promise<string[]> =>
  page.evaluate('[...document.querySelectorAll(\'link[rel="stylesheet"]\')].filter((link) => link.sheet === null).map((link) => link.href)') as Promise<
    string[]
  >;

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-mail',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (n) => void (await n.owner('POST', '/v1/node/setup', { name: 'alice' })),
  });
  ({ node, page } = rig);
}, 90_000);

afterAll(async () => {
  if (rig !== undefined) rig.node = node;
  await stopRig(rig);
});

describe('A view opened while the node restarts (headless node, Chromium)', { timeout: 120_000 }, () => {
  it('shows the view asked for, with its styles, once the node is back', async () => {
    const teams = page.getByTestId('nav-teams');
    await expect.poll(() => page.getByTestId('nav-mail').getAttribute('aria-current'), { timeout: WAIT }).toBe('page');
    expect(await viewSheets()).not.toContain('TeamsView');
    const port = Number(new URL(node.info.core_url).port);
    await node.stop();
    await expect.poll(() => page.getByTestId('node-status').textContent(), { timeout: WAIT }).toMatch(/^Not answering/);

    await teams.click();
    // The load failed; the node comes back a moment later.
    node = await startHeadlessNode(30_000, { dataDir: node.dataDir, port });

    await expect.poll(() => page.getByTestId('nav-teams').getAttribute('aria-current'), { timeout: RECOVER }).toBe('page');
    await page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor({ timeout: WAIT });
    expect(await viewSheets()).toContain('TeamsView');
    expect(await brokenLinks()).toEqual([]);
    expect(await page.getByTestId('view-unavailable').count()).toBe(0);
    await shot(page, 'view-code-after-restart');
  });

  it('opens another view as usual afterwards', async () => {
    await page.getByTestId('nav-settings').click();
    await expect.poll(() => page.getByTestId('nav-settings').getAttribute('aria-current'), { timeout: WAIT }).toBe('page');
    await expect.poll(viewSheets, { timeout: WAIT }).toContain('SettingsView');
    expect(await brokenLinks()).toEqual([]);
  });

  it('logs no unexpected console errors', () => {
    // The stopped node's refused or dropped connections, and the loads that failed on them.
    expect(unexpectedConsoleErrors(consoleErrors).filter((text) => !/ERR_CONNECTION_(REFUSED|RESET)|Failed to fetch/.test(text))).toEqual([]);
  });
});
