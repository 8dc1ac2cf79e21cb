/**
 * Search, driven as a person would in Debian's Chromium against a real headless node:
 * mail and a chat between two identities (one mail about a "Café au lait contract"), documents and
 * shelf profiles. The command palette (Ctrl+K) searches as you type, as the identity acting (bob
 * finds his Sent copy only, alice her inbox copy): `cafe` finds the mail grouped under Mail with
 * "Café" marked (diacritics ignored), Enter opens it in Mail without switching identity; an
 * unclosed quote shows the node's words, not a crash. Mail's field finds the mail, Documents' field
 * a document by a word of its body, the Shelf's a profile by a word of its mission. From the
 * palette, a chat opens in Chat, a word only an older version has opens that document on its
 * history, a profile opens on the Shelf. Dark mode and a 1024x700 window without sideways
 * scrolling; screenshots go to test/e2e/screenshots/search-*.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileFiles } from '../support/library.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, seedIdentities, shot as saveShot, stopRig, type AppRig, actAs as actAsIdentity } from './steps.ts';

const DOMAIN = 'search-e2e.test';
const TEAM_ID = `crew:${DOMAIN}`;
const SUBJECT = 'Café au lait contract';
const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
const keys: Record<string, string> = {};

const shot = (name: string): Promise<void> => saveShot(page, name);
const palette = () => page.getByTestId('command-palette');
const paletteInput = () => page.getByTestId('palette-input');
const modal = () => page.locator('dialog[open]');

async function post(as: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${node.info.core_url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys[as]}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

const mail = (from: string, to: string, subject: string, body: string): Promise<void> =>
  post(from, '/v1/messages', { to_address: `${DOMAIN}/${to}`, subject, body });

/** A new version of a document, from raw Markdown (the route takes text/markdown, which the node signs like any body). */
async function appendVersion(slug: string, markdown: string): Promise<void> {
  const path = `/v1/documents/${slug}/versions`;
  const signed = await node.owner('POST', `/v1/node/teams/${encodeURIComponent(TEAM_ID)}/sign`, { method: 'POST', path, body: markdown, surface: 'docs' });
  const response = await fetch(signed.url, { method: 'POST', headers: { ...signed.headers, 'content-type': 'text/markdown; charset=utf-8' }, body: markdown });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

const actAs = (name: string): Promise<void> => actAsIdentity(page, `${DOMAIN}/${name}`, WAIT);

async function openPalette(text: string): Promise<void> {
  await page.keyboard.press('Control+k');
  await palette().waitFor({ timeout: WAIT });
  // Typed key by key, as a person does: each key restarts the pause before the node is asked.
  await paletteInput().pressSequentially(text);
}

/** How far the page, and the main pane, reach past the window's width (strings: no DOM types here). */
const overflow = async () => ({
  page: await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
  main: await page.evaluate("(() => { const main = document.querySelector('main'); return main ? main.scrollWidth - main.clientWidth : 0; })()"),
});

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-mail',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => {
      node = started;
      Object.assign(keys, (await seedIdentities(node, { domain: DOMAIN, slug: 'search', names: ['alice', 'bob'] })).keys);
      await mail('bob', 'alice', SUBJECT, 'Shall we sign the café au lait contract on Friday? The roaster agreed to the price.');
      await mail('bob', 'alice', 'Lunch on Thursday?', 'The usual place, at noon.');
      await mail('alice', 'bob', 'Re: Lunch on Thursday?', 'Yes, see you there.');
      await post('bob', '/v1/chat/sessions', { to_addresses: [`${DOMAIN}/alice`], message: 'Bring the pistachio samples tomorrow.' });

      await node.owner('POST', '/v1/node/teams', { name: 'crew', domain: DOMAIN });
      // Newest first in the list: the document searched for is not the one open at first.
      await node.asTeamOwner(TEAM_ID, 'POST', '/v1/documents', {
        slug: 'pantry-budget',
        title: 'Pantry budget',
        body: '# Pantry budget\n\nThe marmalade line doubles next quarter; the quince paste goes.\n',
      });
      // Version 2 drops the quince: only the older version still has it.
      await appendVersion('pantry-budget', '# Pantry budget\n\nThe marmalade line doubles next quarter; everything else stays.\n');
      await node.asTeamOwner(TEAM_ID, 'POST', '/v1/documents', {
        slug: 'launch-plan',
        title: 'Launch plan',
        body: '# Launch plan\n\nWhat ships first, and why.\n',
      });
      // In profile_ref order the shelf opens on the analyst; the one searched for comes after.
      await node.asTeamOwner(TEAM_ID, 'POST', '/v1/profiles', { files: profileFiles({ ref: 'analyst', name: 'Analyst', mission: 'Reads the numbers.' }) });
      await node.asTeamOwner(TEAM_ID, 'POST', '/v1/profiles', {
        files: profileFiles({ ref: 'ledger-keeper', name: 'Ledger keeper', mission: 'Keeps the ledger balanced with zeppelin precision.' }),
      });
    },
  });
  ({ page } = rig);
}, 90_000);

afterAll(() => stopRig(rig));

describe('Search (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('is served by the node: GET /v1/node/search answers the owner', async () => {
    const response = await fetch(`${node.info.core_url}/v1/node/search?q=cafe`, { headers: { authorization: `Bearer ${node.ownerToken()}` } });
    expect(response.status, await response.clone().text()).toBe(200);
  });

  it('finds the mail from the command palette as you type, grouped under Mail with “Café” marked', async () => {
    await actAs('bob');
    await openPalette('cafe');
    const group = palette().getByTestId('palette-group-mail');
    await group.waitFor({ timeout: WAIT });
    // The same mail is in alice's inbox and in bob's Sent: acting as bob, only his copy is found.
    const hits = group.getByTestId('palette-hit');
    await expect.poll(() => hits.getByTestId('hit-context').allTextContents(), { timeout: WAIT }).toEqual([expect.stringContaining('Sent')]);
    expect(await hits.first().textContent()).toContain(SUBJECT);
    // Typed without the accent, found and marked with it (the subject's or the body's).
    expect((await hits.first().locator('mark').first().textContent())?.toLowerCase()).toBe('café');
    // Nothing else matched: no group for another kind, no commands.
    expect(await palette().locator('[data-testid^="palette-group-"]').count()).toBe(1);
    await shot('search-palette');
  });

  it('opens a hit in Mail with Enter, as the identity acting, the message open', async () => {
    // Alice's copy is hers: found when she acts, and opened without switching anyone.
    await page.keyboard.press('Escape');
    await actAs('alice');
    await openPalette('cafe');
    const hits = palette().getByTestId('palette-group-mail').getByTestId('palette-hit');
    await expect.poll(() => hits.getByTestId('hit-context').allTextContents(), { timeout: WAIT }).toEqual([expect.stringContaining('Inbox')]);
    await page.keyboard.press('Enter');
    await expect.poll(() => modal().count()).toBe(0);
    await page
      .getByTestId('identity-switcher')
      .filter({ hasText: `${DOMAIN}/alice` })
      .waitFor({ timeout: WAIT });
    expect(page.url()).toMatch(/#\/mail$/);
    await expect.poll(() => page.getByTestId('reading-pane').getAttribute('aria-label'), { timeout: WAIT }).toBe(`Message: ${SUBJECT}`);
    expect(await page.getByTestId('folder-inbox').getAttribute('aria-current')).toBe('page');
    await shot('search-opened-mail');
  });

  it('says what is wrong with an unclosed quote, in the palette, without a crash', async () => {
    await openPalette('"au lait');
    const error = palette().getByTestId('palette-search-error');
    await error.waitFor({ timeout: WAIT });
    expect(await error.textContent()).toMatch(/quote/i);
    expect(await paletteInput().inputValue()).toBe('"au lait');
    await shot('search-palette-error');
    // Fixed, it searches again.
    await paletteInput().press('End');
    await paletteInput().press('"');
    await palette().getByTestId('palette-group-mail').waitFor({ timeout: WAIT });
    expect(await error.count()).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('finds the mail from Mail’s own field (/ goes there), and Esc brings the list back', async () => {
    await page.getByTestId('mail-list').focus();
    await page.keyboard.press('/');
    const field = page.getByTestId('mail-search');
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('data-testid')")).toBe('mail-search');
    await page.keyboard.type('roaster');
    const results = page.getByTestId('mail-search-results');
    await expect.poll(() => results.getByTestId('search-hit').count(), { timeout: WAIT }).toBe(1);
    expect(await results.locator('mark').first().textContent()).toBe('roaster');
    expect(await page.getByTestId('mail-list').count()).toBe(0);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('reading-pane').getAttribute('aria-label'), { timeout: WAIT }).toBe(`Message: ${SUBJECT}`);
    await shot('search-mail-field');
    await field.press('Escape');
    expect(await field.inputValue()).toBe('');
    await page.getByTestId('mail-list').waitFor({ timeout: WAIT });
  });

  it('finds a document by a word of its body from Documents’ field, and opens it', async () => {
    await page.getByTestId('nav-documents').click();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: WAIT }).toBe('Launch plan');
    await page.getByTestId('doc-filter').fill('marmalade');
    // Both versions have the word: the current one first.
    const hit = page.getByTestId('doc-filter-results').getByTestId('search-hit').first();
    await hit.waitFor({ timeout: WAIT });
    expect(await hit.textContent()).toContain('Pantry budget');
    expect(await hit.getByTestId('hit-context').textContent()).toBe('crew · v2');
    expect(await hit.locator('mark').textContent()).toBe('marmalade');
    await hit.click();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: WAIT }).toBe('Pantry budget');
    await shot('search-documents-field');
  });

  it('finds a profile by a word of its mission from the Shelf’s field, and opens it', async () => {
    await page.getByTestId('nav-shelf').click();
    await page.getByTestId('profile-pane').getByRole('heading', { name: 'Analyst' }).waitFor({ timeout: WAIT });
    await page.getByTestId('shelf-search').fill('zeppelin');
    const hit = page.getByTestId('shelf-search-results').getByTestId('search-hit');
    await expect.poll(() => hit.count(), { timeout: WAIT }).toBe(1);
    expect(await hit.textContent()).toContain('Ledger keeper');
    await page.getByTestId('shelf-search').press('Enter');
    await page.getByTestId('profile-pane').getByRole('heading', { name: 'Ledger keeper' }).waitFor({ timeout: WAIT });
    await shot('search-shelf-field');
  });

  it('opens a chat, an older version of a document, and a profile from the palette, each in its view', async () => {
    await page.getByTestId('nav-mail').click();
    await openPalette('pistachio');
    const chat = palette().getByTestId('palette-group-chat').getByTestId('palette-hit');
    await expect.poll(() => chat.count(), { timeout: WAIT }).toBeGreaterThanOrEqual(1);
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/chat$/, { timeout: WAIT });
    await expect
      .poll(() => page.getByTestId('conversation').getByTestId('chat-message').allTextContents(), { timeout: WAIT })
      .toEqual([expect.stringContaining('pistachio')]);

    await openPalette('quince');
    const doc = palette().getByTestId('palette-group-document').getByTestId('palette-hit');
    await expect.poll(() => doc.count(), { timeout: WAIT }).toBe(1);
    expect(await doc.getByTestId('hit-context').textContent()).toBe('crew · v1 · older version');
    await page.keyboard.press('Enter');
    // Documents, that document, on the history of the version found.
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: WAIT }).toBe('Pantry budget');
    await expect.poll(() => page.getByTestId('tab-history').getAttribute('aria-selected'), { timeout: WAIT }).toBe('true');
    // Version 1 is the one the keyboard is on; what version 2 did to it is shown (the quince went).
    await expect.poll(() => page.locator('[data-testid="version-row"][data-version="1"]').getAttribute('class'), { timeout: WAIT }).toContain('active');
    expect(await page.getByTestId('diff-from').inputValue()).toBe('1');
    expect(await page.getByTestId('diff-to').inputValue()).toBe('2');
    await expect.poll(() => page.getByTestId('diff').textContent(), { timeout: WAIT }).toContain('quince');
    await shot('search-opened-older-version');

    await openPalette('numbers');
    const profile = palette().getByTestId('palette-group-profile').getByTestId('palette-hit');
    await expect.poll(() => profile.count(), { timeout: WAIT }).toBe(1);
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/shelf$/, { timeout: WAIT });
    await page.getByTestId('profile-pane').getByRole('heading', { name: 'Analyst' }).waitFor({ timeout: WAIT });
  });

  it('renders in dark mode and in a 1024x700 window without sideways scrolling', async () => {
    await emulateColorScheme(page, 'dark');
    await openPalette('contract');
    await palette().getByTestId('palette-group-mail').waitFor({ timeout: WAIT });
    await shot('search-palette-dark');
    await page.keyboard.press('Escape');
    await page.getByTestId('nav-mail').click();
    await page.getByTestId('mail-search').fill('lait');
    await page.getByTestId('mail-search-results').getByTestId('search-hit').first().waitFor({ timeout: WAIT });
    await shot('search-mail-dark');
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1024, height: 700 });
    expect(await overflow()).toEqual({ page: 0, main: 0 });
    await shot('search-mail-1024x700');
    await openPalette('cafe');
    await palette().getByTestId('palette-group-mail').waitFor({ timeout: WAIT });
    expect(await overflow()).toEqual({ page: 0, main: 0 });
    await shot('search-palette-1024x700');
    await page.keyboard.press('Escape');
  });

  it('logged no errors in the browser console', () => {
    // The unclosed quote's 422 is a failed resource load the test provoked; nothing else may show.
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
