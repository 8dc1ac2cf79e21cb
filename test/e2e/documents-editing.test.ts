/**
 * Editing documents as a person does, in Debian's Chromium against a real headless node: an
 * empty team's Documents view teaches (icon, title, help, a button); typing a character and
 * deleting it leaves nothing to save (no draft, no version, even with Ctrl+S); two windows edit the
 * same document and the second save is refused rather than replacing the first, then compares with
 * the newer version and merges it in (different lines by themselves, the same line by choice), so
 * nothing either wrote is lost; in the dark the editor's syntax colours are measured at 4.5:1, no
 * heading is underlined, the focus ring is whole, and the preview wears the app's look or says
 * which theme it shows. Screenshots go to test/e2e/screenshots/.
 */
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulateColorScheme, openWindow, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const TEAM = { name: 'editors', domain: 'e2e-editing.test' };
const TEAM_ID = `${TEAM.name}:${TEAM.domain}`;
const WAIT = 15_000;
const BASE = '# Plan\n\nWe ship on Friday.\n\n- Write the notes\n- Tell the team\n';

let rig: AppRig | undefined;
let node: HeadlessNode;
let context: BrowserContext;
let page: Page;
let other: BrowserContext | undefined;
let second: Page;
const consoleErrors: string[] = [];

const asOwnerMember = (method: string, path: string, body?: unknown): Promise<any> => node.asTeamOwner(TEAM_ID, method, path, body);

const editor = (p: Page = page) => p.getByTestId('markdown-editor');
const saveState = (p: Page = page) => p.getByTestId('save-state');
const docRow = (slug: string, p: Page = page) => p.getByTestId('document-list').locator(`[data-slug="${slug}"]`);
const modal = (p: Page = page) => p.locator('dialog[open]');

/** Replaces the editor's whole text by typing, as a person would. */
async function typeInEditor(p: Page, text: string): Promise<void> {
  await editor(p).click();
  await p.keyboard.press('ControlOrMeta+A');
  await p.keyboard.press('Delete');
  await p.keyboard.insertText(text);
}

async function versionsOnNode(slug: string): Promise<number> {
  return (await asOwnerMember('GET', `/v1/documents/${slug}/versions`)).length;
}

/** WCAG contrast of two computed `rgb()` colours. */
function contrast(a: string, b: string): number {
  const lum = (color: string) => {
    const [r, g, bl] = (color.match(/[\d.]+/g) ?? [])
      .slice(0, 3)
      .map(Number)
      .map((c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The editor's painted syntax: each highlighted piece's text, colour and decoration, and the editor's background. */
const EDITOR_PAINT = `(() => {
  const editor = document.querySelector('.cm-editor');
  const spans = [...document.querySelectorAll('.cm-content .cm-line span')].map((span) => {
    const style = getComputedStyle(span);
    return { text: span.textContent, color: style.color, decoration: style.textDecorationLine };
  });
  return { background: getComputedStyle(editor).backgroundColor, spans };
})()`;

function previewFrame(p: Page): Frame | undefined {
  return p.frames().find((frame) => frame.url() === 'about:srcdoc');
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-documents',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => {
      const project = await started.owner('POST', '/v1/node/projects', { slug: 'editing-people', name: 'Editors' });
      await started.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'eda' });
      await started.owner('POST', '/v1/node/teams', TEAM);
    },
  });
  ({ node, context, page } = rig);
}, 90_000);

afterAll(async () => {
  await other?.close();
  await stopRig(rig);
});

describe('Editing documents (headless node, Chromium)', { timeout: 60_000 }, () => {
  it('teaches with an icon, a title, help and a button when the team has no documents', async () => {
    await page.getByTestId('nav-documents').click();
    const empty = page.getByTestId('documents-pane-empty');
    await empty.waitFor({ timeout: WAIT });
    expect(await empty.locator('h3').textContent()).toBe(`No documents in ${TEAM.name} yet`);
    expect(await empty.locator('.empty-icon svg').count()).toBe(1);
    expect(await empty.textContent()).toContain('Every save is a version you can compare and restore');
    await saveShot(page, 'documents-empty-state');
    await empty.getByTestId('pane-new-document').click();
    await modal().getByTestId('new-document-dialog').waitFor({ timeout: WAIT });
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
  });

  it('leaves nothing to save after typing a character and deleting it: no draft, no version, even with Ctrl+S', async () => {
    await asOwnerMember('POST', '/v1/documents', { slug: 'plan', title: 'Plan', body: BASE });
    await page.getByTestId('documents-refresh').click();
    await docRow('plan').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 1');
    await editor().click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('x');
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toContain('Unsaved changes');
    await page.keyboard.press('Backspace');
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 1');
    expect(await page.getByTestId('save-document').isDisabled()).toBe(true);
    await page.keyboard.press('ControlOrMeta+S');
    // The draft written while the "x" was there is gone again.
    await expect.poll(() => page.getByTestId('draft-badge').count(), { timeout: WAIT }).toBe(0);
    expect(await saveState().textContent()).toBe('Saved as version 1');
    expect(await versionsOnNode('plan')).toBe(1);
    // A reload opens the saved version, not a draft.
    await page.reload();
    await page.getByTestId('nav-documents').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 1');
    expect(await versionsOnNode('plan')).toBe(1);
  });

  it('refuses a save over a version saved in another window, compares with it and merges both edits in', async () => {
    // A second window of the same person, signed in the same way, with its own storage.
    other = await rig!.browser.newContext({ storageState: await context.storageState(), viewport: { width: 1280, height: 820 }, colorScheme: 'light' });
    second = await openWindow(other, `${node.info.core_url}/ui/`, { section: 'nav-documents', sink: consoleErrors, timeout: WAIT });
    await second.getByTestId('nav-documents').click();
    await docRow('plan', second).click();
    await expect.poll(() => saveState(second).textContent(), { timeout: WAIT }).toBe('Saved as version 1');

    await docRow('plan').click();
    await typeInEditor(page, BASE.replace('Friday', 'Monday'));
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toContain('Unsaved changes');
    await typeInEditor(second, BASE.replace('Write the notes', 'Write the release notes').concat('- Post the demo\n'));
    await second.getByTestId('save-document').click();
    await expect.poll(() => saveState(second).textContent(), { timeout: WAIT }).toBe('Saved as version 2');

    // The first window saves over version 1: refused, nothing replaced.
    await page.getByTestId('save-document').click();
    const banner = page.getByTestId('behind-banner');
    await banner.waitFor({ timeout: WAIT });
    await expect.poll(() => versionsOnNode('plan'), { timeout: WAIT }).toBe(2);
    expect((await asOwnerMember('GET', '/v1/documents/plan')).body).toContain('release notes');
    expect(await banner.getByTestId('compare-latest').textContent()).toBe('Compare with v2');
    expect(await editor().textContent()).toContain('Monday');
    await saveShot(page, 'documents-behind-banner');

    await banner.getByTestId('compare-latest').click();
    const compare = modal().getByTestId('compare-latest-dialog');
    await compare.waitFor({ timeout: WAIT });
    expect(await compare.locator('td.text.add[data-side="new"]').allTextContents()).toEqual(
      expect.arrayContaining(['We ship on Friday.', '- Write the release notes', '- Post the demo']),
    );
    expect(await compare.locator('td.text.del[data-side="old"]').allTextContents()).toEqual(expect.arrayContaining(['We ship on Monday.']));
    await saveShot(page, 'documents-compare-latest');
    await compare.getByTestId('compare-merge').click();

    const merge = modal().getByTestId('merge-dialog');
    await merge.getByTestId('merge-summary').waitFor({ timeout: WAIT });
    expect(await merge.getByTestId('merge-summary').textContent()).toContain('touch different lines');
    expect(await merge.getByTestId('merge-conflict').count()).toBe(0);
    await saveShot(page, 'documents-merge-clean');
    await merge.getByTestId('merge-apply').click();
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    expect(await page.getByTestId('behind-banner').count()).toBe(0);
    await page.getByTestId('save-document').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 3');
    expect((await asOwnerMember('GET', '/v1/documents/plan')).body).toBe(
      '# Plan\n\nWe ship on Monday.\n\n- Write the release notes\n- Tell the team\n- Post the demo\n',
    );

    // Both change the same line: the merge asks, side by side; keeping both loses neither.
    await expect.poll(() => saveState(second).textContent(), { timeout: WAIT }).toBe('Saved as version 3');
    const merged = (await asOwnerMember('GET', '/v1/documents/plan')).body as string;
    await typeInEditor(second, merged.replace('Monday', 'Tuesday'));
    await typeInEditor(page, merged.replace('Monday', 'Wednesday'));
    await second.getByTestId('save-document').click();
    await expect.poll(() => saveState(second).textContent(), { timeout: WAIT }).toBe('Saved as version 4');
    await page.getByTestId('save-document').click();
    await page.getByTestId('behind-banner').getByTestId('merge-latest').click();
    const conflict = modal().getByTestId('merge-dialog').getByTestId('merge-conflict');
    await conflict.waitFor({ timeout: WAIT });
    expect(await conflict.locator('pre[data-side="ours"]').textContent()).toBe('We ship on Wednesday.');
    expect(await conflict.locator('pre[data-side="theirs"]').textContent()).toBe('We ship on Tuesday.');
    expect(await modal().getByTestId('merge-apply').isDisabled()).toBe(true);
    await saveShot(page, 'documents-merge-conflict');
    await conflict.getByTestId('merge-choice-both').check();
    await modal().getByTestId('merge-apply').click();
    await page.getByTestId('save-document').click();
    await expect.poll(() => saveState().textContent(), { timeout: WAIT }).toBe('Saved as version 5');
    const final = (await asOwnerMember('GET', '/v1/documents/plan')).body as string;
    expect(final).toContain('We ship on Wednesday.\nWe ship on Tuesday.');
    expect(final).toContain('- Post the demo');
  });

  it('paints the editor’s syntax at 4.5:1 in the dark, underlines no heading, and draws the whole focus ring', async () => {
    await emulateColorScheme(page, 'dark');
    await docRow('plan').click();
    await editor().click();
    const paint = (await page.evaluate(EDITOR_PAINT)) as { background: string; spans: { text: string; color: string; decoration: string }[] };
    const markers = paint.spans.filter((span) => ['#', '-'].includes(span.text.trim()));
    expect(markers.length).toBeGreaterThan(0);
    for (const span of paint.spans) {
      expect(contrast(span.color, paint.background), `"${span.text}" ${span.color} on ${paint.background}`).toBeGreaterThanOrEqual(4.5);
      expect(span.decoration, `"${span.text}"`).not.toContain('underline');
    }
    const ring = (await page.evaluate(`(() => {
      const editor = getComputedStyle(document.querySelector('.cm-editor'));
      return { outline: editor.outlineStyle + ' ' + editor.outlineWidth + ' ' + editor.outlineOffset, content: getComputedStyle(document.querySelector('.cm-content')).boxShadow };
    })()`)) as { outline: string; content: string };
    expect(ring).toEqual({ outline: 'solid 2px -2px', content: 'none' });
    await saveShot(page, 'documents-editor-dark');
    await emulateColorScheme(page, 'light');
  });

  it('says the preview shows the page’s own light theme, and wears the app’s dark look when the theme has both', async () => {
    // The app set to Dark while the system stays light.
    await page.evaluate(`localStorage.setItem('svc-node.appearance', 'dark')`);
    await page.reload();
    await page.getByTestId('nav-documents').click();
    await expect.poll(() => page.getByTestId('preview-scheme').textContent(), { timeout: WAIT }).toContain('own light theme, as every reader sees it');
    await saveShot(page, 'documents-preview-light-page-dark-app');

    await asOwnerMember('PUT', '/v1/theme', { tokens: { layout: { color_scheme: 'auto' } } });
    await expect.poll(() => page.getByTestId('preview-scheme').textContent(), { timeout: WAIT }).toContain('In your dark look');
    const background = async () =>
      (await previewFrame(page)
        ?.evaluate('getComputedStyle(document.body).backgroundColor')
        .catch(() => null)) as string | null;
    await expect
      .poll(
        async () => {
          const color = await background();
          return color === null ? null : contrast(color, 'rgb(0, 0, 0)') < 2;
        },
        { timeout: WAIT },
      )
      .toBe(true);
    await saveShot(page, 'documents-preview-dark');
    await page.evaluate(`localStorage.setItem('svc-node.appearance', 'system')`);
  });

  it('fits the banner and the merge dialog at 1440, 1200 and 900 px, light and dark', async () => {
    await page.reload();
    await page.getByTestId('nav-documents').click();
    await docRow('plan').click();
    const latest = (await asOwnerMember('GET', '/v1/documents/plan')).body as string;
    await typeInEditor(page, `${latest}A line of mine.\n`);
    await asOwnerMember('POST', '/v1/documents/plan/versions/template', { name: 'memo', slots: { cover: { title: 'Plan, by an agent' } } });
    await page.getByTestId('behind-banner').waitFor({ timeout: WAIT });
    for (const scheme of ['light', 'dark'] as const) {
      await emulateColorScheme(page, scheme);
      for (const width of [1440, 1200, 900]) {
        await page.setViewportSize({ width, height: 820 });
        expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), `${width} ${scheme}`).toBe(0);
        await saveShot(page, `documents-behind-${width}-${scheme}`);
      }
      await page.getByTestId('merge-latest').click();
      await modal().getByTestId('merge-summary').waitFor({ timeout: WAIT });
      await saveShot(page, `documents-merge-900-${scheme}`);
      await modal().getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    }
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1280, height: 820 });
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
