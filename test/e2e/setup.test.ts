/**
 * A new user's first run, in Debian's Chromium against a real headless node: the node's root
 * address opens the UI; a node without identities opens on "Set up your node", whose
 * fields are checked by the node's own rules as you type and show the address to be made; one
 * click makes it and opens Mail as the new identity with the address ready to copy. Then the
 * shell: a used sign-in link says so and how to get a fresh one; each tab keeps its identity
 * across reloads; Settings → Appearance chooses light, dark or the system's look, at once and
 * remembered; the command palette (Ctrl+K) goes anywhere; a node that stops is not "Running";
 * Compose's error goes once the form is fixed.
 * Screenshots go to test/e2e/screenshots/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unexpectedConsoleErrors, watchConsole } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot, stopRig, type AppRig } from './steps.ts';

const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let localAddress: string;
const consoleErrors: string[] = [];

/** The name shown on the identity switcher: who this tab acts as. */
const actingAs = (target: Page) => target.getByTestId('identity-switcher').textContent();

/** The page's computed body background (strings: this file compiles without DOM types). */
const background = (target: Page) => target.evaluate('getComputedStyle(document.body).backgroundColor');
const DARK_BG = 'rgb(24, 25, 28)';
const LIGHT_BG = 'rgb(247, 247, 245)';

beforeAll(async () => {
  rig = await openAppOnNode({ section: 'setup', sink: consoleErrors, timeout: WAIT });
  ({ node, browser, context, page } = rig);
  const info = await node.owner('GET', '/v1/node/info');
  localAddress = `node-${String(info.node_id).replace(/-/g, '').slice(0, 8)}.local/alice`;
}, 90_000);

afterAll(() => stopRig(rig));

describe('First run and the shell (headless node, Chromium)', { timeout: 60_000 }, () => {
  it('opens on "Set up your node" on a node without identities', async () => {
    expect(page.url()).toMatch(/\/ui\/#\/setup$/);
    expect(await page.getByTestId('identity-switcher').textContent()).toContain('No identity yet');
    expect(await page.getByTestId('setup-address').textContent()).toBe(localAddress.replace('alice', 'yourname'));
    expect(await page.getByTestId('setup').textContent()).toContain('You can add a domain later');
    await shot(page, 'setup');
  });

  it('tells someone whose identities are on another computer, or whose computer was lost, what to run instead', async () => {
    const elsewhere = page.getByTestId('setup-elsewhere');
    await elsewhere.locator('summary').click();
    const words = await elsewhere.textContent();
    expect(words).toContain('svc-node device join URL CODE --data NEW_DIR');
    expect(words).toContain('svc-node kit restore KIT --data NEW_DIR --link URL --code CODE');
    expect(words).toContain('svc-node kit restore KIT --data NEW_DIR --backup BACKUP_DIR');
    await elsewhere.locator('summary').click();
  });

  it('checks the fields by the node’s rules, in words, and clears a problem once it is fixed', async () => {
    await page.getByTestId('setup-name').fill('Alice Smith');
    await page.getByTestId('setup-domain').fill('https://example.com');
    await page.getByTestId('setup-submit').click();
    const errors = page.getByTestId('field-error');
    await expect
      .poll(() => errors.allTextContents(), { timeout: WAIT })
      .toEqual([
        'Your name: use 1-64 letters, digits, "-" or "_", starting with a letter or digit (no spaces or dots)',
        'Your domain: enter just the domain, such as example.com, without https:// or a path',
      ]);
    await shot(page, 'setup-errors');
    // Nothing was sent: the node still has no identity.
    expect((await node.owner('GET', '/v1/node/identities')).identities).toEqual([]);
    await page.getByTestId('setup-domain').fill('');
    await expect.poll(() => errors.count()).toBe(1);
    await page.getByTestId('setup-name').fill('alice');
    await expect.poll(() => errors.count()).toBe(0);
    expect(await page.getByTestId('setup-address').textContent()).toBe(localAddress);
  });

  it('sets the node up in one step and opens Mail as the new identity, its address ready to copy', async () => {
    await page.getByTestId('setup-submit').click();
    await page.waitForURL(/\/ui\/#\/mail$/, { timeout: WAIT });
    await expect.poll(() => page.getByTestId('share-address').textContent(), { timeout: WAIT }).toBe(localAddress);
    expect(await actingAs(page)).toContain('alice');
    const mark = page.getByTestId('identity-switcher').getByTestId('persistent-mark');
    expect(await mark.getAttribute('aria-label')).toMatch(/^Persistent: a stable did:svc/);
    await page.getByRole('button', { name: 'Copy address' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(localAddress);
    await shot(page, 'setup-done-mail');

    const identities = (await node.owner('GET', '/v1/node/identities')).identities;
    expect(identities).toMatchObject([{ name: 'alice', address: localAddress, lifetime: 'persistent' }]);
    const namespaces = (await node.owner('GET', '/v1/node/namespaces')).namespaces;
    expect(namespaces).toMatchObject([{ domain: localAddress.split('/')[0], node_controlled: true }]);
  });

  it('Compose: an error goes as soon as the form is fixed', async () => {
    await page.getByTestId('compose-button').click();
    const compose = page.getByTestId('compose');
    await compose.waitFor({ timeout: WAIT });
    await compose.getByRole('button', { name: 'Send' }).click();
    const alert = compose.getByRole('alert');
    await alert.waitFor({ timeout: WAIT });
    expect(await alert.textContent()).toContain('Add at least one recipient.');
    await compose.getByLabel('Subject').fill('Hello');
    await expect.poll(() => compose.getByRole('alert').count()).toBe(0);
    await compose.getByRole('button', { name: 'Discard' }).click();
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
  });

  it('sends the node’s root address to the UI, and explains a used sign-in link', async () => {
    const other = await browser.newContext();
    try {
      const visitor = await other.newPage();
      const answer = await visitor.goto(`${node.info.core_url}/`);
      expect(visitor.url()).toMatch(new RegExp(`^${node.info.core_url}/ui/(#/)?$`));
      expect(answer?.status()).toBe(200);
      await visitor.getByTestId('sign-in').waitFor({ timeout: WAIT });
      expect(await visitor.getByTestId('sign-in-reason').count()).toBe(0);

      // The link this test signed in with, a second time, pasted into a new tab.
      const pasted = await other.newPage();
      await pasted.goto(node.info.ui_url);
      const reason = pasted.getByTestId('sign-in-reason');
      await reason.waitFor({ timeout: WAIT });
      expect(await reason.textContent()).toMatch(/^That sign-in link was already used: each link works once\. For a fresh one, run svc-node ui/);
      expect(await reason.locator('code').textContent()).toBe('svc-node ui');
      await shot(pasted, 'sign-in-used-link');
    } finally {
      await other.close();
    }
  });

  it('keeps each tab’s identity across reloads; a new tab starts with the last one chosen', async () => {
    const project = (await node.owner('GET', '/v1/node/projects')).projects[0];
    await node.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'bob' });
    await page.reload();
    await page.getByTestId('nav-mail').waitFor({ timeout: WAIT });
    await page.getByTestId('identity-switcher').click();
    await page.getByTestId('identity-switcher-menu').getByRole('option').filter({ hasText: 'bob' }).click();
    await expect.poll(() => actingAs(page)).toContain('bob');

    // A new tab of the same browser: it starts as bob, the last chosen; then it picks alice.
    const second = await context.newPage();
    watchConsole(second, consoleErrors);
    await second.goto(`${node.info.core_url}/ui/#/mail`);
    await second.getByTestId('nav-mail').waitFor({ timeout: WAIT });
    await expect.poll(() => actingAs(second), { timeout: WAIT }).toContain('bob');
    await second.getByTestId('identity-switcher').click();
    await second.getByTestId('identity-switcher-menu').getByRole('option').filter({ hasText: 'alice' }).click();
    await expect.poll(() => actingAs(second)).toContain('alice');

    // Reloading the first tab keeps bob, whatever the other tab chose last.
    await page.reload();
    await page.getByTestId('nav-mail').waitFor({ timeout: WAIT });
    await expect.poll(() => actingAs(page), { timeout: WAIT }).toContain('bob');
    await second.reload();
    await second.getByTestId('nav-mail').waitFor({ timeout: WAIT });
    await expect.poll(() => actingAs(second), { timeout: WAIT }).toContain('alice');
    await second.close();
  });

  it('Settings → Appearance: dark or light whatever the system says, at once and remembered; System follows it', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByTestId('nav-settings').click();
    const panel = page.getByTestId('appearance-panel');
    await panel.waitFor({ timeout: WAIT });
    expect(await panel.getByTestId('appearance-system').isChecked()).toBe(true);
    expect(await background(page)).toBe(LIGHT_BG);

    await panel.getByText('Dark', { exact: true }).click();
    await expect.poll(() => background(page)).toBe(DARK_BG);
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    await panel.scrollIntoViewIfNeeded();
    await shot(page, 'settings-appearance-dark');
    await page.reload();
    await page.getByTestId('appearance-panel').waitFor({ timeout: WAIT });
    expect(await background(page)).toBe(DARK_BG);
    expect(await page.getByTestId('appearance-dark').isChecked()).toBe(true);

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByTestId('appearance-panel').getByText('Light', { exact: true }).click();
    await expect.poll(() => background(page)).toBe(LIGHT_BG);

    // System: follows the OS, also when it changes while the app is open.
    await page.getByTestId('appearance-panel').getByText('System', { exact: true }).click();
    await expect.poll(() => background(page)).toBe(DARK_BG);
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => background(page)).toBe(LIGHT_BG);
  });

  it('opens the command palette with Ctrl+K and goes where it is told', async () => {
    await page.getByTestId('nav-mail').click();
    await page.keyboard.press('Control+k');
    const palette = page.getByTestId('command-palette');
    await palette.waitFor({ timeout: WAIT });
    await page.keyboard.type('ident');
    await shot(page, 'command-palette');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Identities', level: 1 }).waitFor({ timeout: WAIT });
    expect(page.url()).toMatch(/#\/identities$/);

    // "Switch to" a name, then Esc closes without doing anything.
    await page.keyboard.press('Control+k');
    await page.keyboard.type('switch alice');
    await page.keyboard.press('Enter');
    await expect.poll(() => actingAs(page)).toContain('alice');
    await page.keyboard.press('Control+k');
    await palette.waitFor({ timeout: WAIT });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
  });

  it('says the node is not answering once it stops, never "Running"', async () => {
    const status = page.getByTestId('node-status');
    await expect.poll(() => status.textContent(), { timeout: WAIT }).toMatch(/^Running · 127\.0\.0\.1:\d+$/);
    await node.stop();
    await expect.poll(() => status.textContent(), { timeout: WAIT }).toBe('Not answering · reconnecting…');
    await shot(page, 'node-not-answering');
  });

  it('left no unexpected console errors', () => {
    // The stopped node's refused connections are what the last step provoked.
    expect(unexpectedConsoleErrors(consoleErrors).filter((text) => !/ERR_CONNECTION_REFUSED|Failed to fetch/.test(text))).toEqual([]);
  });
});
