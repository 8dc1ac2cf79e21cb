/**
 * The Identities view, driven as a person would in Debian's Chromium against a real headless node:
 * open the one-time link, create a namespace, a project in it and a persistent identity, see the
 * API key once and the identity in the list with its address, then confirm over HTTP.
 * Screenshots (light, dark, 1024x700) go to test/e2e/screenshots/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unexpectedConsoleErrors, watchConsole } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { startRig, shot as saveShot, stopRig, type Rig } from './steps.ts';

const API_KEY = /^svc_sk_[0-9a-f]{64}$/;
const DOMAIN = 'e2e-acme.test';
/** How long to wait for something to appear (namespace creation includes a DNS lookup). */
const WAIT = 15_000;
/** A section's link in the sidebar (a view's own links may name a section too, as the key-loss warning names Settings). */
const section = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });

let rig: Rig | undefined;
let node: HeadlessNode;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

/** The open modal dialog: form lookups are scoped to it. */
const modal = () => page.locator('dialog[open]');

const shot = (name: string): Promise<void> => saveShot(page, name);

beforeAll(async () => {
  rig = await startRig();
  ({ node, browser } = rig);
  // reducedMotion: no colour transitions half-way through a screenshot after a theme switch.
  context = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light', reducedMotion: 'reduce' });
  page = await context.newPage();
  watchConsole(page, consoleErrors);
}, 90_000);

afterAll(() => stopRig(rig));

describe('Identities view (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('signs in with the one-time link, offers the one-step setup, and teaches step by step on an empty node', async () => {
    expect(node.info.ui_url).toMatch(/\/ui\/#code=/);
    await page.goto(node.info.ui_url);
    // A node without identities opens on "Set up your node"; the three forms stay, step by step.
    await page.getByRole('heading', { name: 'Set up your node', level: 1 }).waitFor({ timeout: WAIT });
    // The code left the address bar; the router took over the fragment.
    expect(page.url()).not.toContain('code=');
    expect(page.url()).toMatch(/\/ui\/#\/setup$/);
    await page.getByRole('link', { name: 'Set up step by step' }).click();
    await page.getByRole('heading', { name: 'Identities', level: 1 }).waitFor({ timeout: WAIT });
    expect(page.url()).toMatch(/\/ui\/#\/identities$/);
    await page.getByText('No identities yet').waitFor({ timeout: WAIT });
    await page.getByText('No namespaces yet').waitFor({ timeout: WAIT });
    await shot('identities-empty');
  });

  it('refuses the same link a second time, with an explanation', async () => {
    const other = await browser.newContext();
    try {
      const second = await other.newPage();
      await second.goto(node.info.ui_url);
      const signIn = second.getByTestId('sign-in');
      await signIn.waitFor({ timeout: WAIT });
      expect(await signIn.textContent()).toContain('already used');
      expect(await second.getByTestId('sign-in-reason').textContent()).toMatch(/already used: each link works once\. For a fresh one, run svc-node ui/);
      expect(await signIn.textContent()).toContain('svc-node ui --data DIR');
      await saveShot(second, 'sign-in');
    } finally {
      await other.close();
    }
  });

  it('creates a namespace and a project bound to it', async () => {
    await page.getByRole('button', { name: 'New namespace' }).first().click();
    await modal().getByLabel('Domain', { exact: true }).fill(DOMAIN);
    await modal().getByRole('button', { name: 'Create namespace' }).click();
    await page.getByRole('heading', { name: 'Namespace created' }).waitFor({ timeout: WAIT });
    expect(await modal().textContent()).toContain(`_svcid.${DOMAIN}`);
    await modal().getByRole('button', { name: 'New project in this namespace' }).click();

    await page.getByRole('heading', { name: 'New project' }).waitFor({ timeout: WAIT });
    await modal().getByLabel('Slug', { exact: true }).fill('acme');
    await modal().getByLabel('Name (optional)').fill('Acme agents');
    expect(await modal().getByLabel('Namespace', { exact: true }).inputValue()).toBe(DOMAIN);
    await modal().getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Project acme created' }).waitFor({ timeout: WAIT });
    expect(await modal().getByTestId('secret-value').inputValue()).toMatch(API_KEY);
    await modal().getByRole('button', { name: 'New identity in acme' }).click();
  });

  it('says what is wrong with a field in words, with its label, and clears it once fixed', async () => {
    await page.getByRole('heading', { name: 'New persistent identity' }).waitFor({ timeout: WAIT });
    await modal().getByLabel('Name', { exact: true }).fill('Not A Valid Name!');
    await modal().getByRole('button', { name: 'Create identity' }).click();
    const fieldError = modal().getByTestId('field-error');
    await fieldError.waitFor({ timeout: WAIT });
    // The node's own rule, checked before sending, in words after the field's label.
    expect(await fieldError.textContent()).toBe('Name: use 1-64 letters, digits, "-" or "_", starting with a letter or digit (no spaces or dots)');
    expect(await modal().getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    // A screen reader reads the problem with the field: the input is described by it (and by its hint).
    const describedBy = (await modal().getByLabel('Name', { exact: true }).getAttribute('aria-describedby'))?.split(' ') ?? [];
    expect(describedBy).toContain(await fieldError.getAttribute('id'));
    await shot('identity-error');
    await modal().getByLabel('Name', { exact: true }).fill('still bad');
    expect(await fieldError.textContent()).toMatch(/^Name: use 1-64 letters/);
    await modal().getByLabel('Name', { exact: true }).fill('alice');
    await expect.poll(() => modal().getByTestId('field-error').count()).toBe(0);
  });

  it('creates a persistent identity and shows its API key once', async () => {
    await modal().getByLabel('Name', { exact: true }).fill('alice');
    expect(await modal().textContent()).toContain(`${DOMAIN}/alice`);
    expect(await modal().getByLabel('Project', { exact: true }).locator('option:checked').textContent()).toContain('acme');
    await modal().getByRole('button', { name: 'Create identity' }).click();
    await page.getByRole('heading', { name: 'Identity created' }).waitFor({ timeout: WAIT });
    const apiKey = await modal().getByTestId('secret-value').inputValue();
    expect(apiKey).toMatch(API_KEY);
    expect(await modal().getByTestId('created-address').textContent()).toBe(`${DOMAIN}/alice`);
    expect(await modal().textContent()).toContain('Shown once');
    await shot('identity-created');
    await modal().getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => modal().count()).toBe(0);
    // The key is nowhere on the page any more.
    expect(await page.content()).not.toContain(apiKey);
  });

  it('lists the identity with its address, and the switcher picks it up', async () => {
    const row = page.getByTestId('identity-list').getByRole('option').filter({ hasText: 'alice' });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByTestId('identity-address').textContent()).toBe(`${DOMAIN}/alice`);
    expect(await row.textContent()).toContain('did:svc:');
    expect(await page.getByTestId('project-list').textContent()).toContain('1 identity');
    expect(await page.getByTestId('namespace-list').textContent()).toContain('1 address');
    expect(await page.getByTestId('identity-switcher').textContent()).toContain('alice');
    await shot('identities-light');
  });

  it('navigates the list with the keyboard: j/k, Enter opens, Esc closes', async () => {
    await page.getByTestId('identity-list').focus();
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await expect.poll(() => modal().count()).toBe(1);
    expect(await modal().textContent()).toContain(`${DOMAIN}/alice`);
    await shot('identity-detail');
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
    // D opens "New namespace", as its tooltip says; Esc closes it.
    expect(await page.getByRole('button', { name: 'New namespace' }).first().getAttribute('title')).toMatch(/\(D\)$/);
    await page.keyboard.press('d');
    await page.getByRole('heading', { name: 'New namespace' }).waitFor({ timeout: WAIT });
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('opens the identity switcher, navigable and closed with Esc', async () => {
    await page.getByTestId('identity-switcher').click();
    const menu = page.getByTestId('identity-switcher-menu');
    await menu.waitFor({ timeout: WAIT });
    expect(await menu.textContent()).toContain(`${DOMAIN}/alice`);
    expect(await menu.getByRole('option', { selected: true }).textContent()).toContain('alice');
    await shot('identity-switcher');
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
  });

  it('has the identity on the node, over HTTP with the owner token', async () => {
    const response = await fetch(`${node.info.core_url}/v1/node/identities`, {
      headers: { authorization: `Bearer ${node.ownerToken()}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      identities: { name: string; address: string | null; lifetime: string; did_aw: string | null; project_slug: string }[];
    };
    const alice = body.identities.find((identity) => identity.name === 'alice');
    expect(alice).toMatchObject({ address: `${DOMAIN}/alice`, lifetime: 'persistent', project_slug: 'acme' });
    expect(alice?.did_aw).toMatch(/^did:svc:/);
  });

  it('shows node info in Settings', async () => {
    await section('Settings').click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor({ timeout: WAIT });
    await expect.poll(() => page.getByTestId('data-dir').textContent()).toBe(node.dataDir);
    expect(await page.locator('main').textContent()).toContain('Key file in the data folder');
    await shot('settings-light');
    await section('Identities').click();
    await page.getByRole('heading', { name: 'Identities', level: 1 }).waitFor({ timeout: WAIT });
  });

  it('renders in dark mode and in a 1024x700 window', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    // Expressions as strings: this file compiles without DOM types (tsconfig.node.json).
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(24, 25, 28)');
    await shot('identities-dark');
    await section('Settings').click();
    await page.getByTestId('data-dir').waitFor({ timeout: WAIT });
    await shot('settings-dark');
    await section('Identities').click();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByTestId('identity-list').waitFor({ timeout: WAIT });
    // Nothing overflows sideways in the narrow window.
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBe(0);
    await shot('identities-1024x700');
  });

  it('logged no errors in the browser console', () => {
    // 4xx answers the test provoked on purpose show up as failed resource loads; nothing else may.
    const unexpected = unexpectedConsoleErrors(consoleErrors);
    expect(unexpected).toEqual([]);
  });

  it('stops cleanly on SIGTERM', async () => {
    await browser.close();
    expect(await node.stop()).toBe(0);
  });
});
