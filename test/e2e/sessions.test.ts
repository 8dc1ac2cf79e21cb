/**
 * A browser session across node restarts, in Debian's Chromium against a real headless node: the
 * window signed in with a one-time link holds a session (never the owner token); the node stops
 * and starts again on the same data dir and port, and the window reconnects by itself, with no
 * new sign-in; a session signed out from another window's Settings ends this one at once, which
 * says so and names the command for a new link; that link, pasted into the same tab, signs it in;
 * a node whose data was reset knows the session no more, and the window says that too.
 * Screenshots go to test/e2e/screenshots/.
 */
import { rmSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulateColorScheme, openWindow, unexpectedConsoleErrors } from './browser.ts';
import { startHeadlessNode, type HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot, stopRig, type AppRig } from './steps.ts';

const WAIT = 15_000;
/** The feed's backoff after a few failed tries is 8 s; a restart is seen within about that. */
const RECONNECT = 30_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
let other: BrowserContext | undefined;
const consoleErrors: string[] = [];

/** `page` at each width and theme the views are checked at, as `<name>-<width>-<theme>.png`. */
async function shotsAt(target: Page, name: string, before?: () => Promise<void>): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await emulateColorScheme(target, theme);
    for (const width of [1440, 1200, 900]) {
      await target.setViewportSize({ width, height: 820 });
      await before?.();
      await shot(target, `${name}-${width}-${theme}`);
    }
  }
  await emulateColorScheme(target, 'light');
  await target.setViewportSize({ width: 1280, height: 820 });
}

/** A mark on the window's document: still there means the tab never reloaded. */
const MARK = 'window.__sameDocument';

async function freshLink(): Promise<string> {
  return ((await node.owner('POST', '/v1/node/ui-link')) as { ui_url: string }).ui_url;
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'node-status',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (n) => void (await n.owner('POST', '/v1/node/setup', { name: 'alice' })),
  });
  ({ node, page } = rig);
  // The first view has loaded its code before the node stops: a view whose code the stopped node
  // could not give would load the page afresh once it is back (renderer/src/lib/view-code.ts).
  await page.locator('.nav-entry[aria-current="page"]').first().waitFor({ timeout: WAIT });
  await page.evaluate(`${MARK} = true`);
}, 90_000);

afterAll(async () => {
  await other?.close();
  if (rig !== undefined) rig.node = node;
  await stopRig(rig);
});

describe('A browser session survives a node restart (headless node, Chromium)', { timeout: 90_000 }, () => {
  it('keeps a session in the browser, never the owner token', async () => {
    const status = page.getByTestId('node-status');
    await expect.poll(() => status.textContent(), { timeout: WAIT }).toMatch(/^Running · 127\.0\.0\.1:\d+$/);
    const stored = String(await page.evaluate('JSON.stringify(localStorage)'));
    expect(stored).not.toContain(node.ownerToken());
    expect(stored).toMatch(/svc_os_[0-9a-f]{64}/);
  });

  it('reconnects by itself after the node restarts, with no new sign-in', async () => {
    const status = page.getByTestId('node-status');
    const port = Number(new URL(node.info.core_url).port);
    const before = node.ownerToken();
    await node.stop();
    await expect.poll(() => status.textContent(), { timeout: WAIT }).toMatch(/^Not answering/);
    node = await startHeadlessNode(30_000, { dataDir: node.dataDir, port });
    expect(node.ownerToken()).not.toBe(before);
    await expect.poll(() => status.textContent(), { timeout: RECONNECT }).toMatch(/^Running · 127\.0\.0\.1:\d+$/);
    expect(await page.getByTestId('sign-in').count()).toBe(0);
    expect(await page.getByTestId('session-ended').count()).toBe(0);
    expect(await page.evaluate(MARK)).toBe(true);

    // And it works: Settings lists this browser's session, marked.
    await page.getByTestId('nav-settings').click();
    const rows = page.getByTestId('session-row');
    await expect.poll(() => rows.count(), { timeout: WAIT }).toBe(1);
    expect(await rows.first().getAttribute('data-current')).toBe('true');
    expect(await rows.first().textContent()).toMatch(/Chrome on Linux\s*This browser/);
    await shotsAt(page, 'sessions-settings', () => page.getByTestId('sessions-panel').scrollIntoViewIfNeeded());
  });

  it('ends at once when signed out from another window’s Settings, and says how to sign in again', async () => {
    other = await rig!.browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light', reducedMotion: 'reduce' });
    const second = await openWindow(other, await freshLink(), { section: 'nav-settings', sink: consoleErrors, timeout: WAIT });
    await second.getByTestId('nav-settings').click();
    const rows = second.getByTestId('session-row');
    await expect.poll(() => rows.count(), { timeout: WAIT }).toBe(2);
    const first = second.locator('[data-testid="session-row"][data-current="false"]');
    await first.getByTestId('session-revoke').click();
    expect(await first.getByRole('group').textContent()).toMatch(/That browser stops working with the node at once/);
    await shot(second, 'sessions-revoke-confirm');
    await first.getByTestId('session-revoke-confirm').click();
    await expect.poll(() => rows.count(), { timeout: WAIT }).toBe(1);

    // The first window hears it from its open feed: no reload, no click.
    const ended = page.getByTestId('session-ended');
    await ended.waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('sign-in-reason').textContent()).toMatch(/session has ended: it was signed out/);
    expect(await page.getByTestId('sign-in-command').textContent()).toBe(`npx svc-node ui --data ${node.dataDir}`);
    expect(String(await page.evaluate('JSON.stringify(localStorage)'))).not.toMatch(/svc_os_/);
    await shotsAt(page, 'sessions-ended');
  });

  it('signs in again with a new link pasted into the same tab', async () => {
    const link = await freshLink();
    await page.goto(link);
    const status = page.getByTestId('node-status');
    await expect.poll(() => status.textContent(), { timeout: WAIT }).toMatch(/^Running · 127\.0\.0\.1:\d+$/);
    // The same document (a fragment navigation), the code out of the address bar, the view back.
    expect(await page.evaluate(MARK)).toBe(true);
    expect(page.url()).not.toContain('code=');
    expect(page.url()).toMatch(/\/ui\/#\/settings$/);
    await expect.poll(() => page.getByTestId('session-row').count(), { timeout: WAIT }).toBe(2);
    // The link worked once: in a browser without a session it says so.
    const stranger = await rig!.browser.newContext();
    try {
      const again = await stranger.newPage();
      await again.goto(link);
      await again.getByTestId('sign-in-reason').waitFor({ timeout: WAIT });
      expect(await again.getByTestId('sign-in-reason').textContent()).toMatch(/already used/);
    } finally {
      await stranger.close();
    }
  });

  it('says so at once when the node comes back with its data reset, and names the command for a link', async () => {
    const port = Number(new URL(node.info.core_url).port);
    await node.stop();
    rmSync(node.dataDir, { recursive: true, force: true });
    node = await startHeadlessNode(30_000, { dataDir: node.dataDir, port });
    await page.getByTestId('session-ended').waitFor({ timeout: RECONNECT });
    expect(await page.getByTestId('sign-in-reason').textContent()).toMatch(/the node no longer knows it \(its data was reset/);
    expect(await page.getByTestId('sign-in-command').textContent()).toBe(`npx svc-node ui --data ${node.dataDir}`);
    expect(await page.evaluate(MARK)).toBe(true);
  });

  it('logs no unexpected console errors', () => {
    // The stopped node's refused connections, and those it dropped as it stopped, are what the restart provoked.
    expect(unexpectedConsoleErrors(consoleErrors).filter((text) => !/ERR_CONNECTION_(REFUSED|RESET)|Failed to fetch/.test(text))).toEqual([]);
  });
});
