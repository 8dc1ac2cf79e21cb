/**
 * Mail that is never lost and says what is true, driven in Debian's Chromium against a real
 * headless node (alice and bob on one node): a draft closed with Esc comes back, across a reload,
 * until sent or discarded; a send the node refused survives a reload and signing in again; a
 * reply starts with the cursor above the quote and is listed by its own words; `carol@beta.test`
 * is offered as `beta.test/carol` in one click; Sent says "Delivered" (what the sender knows)
 * after the recipient deleted the mail; and the mail that opens after an archive or a delete is
 * marked read, as a clicked one is.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, seedIdentities, shot as saveShot, stopRig, type AppRig, actAs as actAsIdentity } from './steps.ts';

const DOMAIN = 'e2e-drafts.test';
const ALICE = `${DOMAIN}/alice`;
const BOB = `${DOMAIN}/bob`;
const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
/** Session keys for the identity API, by name. */
const keys: Record<string, string> = {};

async function api(who: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${node.info.core_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${keys[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} as ${who}: ${response.status} ${text}`);
  return JSON.parse(text);
}

const mailTo = (from: string, to: string, subject: string, body: string): Promise<any> =>
  api(from, 'POST', '/v1/messages', { to_address: `${DOMAIN}/${to}`, subject, body });

const shot = (name: string): Promise<void> => saveShot(page, name);
const modal = () => page.locator('dialog[open]');
const compose = () => modal().getByTestId('compose');
const list = () => page.getByTestId('mail-list');
const row = (subject: string) => list().getByRole('option').filter({ hasText: subject });
const pane = () => page.getByTestId('reading-pane');
const heading = () => pane().getByRole('heading', { level: 2 });
const outbox = () => page.getByTestId('outbox');

const actAs = (name: string): Promise<void> => actAsIdentity(page, `${DOMAIN}/${name}`, WAIT);

/**
 * C, then the compose dialog. On a loaded machine a key pressed while the view still settles (the
 * dialog before it closing) can land before the shortcut listens again: C is pressed again, only
 * while no compose dialog is there, until it shows.
 */
async function openCompose(): Promise<void> {
  await expect
    .poll(
      async () => {
        if ((await compose().count()) === 0) await page.keyboard.press('c');
        return compose().isVisible();
      },
      { timeout: WAIT, interval: 250 },
    )
    .toBe(true);
}

async function closeWithEsc(): Promise<void> {
  await page.keyboard.press('Escape');
  await expect.poll(() => modal().count()).toBe(0);
}

const inboxOf = async (who: string): Promise<any[]> => (await api(who, 'GET', '/v1/messages/inbox?limit=200')).messages;

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-mail',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (n) => {
      Object.assign(keys, (await seedIdentities(n, { domain: DOMAIN, slug: 'drafts', names: ['alice', 'bob'] })).keys);
    },
  });
  ({ node, page } = rig);
  await actAs('alice');
}, 90_000);

afterAll(() => stopRig(rig));

describe('Mail drafts, replies and honest states (headless node, Chromium)', { timeout: 60_000 }, () => {
  it('an empty inbox names the address once in the view; folder names stay on one line (1440, 1200, 900 px; light and dark)', async () => {
    await page.getByTestId('mail-empty').waitFor({ timeout: WAIT });
    const view = page.locator('.mail-view');
    const mentions = async () => (await view.innerText()).split(ALICE).length - 1;
    for (const scheme of ['light', 'dark'] as const) {
      await emulateColorScheme(page, scheme);
      for (const width of [1440, 1200, 900]) {
        await page.setViewportSize({ width, height: 820 });
        expect(await mentions()).toBe(1);
        if (width > 1180) {
          // One line: as tall as the other folders.
          const heights = await Promise.all(['folder-inbox', 'folder-outbound'].map(async (id) => (await page.getByTestId(id).boundingBox())?.height));
          expect(heights[1]).toBe(heights[0]);
          // Nor cut short.
          const label = page.getByTestId('folder-outbound').locator('.folder-label');
          expect(
            await label.evaluate(
              (el) => (el as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth <= (el as unknown as { clientWidth: number }).clientWidth,
            ),
          ).toBe(true);
        }
        await shot(`mail-empty-${width}-${scheme}`);
      }
    }
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1280, height: 820 });
  });

  it('Esc keeps the draft and says so; C brings it back, after a reload too; Discard throws it away', async () => {
    await openCompose();
    const to = compose().getByLabel('To', { exact: true });
    await to.fill(BOB);
    await to.press('Enter');
    await compose().getByLabel('Subject').fill('Plans for Friday');
    await compose().getByLabel('Message').fill('Hi Bob,\n\nAre we still on for Friday?');
    await closeWithEsc();
    const notice = page.getByTestId('mail-notice');
    expect(await notice.textContent()).toContain('Draft kept');
    await shot('mail-draft-kept');

    await openCompose();
    expect(await compose().getByTestId('recipient-chip').getAttribute('title')).toBe(BOB);
    expect(await compose().getByLabel('Subject').inputValue()).toBe('Plans for Friday');
    expect(await compose().getByLabel('Message').inputValue()).toBe('Hi Bob,\n\nAre we still on for Friday?');
    await closeWithEsc();

    await page.reload();
    await page.getByTestId('nav-mail').waitFor({ timeout: WAIT });
    await page.getByTestId('identity-switcher').filter({ hasText: ALICE }).waitFor({ timeout: WAIT });
    await openCompose();
    expect(await compose().getByLabel('Message').inputValue()).toBe('Hi Bob,\n\nAre we still on for Friday?');
    await compose().getByTestId('compose-discard').click();
    await expect.poll(() => modal().count()).toBe(0);
    await openCompose();
    expect(await compose().getByLabel('Message').inputValue()).toBe('');
    expect(await compose().getByTestId('recipient-chip').count()).toBe(0);
    // Nothing written: Esc closes without a word.
    if ((await page.getByTestId('mail-notice').count()) > 0) await page.getByTestId('mail-notice').getByRole('button', { name: 'Dismiss' }).click();
    await closeWithEsc();
    expect(await page.getByTestId('mail-notice').count()).toBe(0);
  });

  it('a send the node refused survives a reload and signing in again, then can be edited', async () => {
    await openCompose();
    const to = compose().getByLabel('To', { exact: true });
    await to.fill(`${DOMAIN}/nobody`);
    await to.press('Enter');
    await compose().getByLabel('Subject').fill('Anyone there?');
    await compose().getByLabel('Message').fill('Hello?');
    await page.keyboard.press('Control+Enter');
    const failed = () => outbox().locator('[data-state="failed"]');
    await failed().waitFor({ timeout: WAIT });

    await page.reload();
    await failed().waitFor({ timeout: WAIT });
    expect(await failed().textContent()).toContain(`Not sent to ${DOMAIN}/nobody`);
    expect(await failed().getByRole('alert').textContent()).toContain('Recipient address not found');

    // Signed out of this browser, then in again with a fresh link.
    await page.getByTestId('nav-settings').click();
    const current = page.locator('[data-testid="session-row"][data-current="true"]');
    await current.getByRole('button', { name: 'Sign out of this browser' }).click();
    await current.getByTestId('session-revoke-confirm').click();
    await page.getByTestId('sign-in').waitFor({ timeout: WAIT });
    const fresh = JSON.parse((await runCli(['ui', '--data', node.dataDir, '--json'])).stdout) as { ui_url: string };
    // A new page load (the link differs from the page shown only in its #fragment).
    await page.goto('about:blank');
    await page.goto(fresh.ui_url);
    await page.getByTestId('nav-mail').click({ timeout: WAIT });
    await actAs('alice');
    await failed().waitFor({ timeout: WAIT });
    await shot('mail-unsent-after-sign-in');

    await failed().getByRole('button', { name: 'Edit' }).click();
    expect(await compose().getByLabel('Subject').inputValue()).toBe('Anyone there?');
    expect(await compose().getByLabel('Message').inputValue()).toBe('Hello?');
    await compose().getByTestId('compose-discard').click();
    await expect.poll(() => failed().count()).toBe(0);
    await page.reload();
    await page.getByTestId('identity-switcher').filter({ hasText: ALICE }).waitFor({ timeout: WAIT });
    await page.getByTestId('mail-empty').waitFor({ timeout: WAIT });
    expect(await outbox().count()).toBe(0);
  });

  it('offers beta.test/carol for carol@beta.test, in one click', async () => {
    await openCompose();
    const to = compose().getByLabel('To', { exact: true });
    await to.fill('carol@beta.test');
    await to.press('Enter');
    expect(await compose().getByRole('alert').first().textContent()).toContain('Did you mean beta.test/carol?');
    await shot('mail-recipient-fix');
    await compose().getByTestId('recipient-fix').click();
    await expect.poll(() => compose().getByTestId('recipient-chip').getAttribute('title')).toBe('beta.test/carol');
    expect(await compose().getByRole('alert').count()).toBe(0);
    expect(await to.inputValue()).toBe('');
    await compose().getByTestId('compose-discard').click();
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('a reply starts above the quote, after a blank line, and is listed by its own words', async () => {
    await mailTo('bob', 'alice', 'Lunch', 'Lunch on Friday?\nBob');
    await row('Lunch').click();
    await expect.poll(() => heading().textContent(), { timeout: WAIT }).toBe('Lunch');
    await page.keyboard.press('r');
    const body = compose().getByLabel('Message');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('compose-body');
    const selection = (el: unknown): number[] => {
      const area = el as { selectionStart: number; selectionEnd: number };
      return [area.selectionStart, area.selectionEnd];
    };
    expect(await body.evaluate(selection)).toEqual([0, 0]);
    await page.keyboard.type('Friday at noon works.');
    await shot('mail-reply-cursor');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => modal().count()).toBe(0);
    await outbox().locator('[data-state="sent"]').waitFor({ timeout: WAIT });

    const reply = async () => (await inboxOf('bob')).find((m) => m.subject === 'Re: Lunch');
    await expect
      .poll(async () => (await reply())?.body ?? '', { timeout: WAIT })
      .toMatch(/^Friday at noon works\.\n\nOn .+, bob wrote:\n> Lunch on Friday\?\n> Bob$/);
    await actAs('bob');
    await expect.poll(() => row('Re: Lunch').textContent(), { timeout: WAIT }).toContain('Friday at noon works.');
    expect(await row('Re: Lunch').textContent()).not.toContain('wrote:');
  });

  it('Sent says "Delivered" after the recipient deleted the mail, not where it is now', async () => {
    // Bob mails alice, who deletes it.
    const sentMail = await mailTo('bob', 'alice', 'Status check', 'Did it arrive?');
    await api('alice', 'DELETE', `/v1/messages/${sentMail.message_id}`);
    if ((await page.getByTestId('identity-switcher').filter({ hasText: BOB }).count()) === 0) await actAs('bob');
    await page.getByTestId('folder-sent').click();
    const sentRow = page.getByTestId('sent-list').getByRole('option').filter({ hasText: 'Status check' });
    await sentRow.waitFor({ timeout: WAIT });
    const badge = sentRow.getByTestId('sent-status');
    expect(await badge.textContent()).toBe('Delivered');
    const hint = (await badge.getAttribute('title')) ?? '';
    expect(hint).toContain('Delivered to');
    expect(hint).not.toContain('inbox');
    await sentRow.click();
    const sentPane = page.getByTestId('sent-pane');
    await sentPane.waitFor({ timeout: WAIT });
    expect(await sentPane.getByTestId('sent-pane-status').textContent()).toContain('Delivered');
    expect(await sentPane.textContent()).not.toContain('inbox');
    await page.getByTestId('folder-inbox').click();
  });

  it('after an archive or a delete, the mail that opens next is marked read, as a clicked one is', async () => {
    await actAs('alice');
    await page.getByTestId('folder-inbox').click();
    for (const subject of ['Next A', 'Next B', 'Next C', 'Next D']) await mailTo('bob', 'alice', subject, `About ${subject}.`);
    await expect.poll(() => list().getByRole('option').filter({ hasText: 'Next' }).count(), { timeout: WAIT }).toBe(4);
    await row('Next D').click();
    await expect.poll(() => heading().textContent(), { timeout: WAIT }).toBe('Next D');
    await pane().getByTestId('read-state').waitFor({ timeout: WAIT });

    const readAt = async (subject: string) => (await inboxOf('alice')).find((m) => m.subject === subject)?.read_at ?? null;
    // Archived (E): the next opens, and is read at the node after the same second a click takes. The
    // notice floats over the list: the list does not move.
    const top = async () => (await list().boundingBox())?.y;
    const before = await top();
    await page.keyboard.press('e');
    await page.getByTestId('mail-notice').waitFor({ timeout: WAIT });
    expect(await top()).toBe(before);
    for (const scheme of ['light', 'dark'] as const) {
      await emulateColorScheme(page, scheme);
      await shot(`mail-archived-notice-${scheme}`);
    }
    await emulateColorScheme(page, 'light');
    // Which one opens is the list's order (mail of the same second keeps its arrival order).
    await expect.poll(() => heading().textContent(), { timeout: WAIT }).not.toBe('Next D');
    const afterArchive = (await heading().textContent()) ?? '';
    await expect.poll(() => readAt(afterArchive), { timeout: WAIT }).not.toBeNull();
    await expect.poll(() => row(afterArchive).locator('.unread').count(), { timeout: WAIT }).toBe(0);

    // Deleted (#, confirmed): the next opens, and is read too.
    await page.keyboard.press('#');
    await modal().getByTestId('delete-mail-dialog').waitFor({ timeout: WAIT });
    await page.keyboard.press('Enter');
    await expect.poll(() => modal().count()).toBe(0);
    await expect.poll(() => heading().textContent(), { timeout: WAIT }).not.toBe(afterArchive);
    const afterDelete = (await heading().textContent()) ?? '';
    await expect.poll(() => readAt(afterDelete), { timeout: WAIT }).not.toBeNull();
    await expect.poll(() => row(afterDelete).locator('.unread').count(), { timeout: WAIT }).toBe(0);
  });

  it('quick triage: a mail archived or deleted before it was read; the one that opens next is marked read', async () => {
    for (const subject of ['Quick A', 'Quick B', 'Quick C']) await mailTo('bob', 'alice', subject, `About ${subject}.`);
    await expect.poll(() => list().getByRole('option').filter({ hasText: 'Quick' }).count(), { timeout: WAIT }).toBe(3);
    const readAt = async (subject: string) => (await inboxOf('alice')).find((m) => m.subject === subject)?.read_at ?? null;
    await row('Quick C').click();
    await expect.poll(() => heading().textContent(), { timeout: WAIT }).toBe('Quick C');
    await list().press('Enter');
    await page.keyboard.press('e');
    await expect.poll(() => heading().textContent(), { timeout: WAIT }).not.toBe('Quick C');
    const afterArchive = (await heading().textContent()) ?? '';
    await expect.poll(() => readAt(afterArchive), { timeout: WAIT }).not.toBeNull();
    await pane().getByTestId('delete').click();
    await modal().getByTestId('confirm-delete-mail').click();
    await expect.poll(() => heading().textContent(), { timeout: WAIT }).not.toBe(afterArchive);
    const afterDelete = (await heading().textContent()) ?? '';
    await expect.poll(() => readAt(afterDelete), { timeout: WAIT }).not.toBeNull();
    await expect.poll(() => row(afterDelete).locator('.unread').count(), { timeout: WAIT }).toBe(0);
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
