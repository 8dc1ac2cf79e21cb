/**
 * Every view as a person sees it, in Debian's Chromium against a real headless node with a little
 * of everything in it: the setup flow (on the empty node), then Mail, Chat, Documents, Shelf,
 * Identities, Teams and Settings, and search (Mail's field, the command palette with hits), each at
 * 1440x900, 1200x800 and 900x700, light and dark; then the same views with an item open (a mail, a
 * chat, a document, a blueprint of the catalog) and a tall dialog. Each is saved as
 * test/e2e/screenshots/view-<name>-<width>-<theme>.png (look at them), and nothing may scroll
 * sideways: neither the page nor the main pane is wider than the window. The sidebar keeps its
 * labels only where there is room for them (1280 px and up); below, its icons.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, seedTeamViews, shot, stopRig, type AppRig } from './steps.ts';

const WAIT = 15_000;
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1200, height: 800 },
  { width: 900, height: 700 },
] as const;
const THEMES = ['light', 'dark'] as const;
const SUBJECT = 'Notes from Tuesday';

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];

/** Two animation frames: the layout after a resize or a theme change has been painted. */
const settled = () => page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');

/** How far the page, and the main pane, reach past the window's width (strings: no DOM types here). */
const overflow = async () => ({
  page: await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
  main: await page.evaluate("(() => { const main = document.querySelector('main'); return main ? main.scrollWidth - main.clientWidth : 0; })()"),
});

/** The sidebar's width and whether its labels are drawn (they stay readable to screen readers either way). */
const sidebar = async () => ({
  width: await page.evaluate("Math.round(document.querySelector('aside.sidebar').getBoundingClientRect().width)"),
  labelsShown: await page.evaluate("document.querySelector('.sidebar .nav-entry-label').getBoundingClientRect().width > 1"),
});

/** The view at every size and theme: screenshot, and no sideways scrolling. */
async function everySizeAndTheme(name: string, ready: () => Locator): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      await ready().waitFor({ timeout: WAIT });
      await settled();
      expect(await page.evaluate('document.documentElement.dataset.theme'), `${name} ${theme}`).toBe(theme);
      expect(await overflow(), `${name} at ${size.width}px, ${theme}`).toEqual({ page: 0, main: 0 });
      if (name !== 'setup') {
        expect(await sidebar(), `the sidebar at ${size.width}px`).toEqual(
          size.width >= 1280 ? { width: 240, labelsShown: true } : { width: 56, labelsShown: false },
        );
      }
      await shot(page, `view-${name}-${size.width}-${theme}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(SIZES[0]);
}

beforeAll(async () => {
  rig = await openAppOnNode({ section: 'setup', sink: consoleErrors, timeout: WAIT });
  ({ node, page } = rig);
}, 90_000);

afterAll(() => stopRig(rig));

describe('Every view at three widths, light and dark (headless node, Chromium)', { timeout: 120_000 }, () => {
  it('the setup flow', async () => {
    await page.getByTestId('setup-name').fill('alice');
    await everySizeAndTheme('setup', () => page.getByTestId('setup'));
    await page.getByTestId('setup-submit').click();
    await page.waitForURL(/#\/mail$/, { timeout: WAIT });
  });

  it('has something in every view', async () => {
    const setUp = (await node.owner('GET', '/v1/node/identities')).identities[0];
    const bob = await node.owner('POST', '/v1/node/identities', { project_id: setUp.project_id, name: 'bob' });
    const asBob = async (path: string, body: unknown) => {
      const response = await fetch(`${node.info.core_url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bob.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
    };
    await asBob('/v1/messages', { to_address: setUp.address, subject: SUBJECT, body: 'The tunnel works; next, the shelf.', priority: 'normal' });
    const chat = await (async () => {
      const response = await fetch(`${node.info.core_url}/v1/chat/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bob.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to_addresses: [setUp.address], message: 'Are you free to look at the memo?' }),
      });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
      return (await response.json()) as { session_id: string };
    })();
    // A few in a row from one sender: the trust chips show once, not on every bubble.
    for (const body of ['It is the one from Tuesday.', 'The shelf part is short.']) {
      await asBob(`/v1/chat/sessions/${chat.session_id}/messages`, { body });
    }
    await seedTeamViews(node);
    await page.reload();
    await page.getByTestId('nav-mail').waitFor({ timeout: WAIT });
  });

  it('Mail', async () => {
    await page.getByTestId('nav-mail').click();
    await everySizeAndTheme('mail', () => page.getByText(SUBJECT).first());
  });

  it('Chat', async () => {
    await page.getByTestId('nav-chat').click();
    await everySizeAndTheme('chat', () => page.getByTestId('session-list'));
  });

  it('Documents', async () => {
    await page.getByTestId('nav-documents').click();
    // Below 1000 px Documents shows one pane: the open document (with a way back to the list).
    await everySizeAndTheme('documents', () => page.locator('[data-testid="document-list"]:visible, .cm-editor:visible').first());
  });

  it('Shelf', async () => {
    await page.getByTestId('nav-shelf').click();
    // Below 1000 px the Shelf shows one pane: its catalog (with a way back to the list).
    await everySizeAndTheme('shelf', () => page.locator('[data-testid="shelf-list"]:visible, [data-testid="blueprint-list"]:visible').first());
  });

  it('Identities', async () => {
    await page.getByTestId('nav-identities').click();
    await everySizeAndTheme('identities', () => page.getByTestId('identity-list'));
  });

  it('Teams', async () => {
    await page.getByTestId('nav-teams').click();
    await everySizeAndTheme('teams', () => page.getByTestId('invite-list'));
  });

  it('Settings', async () => {
    await page.getByTestId('nav-settings').click();
    await everySizeAndTheme('settings', () => page.getByTestId('data-dir'));
  });

  it('Search: Mail’s search field with a hit, and the command palette with commands and hits', async () => {
    await page.getByTestId('nav-mail').click();
    await page.getByTestId('mail-search').fill('tunnel');
    await everySizeAndTheme('mail-search', () => page.getByTestId('mail-search-results').getByTestId('search-hit').first());
    await page.getByTestId('mail-search').press('Escape');
    await page.keyboard.press('Control+k');
    // "shelf": the Go to command, and the mail that mentions it.
    await page.getByTestId('palette-input').fill('shelf');
    await everySizeAndTheme('palette-search', () => page.getByTestId('palette-group-mail'));
    await page.keyboard.press('Escape');
  });

  it('Mail with a message open', async () => {
    await page.getByTestId('nav-mail').click();
    await page.getByText(SUBJECT).first().click();
    await everySizeAndTheme('mail-open', () => page.getByTestId('reading-pane'));
  });

  it('Chat with a conversation open', async () => {
    await page.getByTestId('nav-chat').click();
    await page.getByTestId('session-list').getByText('bob').first().click();
    await everySizeAndTheme('chat-open', () => page.getByTestId('messages').getByText('The shelf part is short.'));
    // One sender, three messages in a row: the sender's trust shows once.
    expect(await page.getByTestId('messages').getByTestId('signature-badge').count()).toBe(1);
    // Below 1000 px: the conversation alone, with a way back to the list (which closes it).
    await page.setViewportSize(SIZES[2]);
    expect(await page.getByTestId('session-list').isVisible()).toBe(false);
    await page.getByTestId('pane-back').click();
    await page.getByTestId('session-list').waitFor({ timeout: WAIT });
    expect(await page.getByTestId('messages').count()).toBe(0);
    await page.setViewportSize(SIZES[1]);
    expect(await page.getByTestId('pane-back').isVisible()).toBe(false);
    await page.setViewportSize(SIZES[0]);
  });

  it('Documents with a document open', async () => {
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('document-row').first().click();
    await everySizeAndTheme('documents-open', () => page.locator('.cm-editor').first());
    // Below 1000 px: the document alone, Back to the list, and picking it again opens it.
    await page.setViewportSize(SIZES[2]);
    expect(await page.getByTestId('document-list').isVisible()).toBe(false);
    await page.getByTestId('pane-back').click();
    await page.getByTestId('document-row').first().click();
    await page.locator('.cm-editor').first().waitFor({ timeout: WAIT });
    expect(await page.getByTestId('document-list').isVisible()).toBe(false);
    await page.setViewportSize(SIZES[0]);
  });

  it('Shelf with the public catalog and a sample blueprint open', async () => {
    await page.getByTestId('nav-shelf').click();
    await page.getByTestId('catalog-entry').click();
    await page
      .locator('[data-ref="svc-node.code-review"]')
      .getByRole('button', { name: /Code review desk/ })
      .click();
    await everySizeAndTheme('shelf-catalog', () => page.locator('[data-ref="svc-node.code-review"] [data-profile="code-reviewer"]'));
  });

  it('a tall dialog: its body scrolls inside the rounded frame, under a head that stays', async () => {
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('open-theme').click();
    const dialog = page.locator('dialog[open]');
    await everySizeAndTheme('dialog-theme', () => dialog);
    await page.setViewportSize(SIZES[2]);
    await settled();
    const frame = await page.evaluate(
      "(() => { const d = document.querySelector('dialog[open]'); return { scrolls: d.scrollHeight > d.clientHeight, overflow: getComputedStyle(d).overflowY }; })()",
    );
    expect(frame).toEqual({ scrolls: false, overflow: 'hidden' });
    await page.keyboard.press('Escape');
    await page.setViewportSize(SIZES[0]);
  });

  it('left no unexpected console errors', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
