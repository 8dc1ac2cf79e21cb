/**
 * Debian's Chromium for the browser tests, launched the one way they all need: headless with
 * the flags this machine requires, and a throwaway HOME so Chromium's profile side effects
 * (crash reports, dconf) stay out of the real one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export interface TestChromium {
  browser: Browser;
  /** Closes the browser and removes its throwaway HOME. */
  close(): Promise<void>;
}

export async function launchChromium(): Promise<TestChromium> {
  const home = mkdtempSync(join(tmpdir(), 'svc-node-e2e-chromium-'));
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home },
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Collects the page's console errors and uncaught exceptions into `sink`. */
export function watchConsole(page: Page, sink: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error') sink.push(message.text());
  });
  page.on('pageerror', (error) => sink.push(error.message));
}

/** The console errors a test did not provoke: answers the UI handles (4xx) are expected. */
export function unexpectedConsoleErrors(errors: readonly string[]): string[] {
  return errors.filter((text) => !/status of 4\d\d/.test(text));
}

/**
 * The app as a person first sees it: a desktop-sized light window (clipboard allowed) opened on the
 * node's one-time sign-in link, waiting for `section` in the sidebar; console errors go to `sink`.
 */
export async function openApp(
  browser: Browser,
  node: { info: { ui_url: string; core_url: string } },
  options: { section: string; sink: string[]; timeout: number },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light', reducedMotion: 'reduce' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: node.info.core_url });
  return { context, page: await openWindow(context, node.info.ui_url, options) };
}

/**
 * A new window of `context` at `url` (the sign-in link, or the UI of a session already signed
 * in), once `section` shows in the sidebar; its console errors go to `sink`.
 */
export async function openWindow(context: BrowserContext, url: string, options: { section: string; sink: string[]; timeout: number }): Promise<Page> {
  const page = await context.newPage();
  watchConsole(page, options.sink);
  await page.goto(url);
  await page.getByTestId(options.section).waitFor({ timeout: options.timeout });
  return page;
}

/**
 * Emulates the OS colour scheme and waits until the app wears it: the app applies its theme on
 * the media query's change event, so a style read at once may still be the old one.
 */
export async function emulateColorScheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  // The page's background is dark or light (by its mean channel). An expression string: this side
  // is compiled without the DOM's types.
  const mean = `(getComputedStyle(document.body).backgroundColor.match(/\\d+/g) ?? []).slice(0, 3).reduce((sum, c) => sum + Number(c), 0) / 3`;
  await page.waitForFunction(`${mean} ${scheme === 'dark' ? '<' : '>='} 128`, undefined, { timeout: 10_000 });
}
