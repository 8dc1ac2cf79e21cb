/**
 * Documents, driven as a person would in Debian's Chromium against a real headless node: with no
 * team the view teaches what one is and creates it; a document is written in the CodeMirror
 * editor with the live preview (the node's present page in a sandboxed frame) following, saved as
 * two more versions, and two versions compared in the history; typing survives a reload as a
 * local draft and an unreachable node (nothing is lost, the save goes through once it is back);
 * a document is made from a template with its slot form; a present link is made, opened in a
 * fresh browser context and checked, then revoked; a visitor edits through an editable link (its
 * nonce-allowed script saving a version, then a stale save offered the latest); the theme editor refuses text below WCAG AA and
 * the saved theme dresses present pages. Screenshots (light, dark, 1024x700) go to
 * test/e2e/screenshots/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureUiBuilt, ROOT } from './build-ui.ts';
import { launchChromium, openApp, unexpectedConsoleErrors, type TestChromium } from './browser.ts';
import { startHeadlessNode, type HeadlessNode } from './headless-node.ts';

const SHOTS = join(ROOT, 'test/e2e/screenshots');
const TEAM = { name: 'writers', domain: 'e2e-docs.test' };
const TEAM_ID = `${TEAM.name}:${TEAM.domain}`;
const WAIT = 15_000;

let node: HeadlessNode;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let chrome: TestChromium | undefined;
const consoleErrors: string[] = [];
let presentUrl = '';

const asOwnerMember = (method: string, path: string, body?: unknown): Promise<any> => node.asTeamOwner(TEAM_ID, method, path, body);

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

const modal = () => page.locator('dialog[open]');
const docRow = (slug: string) => page.getByTestId('document-list').locator(`[data-slug="${slug}"]`);
const preview = (): FrameLocator => page.frameLocator('[data-testid="preview-frame"]');
const saveState = () => page.getByTestId('save-state');
const editor = () => page.getByTestId('markdown-editor');

/** Replaces the editor's whole text by typing, as a person would. */
async function typeInEditor(text: string): Promise<void> {
  await editor().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

beforeAll(async () => {
  ensureUiBuilt();
  mkdirSync(SHOTS, { recursive: true });
  node = await startHeadlessNode();
  chrome = await launchChromium();
  browser = chrome.browser;
  ({ context, page } = await openApp(browser, node, { section: 'nav-documents', sink: consoleErrors, timeout: WAIT }));
}, 90_000);

afterAll(async () => {
  await chrome?.close();
  await node?.dispose();
});

describe('Documents view (headless node, Chromium)', { timeout: 45_000 }, () => {
  it('teaches what a team is and creates one', async () => {
    await page.getByTestId('nav-documents').click();
    const noTeam = page.getByTestId('no-team');
    await noTeam.waitFor({ timeout: WAIT });
    expect(await noTeam.textContent()).toContain('Documents belong to a team');
    await page.getByLabel('Team name').fill(TEAM.name);
    await page.getByLabel('Domain').fill(TEAM.domain);
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByTestId('documents-empty').waitFor({ timeout: WAIT });
    expect(await page.getByTestId('team-name').textContent()).toContain(TEAM.name);
    await shot('documents-empty');
  });

  it('writes a document with a live preview and saves two more versions', async () => {
    await page.getByTestId('empty-new-document').click();
    const dialog = modal().getByTestId('new-document-dialog');
    await dialog.waitFor({ timeout: WAIT });
    await dialog.getByTestId('new-doc-title').fill('Launch plan');
    expect(await dialog.getByTestId('new-doc-slug').inputValue()).toBe('launch-plan');
    await dialog.getByTestId('template-option-blank').click();
    await dialog.getByTestId('new-doc-submit').click();
    await docRow('launch-plan').waitFor({ timeout: WAIT });
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 1');

    await typeInEditor('# Launch plan\n\nWe ship on **Friday**.\n\n- Write the notes\n- Tell the team\n');
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toContain('Unsaved changes');
    // The preview is the node's present page, sanitised, in a sandboxed frame.
    await expect.poll(() => preview().locator('strong').textContent(), { timeout: WAIT }).toBe('Friday');
    expect(await preview().locator('h1').textContent()).toBe('Launch plan');
    expect(await page.getByTestId('preview-frame').getAttribute('sandbox')).toBe('');
    await page.keyboard.press('ControlOrMeta+S');
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 2');

    await typeInEditor('# Launch plan\n\nWe ship on **Monday**.\n\n- Write the notes\n- Tell the team\n- Post the demo\n');
    await page.getByTestId('save-document').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 3');
    await expect.poll(() => docRow('launch-plan').textContent(), { timeout: WAIT }).toContain('v3');
    const stored = await asOwnerMember('GET', '/v1/documents/launch-plan');
    expect(stored.body).toContain('Post the demo');
    await shot('documents-editor');
  });

  it('compares any two versions in the history', async () => {
    await page.getByTestId('tab-history').click();
    await expect.poll(() => page.getByTestId('version-row').count(), { timeout: WAIT }).toBe(3);
    const diff = page.getByTestId('diff');
    await diff.waitFor({ timeout: WAIT });
    // The two newest by default: v2 → v3.
    expect(await page.getByTestId('diff-from').inputValue()).toBe('2');
    expect(await page.getByTestId('diff-to').inputValue()).toBe('3');
    await expect.poll(() => diff.locator('tr.del').allTextContents(), { timeout: WAIT }).toEqual([expect.stringContaining('We ship on **Friday**.')]);
    expect((await diff.locator('tr.add').allTextContents()).join('\n')).toMatch(/Monday[\s\S]*Post the demo/);
    await shot('documents-history');

    await page.getByTestId('diff-from').selectOption('1');
    await expect.poll(() => diff.locator('tr.del').allTextContents(), { timeout: WAIT }).toEqual([]);
    await page.getByRole('button', { name: 'Side by side' }).click();
    await page.locator('[data-testid="diff"].split').waitFor({ timeout: WAIT });
    expect(await page.locator('[data-testid="diff"] td[data-side="new"].add').count()).toBeGreaterThan(2);
    await page.getByTestId('tab-write').click();
  });

  it('keeps unsaved typing across a reload as a local draft', async () => {
    await typeInEditor('# Launch plan\n\nA draft that was never saved.\n');
    await expect.poll(() => page.getByTestId('draft-badge').count(), { timeout: WAIT }).toBe(1);
    await page.reload();
    await page.getByTestId('nav-documents').click();
    await expect.poll(() => editor().textContent(), { timeout: WAIT }).toContain('A draft that was never saved.');
    expect(await saveState().textContent()).toContain('Unsaved changes');
    expect(await docRow('launch-plan').getByTestId('draft-badge').count()).toBe(1);
    // The node still has version 3; discarding shows it again.
    await page.getByTestId('discard-draft').click();
    await expect.poll(() => editor().textContent(), { timeout: WAIT }).toContain('Post the demo');
    expect(await saveState().textContent()).toBe('Saved as version 3');
    expect(await page.getByTestId('draft-badge').count()).toBe(0);
  });

  it('edits while the node is unreachable and saves once it is back', async () => {
    await context.setOffline(true);
    try {
      await typeInEditor('# Launch plan\n\nWritten offline.\n');
      await page.getByTestId('save-document').click();
      await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toContain('Node unreachable');
      expect(await page.getByTestId('save-error').textContent()).toContain('kept on this device');
      expect(await editor().textContent()).toContain('Written offline.');
      await shot('documents-offline');
    } finally {
      await context.setOffline(false);
    }
    expect((await asOwnerMember('GET', '/v1/documents/launch-plan')).current_version).toBe(3);
    await page.getByTestId('save-document').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 4');
    expect((await asOwnerMember('GET', '/v1/documents/launch-plan')).body).toBe('# Launch plan\n\nWritten offline.\n');
  });

  it('makes a document from a template with its slot form', async () => {
    await page.getByTestId('new-document').click();
    const dialog = modal().getByTestId('new-document-dialog');
    await dialog.waitFor({ timeout: WAIT });
    await dialog.getByTestId('new-doc-title').fill('Weekly memo');
    await dialog.getByTestId('template-option-memo').click();
    await dialog.getByTestId('slot-cover-title').fill('Week 47');
    await dialog.getByTestId('slot-sections-add').click();
    await dialog.getByTestId('slot-section-heading-0').fill('Shipped');
    await dialog.getByTestId('slot-section-body-0').fill('The document surface.');
    await shot('documents-template');
    await dialog.getByTestId('new-doc-submit').click();
    await docRow('weekly-memo').waitFor({ timeout: WAIT });
    await expect.poll(() => editor().textContent(), { timeout: WAIT }).toContain('# Week 47');
    expect(await editor().textContent()).toContain('## Shipped');
    const stored = await asOwnerMember('GET', '/v1/documents/weekly-memo');
    expect(stored.latest.source).toBe('template');
    expect(stored.body).toContain('The document surface.');
  });

  it('presents a document through a link that a fresh browser opens, then revokes it', async () => {
    await docRow('launch-plan').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 4');
    await page.getByTestId('present').click();
    const dialog = modal().getByTestId('present-dialog');
    await dialog.waitFor({ timeout: WAIT });
    await dialog.getByTestId('present-create').click();
    const url = dialog.getByTestId('present-url');
    await expect.poll(() => url.inputValue(), { timeout: WAIT }).toMatch(/\/present\/[A-Za-z0-9_-]{43}$/);
    presentUrl = await url.inputValue();
    await shot('documents-present');

    const stranger = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    try {
      const visitor = await stranger.newPage();
      const response = await visitor.goto(presentUrl);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'none'");
      expect(await visitor.locator('article.surface h1').textContent()).toBe('Launch plan');
      expect(await visitor.locator('article.surface').textContent()).toContain('Written offline.');
      expect(await visitor.title()).toBe('Presented document');
      expect(await visitor.locator('script').count()).toBe(0);
      await visitor.screenshot({ path: join(SHOTS, 'documents-present-page.png') });

      await dialog.getByTestId('present-link-row').first().getByTestId('present-revoke').click();
      await dialog.getByTestId('present-revoke-confirm').click();
      await expect.poll(() => dialog.getByTestId('present-link-row').first().textContent(), { timeout: WAIT }).toMatch(/revoked/i);
      const gone = await visitor.goto(presentUrl);
      expect(gone?.status()).toBe(404);
      expect(await visitor.locator('body').textContent()).toContain('Not found');
    } finally {
      await stranger.close();
    }
    await page.keyboard.press('Escape');
  });

  it('lets a visitor edit through an editable link, and offers the latest version after a stale save', async () => {
    const link = await asOwnerMember('POST', '/v1/present', { slug: 'weekly-memo', editable: true });
    const stranger = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    try {
      const visitor = await stranger.newPage();
      const errors: string[] = [];
      visitor.on('pageerror', (error) => errors.push(error.message));
      visitor.on('dialog', (dialog) => void dialog.accept());
      await visitor.goto(link.url);
      const body = visitor.locator('textarea#body');
      expect(await body.inputValue()).toContain('# Week 47');
      await body.fill('# Week 47\n\nEdited by a visitor.\n');
      await visitor.locator('#name').fill('Visiting Editor');
      await visitor.locator('#save').click();
      await expect.poll(() => visitor.locator('#status').textContent(), { timeout: WAIT }).toBe('Saved as version 2.');
      const saved = await asOwnerMember('GET', '/v1/documents/weekly-memo');
      expect(saved).toMatchObject({ current_version: 2, body: '# Week 47\n\nEdited by a visitor.\n' });
      expect(saved.latest).toMatchObject({ source: 'present-link', created_by_editor_name: 'Visiting Editor' });
      // The owner's open list hears about it live.
      await expect.poll(() => docRow('weekly-memo').textContent(), { timeout: WAIT }).toContain('v2');

      // Someone saves meanwhile: the visitor's next save is stale and is offered the latest body.
      await node.asTeamOwner(TEAM_ID, 'POST', '/v1/documents/weekly-memo/versions/template', { name: 'memo', slots: { cover: { title: 'Week 48' } } });
      await body.fill('# Week 47\n\nA stale edit.\n');
      await visitor.locator('#save').click();
      await expect.poll(() => visitor.locator('#status').textContent(), { timeout: WAIT }).toContain('Someone saved version 3 first');
      await visitor.locator('#reload').click();
      expect(await body.inputValue()).toContain('# Week 48');
      await visitor.screenshot({ path: join(SHOTS, 'documents-present-editor.png') });
      expect(errors).toEqual([]);
    } finally {
      await stranger.close();
    }
  });

  it('edits the theme with a live preview, refuses low contrast, and dresses present pages', async () => {
    await page.getByTestId('open-theme').click();
    const dialog = modal().getByTestId('theme-dialog');
    await dialog.waitFor({ timeout: WAIT });
    await dialog.getByTestId('theme-color-text').fill('#999999');
    await expect.poll(() => dialog.getByTestId('contrast-light').textContent(), { timeout: WAIT }).toMatch(/2\.84:1/);
    expect(await dialog.getByTestId('theme-save').isDisabled()).toBe(true);
    await shot('documents-theme-refused');

    await dialog.getByTestId('theme-color-text').fill('#222222');
    await dialog.getByTestId('theme-header').fill('Acme Writers');
    await expect.poll(() => dialog.getByTestId('contrast-light').textContent(), { timeout: WAIT }).toMatch(/15\.\d\d:1/);
    await expect.poll(() => dialog.frameLocator('[data-testid="preview-frame"]').locator('.theme-header').textContent(), { timeout: WAIT }).toBe('Acme Writers');
    await dialog.getByTestId('theme-save').click();
    await expect.poll(async () => (await asOwnerMember('GET', '/v1/theme')).header, { timeout: WAIT }).toBe('Acme Writers');
    expect((await asOwnerMember('GET', '/v1/theme')).tokens.colors.text).toBe('#222222');
    if (await modal().count()) await page.keyboard.press('Escape');

    const link = await asOwnerMember('POST', '/v1/present', { slug: 'launch-plan' });
    const themed = await (await fetch(link.url)).text();
    expect(themed).toContain('Acme Writers');
    expect(themed).toContain('--text:#222222;');
  });

  it('renders in dark mode and in a 1024x700 window', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(24, 25, 28)');
    await shot('documents-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1024, height: 700 });
    await editor().waitFor({ timeout: WAIT });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await shot('documents-1024x700');
    await page.getByTestId('tab-history').click();
    await page.getByTestId('diff').waitFor({ timeout: WAIT });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await shot('documents-history-1024x700');
  });

  it('logged no errors in the browser console', () => {
    // The offline save shows up as failed loads (net::ERR_INTERNET_DISCONNECTED), provoked on purpose.
    const unexpected = unexpectedConsoleErrors(consoleErrors).filter((text) => !text.includes('ERR_INTERNET_DISCONNECTED'));
    expect(unexpected).toEqual([]);
  });
});
