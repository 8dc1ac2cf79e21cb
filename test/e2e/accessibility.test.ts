/**
 * An automated accessibility check of every view, in Debian's Chromium against a real headless
 * node with a little of everything in it: axe-core (the engine behind most accessibility
 * checkers) runs on the whole page of the setup screen, the sign-in screen, Mail with a mail open,
 * Sent, Chat with a conversation open, Documents with a document open, the Shelf with a blueprint
 * open, Identities, Teams and Settings, and on the compose dialog, the command palette and the
 * shortcuts sheet, each in the light and the dark theme. No violation of impact "serious" or
 * "critical" may be found (contrast, names of controls, roles, labels…), nor an ARIA attribute axe
 * cannot vouch for; the failure lists each rule, its help and the elements it found, so it says
 * what to fix.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations, settled } from './axe.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, seedTeamViews, shot, stopRig, type AppRig } from './steps.ts';

const WAIT = 15_000;
const THEMES = ['light', 'dark'] as const;
const SUBJECT = 'Notes from Tuesday';

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];

/** The view named `name` once `ready` shows, in both themes: no serious or critical violation. */
async function audit(name: string, ready: () => Promise<void>, target: Page = page): Promise<void> {
  const found: string[] = [];
  for (const theme of THEMES) {
    await emulateColorScheme(target, theme);
    await ready();
    await settled(target);
    found.push(...(await seriousViolations(target)).map((line) => `${name}, ${theme}: ${line}`));
  }
  await emulateColorScheme(target, 'light');
  expect(found, `accessibility of ${name}`).toEqual([]);
}

const modal = () => page.locator('dialog[open]');

beforeAll(async () => {
  rig = await openAppOnNode({ section: 'setup', sink: consoleErrors, timeout: WAIT });
  ({ node, page } = rig);
}, 90_000);

afterAll(() => stopRig(rig));

describe('No serious accessibility violations in any view, light and dark (axe-core, headless node, Chromium)', { timeout: 120_000 }, () => {
  it('the setup screen', async () => {
    await page.getByTestId('setup-name').fill('alice');
    await audit('setup', () => page.getByTestId('setup').waitFor({ timeout: WAIT }));
    await page.getByTestId('setup-submit').click();
    await page.waitForURL(/#\/mail$/, { timeout: WAIT });
  });

  it('the sign-in screen (a used sign-in link)', async () => {
    const other = await rig!.browser.newContext({ colorScheme: 'light', reducedMotion: 'reduce' });
    try {
      const visitor = await other.newPage();
      await visitor.goto(node.info.ui_url);
      await audit('sign-in', () => visitor.getByTestId('sign-in-reason').waitFor({ timeout: WAIT }), visitor);
    } finally {
      await other.close();
    }
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
      return response.json() as Promise<{ session_id: string }>;
    };
    await asBob('/v1/messages', { to_address: setUp.address, subject: SUBJECT, body: 'The tunnel works; next, the shelf.', priority: 'normal' });
    const chat = await asBob('/v1/chat/sessions', { to_addresses: [setUp.address], message: 'Are you free to look at the memo?' });
    await asBob(`/v1/chat/sessions/${chat.session_id}/messages`, { body: 'The shelf part is short.' });
    await seedTeamViews(node);
    await page.reload();
    await page.getByTestId('nav-mail').waitFor({ timeout: WAIT });
  });

  it('Mail with a mail open', async () => {
    await page.getByTestId('nav-mail').click();
    await page.getByText(SUBJECT).first().click();
    await audit('mail', () => page.getByTestId('reading-pane').waitFor({ timeout: WAIT }));
  });

  it('the compose dialog', async () => {
    await page.getByTestId('compose-button').click();
    await modal().getByTestId('compose').waitFor({ timeout: WAIT });
    await modal().getByLabel('Subject').fill('Plans');
    await audit('compose', () => modal().getByTestId('compose').waitFor({ timeout: WAIT }));
    await modal().getByLabel('To', { exact: true }).fill('bob');
    await modal().getByLabel('Message').fill('The plan is ready.');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('Sent', async () => {
    await page.getByTestId('folder-sent').click();
    await audit('sent', () => page.getByTestId('sent-list').getByRole('option').first().waitFor({ timeout: WAIT }));
  });

  it('Chat with a conversation open', async () => {
    await page.getByTestId('nav-chat').click();
    await page.getByTestId('session-list').getByText('bob').first().click();
    await audit('chat', () => page.getByTestId('messages').getByText('The shelf part is short.').waitFor({ timeout: WAIT }));
  });

  it('Documents with a document open', async () => {
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('document-row').first().click();
    await audit('documents', () => page.locator('.cm-editor').first().waitFor({ timeout: WAIT }));
  });

  it('the Shelf with a blueprint of the catalog open', async () => {
    await page.getByTestId('nav-shelf').click();
    await page.getByTestId('catalog-entry').click();
    await page
      .locator('[data-ref="svc-node.code-review"]')
      .getByRole('button', { name: /Code review desk/ })
      .click();
    await audit('shelf', () => page.locator('[data-ref="svc-node.code-review"] [data-profile="code-reviewer"]').waitFor({ timeout: WAIT }));
  });

  it('Identities', async () => {
    await page.getByTestId('nav-identities').click();
    await audit('identities', () => page.getByTestId('identity-list').waitFor({ timeout: WAIT }));
  });

  it('Teams', async () => {
    await page.getByTestId('nav-teams').click();
    await audit('teams', () => page.getByTestId('invite-list').waitFor({ timeout: WAIT }));
    // The rows' Revoke and Cancel, drawn as before though no controls of their own.
    await shot(page, 'accessibility-teams');
  });

  it('Settings', async () => {
    await page.getByTestId('nav-settings').click();
    await audit('settings', () => page.getByTestId('data-dir').waitFor({ timeout: WAIT }));
  });

  it('the command palette with commands and hits', async () => {
    await page.getByTestId('nav-mail').click();
    await page.keyboard.press('Control+k');
    await page.getByTestId('palette-input').fill('shelf');
    await audit('palette', () => page.getByTestId('palette-group-mail').waitFor({ timeout: WAIT }));
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('the shortcuts sheet', async () => {
    // `?` types in a field: from the page itself it opens the sheet.
    await page.evaluate('document.activeElement?.blur()');
    await page.keyboard.press('?');
    await audit('shortcuts', () => page.getByTestId('shortcuts-sheet').waitFor({ timeout: WAIT }));
    await page.keyboard.press('Escape');
  });

  it('left no unexpected console errors', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
