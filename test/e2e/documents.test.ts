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
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const TEAM = { name: 'writers', domain: 'e2e-docs.test' };
const TEAM_ID = `${TEAM.name}:${TEAM.domain}`;
const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
let presentUrl = '';

const asOwnerMember = (method: string, path: string, body?: unknown): Promise<any> => node.asTeamOwner(TEAM_ID, method, path, body);

const shot = (name: string): Promise<void> => saveShot(page, name);

const modal = () => page.locator('dialog[open]');
const docRow = (slug: string) => page.getByTestId('document-list').locator(`[data-slug="${slug}"]`);
const preview = (): FrameLocator => page.frameLocator('.preview-pane [data-testid="preview-frame"]');
const saveState = () => page.getByTestId('save-state');
const editor = () => page.getByTestId('markdown-editor');

interface Box {
  left: number;
  right: number;
  width: number;
}

interface HeadLayout {
  viewport: number;
  overflow: number;
  save: Box;
  present: Box;
  discard: Box;
  titleCut: boolean;
  titleLines: number;
  metaLines: number;
  facts: number[];
}

/** The document head's layout, measured in the page (a string: these tests compile without the DOM's types). */
const HEAD_LAYOUT = `(() => {
  const box = (selector) => document.querySelector(selector).getBoundingClientRect().toJSON();
  const lines = (element) => Math.round(element.getBoundingClientRect().height / parseFloat(getComputedStyle(element).lineHeight));
  const title = document.querySelector('[data-testid="doc-title"]');
  return {
    viewport: document.documentElement.clientWidth,
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    save: box('[data-testid="save-document"]'),
    present: box('[data-testid="present"]'),
    discard: box('[data-testid="discard-draft"]'),
    titleCut: title.scrollWidth > title.clientWidth || title.scrollHeight > title.clientHeight + 1,
    titleLines: lines(title),
    metaLines: lines(document.querySelector('.meta')),
    facts: [...document.querySelectorAll('.meta .fact')].map((fact) => fact.getClientRects().length),
  };
})()`;

/** Replaces the editor's whole text by typing, as a person would. */
async function typeInEditor(text: string): Promise<void> {
  await editor().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-documents',
    sink: consoleErrors,
    timeout: WAIT,
    // Someone who uses the app: an identity, so it opens on its sections rather than on setup.
    prepare: async (started) => {
      const project = await started.owner('POST', '/v1/node/projects', { slug: 'writers-people', name: 'Writers' });
      await started.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'wren' });
    },
  });
  ({ node, browser, context, page } = rig);
}, 90_000);

afterAll(() => stopRig(rig));

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
    // Discarding asks first (one click used to lose them); keeping the changes keeps them.
    await page.getByTestId('discard-draft').click();
    const ask = modal().getByTestId('discard-dialog');
    await ask.waitFor({ timeout: WAIT });
    expect(await ask.textContent()).toContain('version 3 again');
    await shot('documents-discard-confirm');
    // The safe choice has the focus; Esc keeps the changes and hands the focus back to the button that asked.
    expect(await page.evaluate('document.activeElement?.dataset.testid')).toBe('discard-keep');
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    expect(await page.evaluate('document.activeElement?.dataset.testid')).toBe('discard-draft');
    expect(await editor().textContent()).toContain('A draft that was never saved.');
    await page.getByTestId('discard-draft').click();
    await ask.getByTestId('discard-keep').click();
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    expect(await editor().textContent()).toContain('A draft that was never saved.');
    // The node still has version 3; discarding shows it again.
    await page.getByTestId('discard-draft').click();
    await modal().getByTestId('discard-confirm').click();
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
    // Letters without a separate accent are spelled out (dropped, "Ünïcødé" gave `unic-de`).
    await dialog.getByTestId('new-doc-title').fill('Ünïcødé & Straße');
    await expect.poll(() => dialog.getByTestId('new-doc-slug').inputValue(), { timeout: WAIT }).toBe('unicode-strasse');
    await dialog.getByTestId('new-doc-title').fill('Weekly memo');
    await expect.poll(() => dialog.getByTestId('new-doc-slug').inputValue(), { timeout: WAIT }).toBe('weekly-memo');
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
      // The tab names the document, so a reader's tabs and bookmarks say what it is.
      expect(await visitor.title()).toBe('Launch plan');
      expect(await visitor.locator('script').count()).toBe(0);
      await saveShot(visitor, 'documents-present-page');

      await dialog.getByTestId('present-link-row').first().getByTestId('present-revoke').click();
      await dialog.getByTestId('present-revoke-confirm').click();
      await expect.poll(() => dialog.getByTestId('present-link-row').first().textContent(), { timeout: WAIT }).toMatch(/revoked/i);
      const gone = await visitor.goto(presentUrl);
      expect(gone?.status()).toBe(404);
      // A small styled page, the same for every dead or unknown token.
      expect(await visitor.locator('main.not-found h1').textContent()).toBe('Not found');
      expect(await visitor.title()).toBe('Link not found');
      await saveShot(visitor, 'documents-present-not-found');
      const night = await browser.newContext({ viewport: { width: 1000, height: 700 }, colorScheme: 'dark' });
      try {
        const guesser = await night.newPage();
        await guesser.goto(`${new URL(presentUrl).origin}/present/${'x'.repeat(43)}`);
        expect(await guesser.locator('main.not-found h1').textContent()).toBe('Not found');
        await saveShot(guesser, 'documents-present-not-found-dark');
      } finally {
        await night.close();
      }
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
      await saveShot(visitor, 'documents-present-editor');
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
    await expect.poll(() => dialog.getByTestId('contrast-light-text').textContent(), { timeout: WAIT }).toMatch(/2\.84:1/);
    expect(await dialog.getByTestId('theme-save').isDisabled()).toBe(true);
    await shot('documents-theme-refused');

    // Every text colour is checked, not only text on surface: a dark theme with a plum accent.
    await dialog.getByTestId('theme-color-text').fill('');
    await dialog.getByTestId('theme-scheme').selectOption('dark');
    await dialog.getByTestId('theme-color-accent').fill('#8a1c7c');
    await expect.poll(() => dialog.getByTestId('contrast-dark-link').textContent(), { timeout: WAIT }).toMatch(/2\.\d\d:1 ✗/);
    expect(await dialog.getByTestId('contrast-dark-text').textContent()).toMatch(/✓/);
    expect(await dialog.getByTestId('contrast-dark-muted').textContent()).toMatch(/✓/);
    expect(await dialog.getByTestId('contrast-dark-code').textContent()).toMatch(/✓/);
    expect(await dialog.getByTestId('theme-blocked').textContent()).toMatch(/links in the dark palette \(2\.\d\d:1\)/);
    expect(await dialog.getByTestId('theme-save').isDisabled()).toBe(true);
    await shot('documents-theme-link-refused');
    // The node refuses it too, naming the colour, should anything send it.
    await expect(asOwnerMember('PUT', '/v1/theme', { tokens: { colors: { accent: '#8a1c7c' }, layout: { color_scheme: 'dark' } } })).rejects.toThrow(
      /link colour \(accent\) #8a1c7c/,
    );
    await dialog.getByTestId('theme-color-accent').fill('');
    await dialog.getByTestId('theme-scheme').selectOption('');

    await dialog.getByTestId('theme-color-text').fill('#222222');
    await dialog.getByTestId('theme-header').fill('Acme Writers');
    await expect.poll(() => dialog.getByTestId('contrast-light-text').textContent(), { timeout: WAIT }).toMatch(/15\.\d\d:1/);
    await expect
      .poll(() => dialog.frameLocator('[data-testid="preview-frame"]').locator('.theme-header').textContent(), { timeout: WAIT })
      .toBe('Acme Writers');
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
    // The app follows the OS through its Appearance setting ("System"), a moment after the change.
    await expect.poll(() => page.evaluate('getComputedStyle(document.body).backgroundColor'), { timeout: WAIT }).toBe('rgb(24, 25, 28)');
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

  it('fits the head in the window at 1440, 1200 and 900 px, light and dark', async () => {
    await asOwnerMember('POST', '/v1/documents', { slug: 'seed-round', title: 'Seed round: what we raise, and why', body: '# Seed round\n\nThe numbers.\n' });
    await docRow('seed-round').waitFor({ timeout: WAIT });
    await docRow('seed-round').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 1');
    // The widest head: unsaved changes, so Discard shows too.
    await typeInEditor('# Seed round\n\nThe numbers, again.\n');
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toContain('Unsaved changes');
    for (const width of [1440, 1200, 900]) {
      await page.setViewportSize({ width, height: 820 });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const head = await page.evaluate<HeadLayout>(HEAD_LAYOUT);
        const where = `${width} px, ${scheme}`;
        expect(head.overflow, where).toBe(0);
        for (const button of [head.save, head.present, head.discard]) {
          expect(button.left, where).toBeGreaterThanOrEqual(0);
          expect(button.right, where).toBeLessThanOrEqual(head.viewport);
          expect(button.width, where).toBeGreaterThan(20);
        }
        expect(head.titleCut, where).toBe(false);
        // One line where there is room, wrapping (never cut) where there is not; the facts below on
        // one line, two at the window's minimum (they once took three lines, then a word per line).
        expect(head.titleLines, where).toBeLessThanOrEqual(width === 1440 ? 1 : 2);
        expect(head.metaLines, where).toBeLessThanOrEqual(width === 900 ? 2 : 1);
        // Each fact (slug, version, when, save state) stays on one line.
        expect(
          head.facts.every((rects) => rects === 1),
          `${where}: ${JSON.stringify(head.facts)}`,
        ).toBe(true);
        expect(await page.getByTestId('save-document').getAttribute('title'), where).toContain('Ctrl+S');
        // The sandboxed preview paints in its own process: give it a moment after a resize, for the picture only.
        await page.waitForTimeout(400);
        await shot(`documents-head-${width}-${scheme}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 820 });
    await page.keyboard.press('ControlOrMeta+S');
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 2');
  });

  it('repaints the open preview when the theme is saved, by an agent or here', async () => {
    await expect.poll(() => preview().locator('h1').textContent(), { timeout: WAIT }).toBe('Seed round');
    // An agent saves the theme: the preview follows without a reload.
    await asOwnerMember('PUT', '/v1/theme', { tokens: { colors: { text: '#222222' } }, header: 'Changed by an agent' });
    await expect.poll(() => preview().locator('.theme-header').textContent(), { timeout: WAIT }).toBe('Changed by an agent');
    // Saved here: the same.
    await page.getByTestId('open-theme').click();
    const dialog = modal().getByTestId('theme-dialog');
    await dialog.getByTestId('theme-header').waitFor({ timeout: WAIT });
    expect(await dialog.getByTestId('theme-header').inputValue()).toBe('Changed by an agent');
    // Saved elsewhere while the editor is open and untouched: it shows the new theme.
    await asOwnerMember('PUT', '/v1/theme', { tokens: { colors: { text: '#222222' } }, header: 'Changed while open' });
    await expect.poll(() => dialog.getByTestId('theme-header').inputValue(), { timeout: WAIT }).toBe('Changed while open');
    // Once something is changed here, another save elsewhere is only mentioned.
    await dialog.getByTestId('theme-footer').fill('Saved in the app');
    await asOwnerMember('PUT', '/v1/theme', { tokens: { colors: { text: '#222222' } }, header: 'Changed a third time' });
    await dialog.getByTestId('theme-changed-elsewhere').waitFor({ timeout: WAIT });
    expect(await dialog.getByTestId('theme-header').inputValue()).toBe('Changed while open');
    expect(await dialog.getByTestId('theme-footer').inputValue()).toBe('Saved in the app');
    await expect.poll(() => dialog.getByTestId('contrast-light-text').textContent(), { timeout: WAIT }).toMatch(/✓/);
    await dialog.getByTestId('theme-save').click();
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    await expect.poll(() => preview().locator('.theme-footer').textContent(), { timeout: WAIT }).toBe('Saved in the app');
    expect(await preview().locator('.theme-header').textContent()).toBe('Changed while open');
    // A short page in the narrow preview is all surface: no grey band of page background below it.
    // Typed loosely: these tests compile without the DOM's types.
    const paints: string[] = await preview()
      .locator('body')
      .evaluate((body: any) =>
        [body, body.querySelector('article.surface')].map((element) => body.ownerDocument.defaultView.getComputedStyle(element).backgroundColor),
      );
    expect(paints[0]).toBe(paints[1]);
    const gap = await page.evaluate<number>(
      `document.querySelector('.preview-pane').getBoundingClientRect().bottom - document.querySelector('.preview-pane [data-testid="preview-frame"]').getBoundingClientRect().bottom`,
    );
    expect(gap).toBeLessThanOrEqual(1);
    await shot('documents-preview-themed');
  });

  it('names who made each version: the identity acting in the app, an agent, a visitor', async () => {
    const project = (await node.owner('GET', '/v1/node/projects')).projects.find((p: { slug: string }) => p.slug === 'writers-people');
    await node.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'bob' });
    await page.reload();
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('identity-switcher').click();
    await page.getByTestId('identity-switcher-menu').getByRole('option').filter({ hasText: 'bob' }).click();
    await page.getByTestId('identity-switcher').filter({ hasText: 'bob' }).waitFor({ timeout: WAIT });

    await docRow('weekly-memo').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toMatch(/^Saved as version \d+$/);
    const before = Number((await saveState().textContent())!.replace(/\D/g, ''));
    await typeInEditor('# Week 49\n\nWritten by bob in the app.\n');
    await page.getByTestId('save-document').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe(`Saved as version ${before + 1}`);
    // An anonymous visitor through an editable link, after bob.
    const link = await asOwnerMember('POST', '/v1/present', { slug: 'weekly-memo', editable: true });
    const edit = await fetch(`${link.url}/edit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: '# Week 49\n\nAnonymous.\n', base_version: before + 1 }),
    });
    expect(edit.status).toBe(200);
    // The open document follows live.
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe(`Saved as version ${before + 2}`);

    await page.getByTestId('tab-history').click();
    const authors = () => page.getByTestId('version-author').allTextContents();
    await expect.poll(async () => (await authors()).length, { timeout: WAIT }).toBe(before + 2);
    const names = (await authors()).map((text) => text.replace(/\s+/g, ' ').trim());
    expect(names[0]).toBe('Someone with the link through an editable link');
    expect(names[1]).toBe('bob saved');
    expect(names).toContain('Visiting Editor through an editable link');
    expect(names).toContain('owner from a template');
    expect(names.join('|')).not.toMatch(/owner through/);
    // One line each way, said in the singular (not "1 lines").
    await expect.poll(() => page.getByTestId('diff').locator('.visually-hidden').first().textContent(), { timeout: WAIT }).toBe('1 line removed, 1 line added');
    const stored = await asOwnerMember('GET', `/v1/documents/weekly-memo/versions/${before + 1}`);
    expect(stored.author).toEqual({ kind: 'identity', name: 'bob', address: null });
    await shot('documents-history-names');

    // The history list is keyboard-first: j moves, Enter shows what that version changed.
    await page.getByTestId('version-list').focus();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('diff-to').inputValue(), { timeout: WAIT }).toBe(String(before));
    expect(await page.getByTestId('diff-from').inputValue()).toBe(String(before - 1));
    await page.getByTestId('tab-write').click();
  });

  it('moves through the list by keyboard and filters it on the node', async () => {
    const list = page.getByTestId('document-list');
    expect(await list.getAttribute('title')).toMatch(/j\/k/);
    await list.focus();
    const openTitle = async () => (await page.getByTestId('doc-title').textContent())?.trim();
    // Newest first: the memo bob just saved, the seed round, then the launch plan.
    expect(await openTitle()).toBe('Weekly memo');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await expect.poll(openTitle, { timeout: WAIT }).toBe('Launch plan');
    await page.keyboard.press('k');
    await page.keyboard.press('Enter');
    await expect.poll(openTitle, { timeout: WAIT }).toBe('Seed round: what we raise, and why');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await expect.poll(openTitle, { timeout: WAIT }).toBe('Weekly memo');

    const filter = page.getByTestId('doc-filter');
    await filter.fill('LAUNCH');
    await expect.poll(() => page.getByTestId('document-row').count(), { timeout: WAIT }).toBe(1);
    expect(await page.getByTestId('documents-count').textContent()).toBe('1 match');
    await filter.press('Escape');
    expect(await filter.inputValue()).toBe('');
    await expect.poll(() => page.getByTestId('document-row').count(), { timeout: WAIT }).toBe(3);
  });

  it('shows the one team choice the Shelf shares, as a picker in Documents', async () => {
    await node.owner('POST', '/v1/node/teams', { name: 'design', domain: TEAM.domain });
    await page.reload();
    await page.getByTestId('nav-documents').click();
    const picker = page.getByTestId('team-picker');
    await picker.waitFor({ timeout: WAIT });
    expect(await picker.inputValue()).toBe(TEAM_ID);
    await picker.selectOption(`design:${TEAM.domain}`);
    await page.getByTestId('documents-pane-empty').waitFor({ timeout: WAIT });
    expect(await page.getByTestId('documents-pane-empty').textContent()).toContain('No documents in design yet');
    await shot('documents-team-design');
    // The Shelf acts as the same team, and switching there switches here.
    await page.getByTestId('nav-shelf').click();
    await expect.poll(() => page.getByTestId('team-picker').inputValue(), { timeout: WAIT }).toBe(`design:${TEAM.domain}`);
    await page.getByTestId('team-picker').selectOption(TEAM_ID);
    await page.getByTestId('nav-documents').click();
    await expect.poll(() => page.getByTestId('team-picker').inputValue(), { timeout: WAIT }).toBe(TEAM_ID);
    await docRow('launch-plan').waitFor({ timeout: WAIT });
    // Switching away while a document was still opening kept no empty "draft" of it.
    expect(await page.getByTestId('draft-badge').count()).toBe(0);
  });

  it('lists an editable link as editing the latest version', async () => {
    await docRow('launch-plan').click();
    await page.getByTestId('present').click();
    const dialog = modal().getByTestId('present-dialog');
    await dialog.waitFor({ timeout: WAIT });
    await dialog.getByTestId('present-editable').check();
    expect(await dialog.getByTestId('present-version').isDisabled()).toBe(true);
    await dialog.getByTestId('present-create').click();
    await expect.poll(() => dialog.getByTestId('present-result').textContent(), { timeout: WAIT }).toContain('Editable link to the latest version');
    await expect.poll(() => dialog.getByTestId('present-link-version').first().textContent(), { timeout: WAIT }).toMatch(/Latest/);
    // A link an agent makes meanwhile shows up in the open dialog.
    const rows = await dialog.getByTestId('present-link-row').count();
    await asOwnerMember('POST', '/v1/present', { slug: 'launch-plan', version: 2 });
    await expect.poll(() => dialog.getByTestId('present-link-row').count(), { timeout: WAIT }).toBe(rows + 1);
    expect(await dialog.getByTestId('present-link-version').first().textContent()).toMatch(/v2/);
    await shot('documents-present-editable');
    await page.keyboard.press('Escape');
  });

  it('moves through the present links with the keyboard: copy, open, revoke, and Esc closes', async () => {
    await page.getByTestId('present').click();
    const dialog = modal().getByTestId('present-dialog');
    await dialog.getByTestId('present-create').click();
    await expect.poll(() => dialog.getByTestId('present-url').inputValue(), { timeout: WAIT }).toMatch(/\/present\//);
    const url = await dialog.getByTestId('present-url').inputValue();
    const list = dialog.getByTestId('present-link-list');
    const rows = list.getByRole('option');
    // The one made now is the row whose address this dialog knows.
    await expect.poll(() => list.getByTestId('present-link-copy').count(), { timeout: WAIT }).toBe(1);
    const count = await rows.count();
    let made = -1;
    for (let i = 0; i < count; i++) if ((await rows.nth(i).getByTestId('present-link-copy').count()) === 1) made = i;
    expect(count).toBeGreaterThan(1);
    // The tooltips say the keys.
    expect(await list.getAttribute('title')).toMatch(/j\/k to move, Enter copies the address and O opens it .* Delete revokes, Esc closes/);
    expect(await list.getByTestId('present-link-copy').getAttribute('title')).toBe('Copy to clipboard (Enter)');
    expect(await rows.nth(made).getByTestId('present-revoke').getAttribute('title')).toBe('Revoke this link (Delete)');

    const active = () => list.getAttribute('aria-activedescendant');
    await list.focus();
    expect(await active()).toBe('present-link-0');
    await page.keyboard.press('j');
    expect(await active()).toBe('present-link-1');
    await page.keyboard.press('ArrowUp');
    expect(await active()).toBe('present-link-0');
    for (let i = 0; i < made; i++) await page.keyboard.press('ArrowDown');
    expect(await active()).toBe(`present-link-${made}`);

    // Enter copies the address; O opens the page.
    await page.evaluate(`navigator.clipboard.writeText('')`);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(url);
    expect(await rows.nth(made).getByTestId('present-link-copy').textContent()).toContain('Copied');
    const [opened] = await Promise.all([page.waitForEvent('popup'), page.keyboard.press('o')]);
    await opened.waitForLoadState();
    expect(opened.url()).toBe(url);
    await opened.close();
    await page.bringToFront();
    await list.focus();

    // Delete asks, inline, with the confirmation focused; Enter there revokes, and the list has the keys again.
    await page.keyboard.press('Delete');
    await expect.poll(() => page.evaluate('document.activeElement?.dataset?.testid')).toBe('present-revoke-confirm');
    await shot('documents-present-keyboard');
    await page.keyboard.press('Enter');
    await expect.poll(() => rows.nth(made).getByTestId('present-link-state').textContent(), { timeout: WAIT }).toMatch(/revoked/);
    await expect.poll(() => page.evaluate('document.activeElement?.dataset?.testid')).toBe('present-link-list');
    // A revoked link has nothing left to revoke.
    await page.keyboard.press('Delete');
    expect(await dialog.getByTestId('present-revoke-confirm').count()).toBe(0);

    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
  });

  it('fits its dialogs and history in the narrowest window, dark', async () => {
    await page.setViewportSize({ width: 900, height: 820 });
    await page.emulateMedia({ colorScheme: 'dark' });
    const fits = (selector: string) =>
      page.evaluate<boolean>(`(() => { const e = document.querySelector('${selector}'); return e.scrollWidth <= e.clientWidth; })()`);
    try {
      // Below 1000 px the open document has the window to itself: the list (and its theme button)
      // is one Back away, and picking the open document again returns to it.
      await page.getByTestId('pane-back').click();
      await page.getByTestId('open-theme').click();
      await modal().getByTestId('theme-dialog').getByTestId('contrast-table').waitFor({ timeout: WAIT });
      expect(await fits('dialog[open]')).toBe(true);
      await shot('documents-theme-900-dark');
      await page.keyboard.press('Escape');
      await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
      await page.locator('.pane-row.open [data-testid="document-row"]').click();
      await page.getByTestId('present').click();
      await modal().getByTestId('present-dialog').waitFor({ timeout: WAIT });
      expect(await fits('dialog[open]')).toBe(true);
      await shot('documents-present-900-dark');
      await page.keyboard.press('Escape');
      await page.getByTestId('tab-history').click();
      await page.getByTestId('diff').waitFor({ timeout: WAIT });
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
      await shot('documents-history-900-dark');
      await page.getByTestId('tab-write').click();
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 820 });
    }
  });

  it('logged no errors in the browser console', () => {
    // The offline save shows up as failed loads (net::ERR_INTERNET_DISCONNECTED), provoked on purpose.
    const unexpected = unexpectedConsoleErrors(consoleErrors).filter((text) => !text.includes('ERR_INTERNET_DISCONNECTED'));
    expect(unexpected).toEqual([]);
  });
});
