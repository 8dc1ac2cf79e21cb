/**
 * Mail in a window narrower than 1000 px, driven in Debian's Chromium against a real headless node:
 * one pane at a time, as Chat, the Shelf and Documents do. The folders and the list, or the open
 * message alone with a Back control; a click or Enter opens, Esc or Back returns to the list with
 * the keyboard in it; j/k move on from the open message (the pane follows) and through the list
 * (which stays shown); a message passed over in the list is not marked read, one opened is;
 * compose and send still work; Sent and "Sent to other nodes" the same way. At 1200 and 1440 px
 * the three panes stay side by side. Screenshots at the three widths, light and dark.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, seedIdentities, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const DOMAIN = 'one-pane-e2e.test';
const WAIT = 15_000;
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 900, height: 700 };
const SIZES = [WIDE, { width: 1200, height: 800 }, NARROW];

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
const keys: Record<string, string> = {};

async function api(as: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${node.info.core_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${keys[as]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} as ${as}: ${response.status} ${text}`);
  return JSON.parse(text);
}

const mail = (from: string, to: string, subject: string): Promise<any> =>
  api(from, 'POST', '/v1/messages', { to_address: to.includes('/') ? to : `${DOMAIN}/${to}`, subject, body: `About ${subject}.` });

const shot = (name: string): Promise<void> => saveShot(page, name);
const modal = () => page.locator('dialog[open]');
const list = () => page.getByTestId('mail-list');
const row = (subject: string) => list().getByRole('option').filter({ hasText: subject });
const reading = () => page.getByTestId('reading-pane');
const back = () => page.getByTestId('pane-back');
const visible = (testid: string): Promise<boolean> => page.getByTestId(testid).isVisible();
const focused = (): Promise<string | null> => page.evaluate("document.activeElement?.getAttribute('data-testid') ?? null") as Promise<string | null>;
const subjectShown = () => reading().getAttribute('aria-label');

/** Whether alice's copy of the mail with this subject is read, as the node says. */
async function readAtNode(subject: string): Promise<boolean> {
  const inbox = await api('alice', 'GET', '/v1/messages/inbox?limit=50');
  const found = (inbox.messages as { subject: string; read_at: string | null }[]).find((m) => m.subject === subject);
  if (found === undefined) throw new Error(`no mail "${subject}" in alice's inbox`);
  return found.read_at !== null;
}

/** The list shown, the reading pane not: the one-pane list. */
async function expectList(listTestid = 'mail-list'): Promise<void> {
  await expect.poll(() => visible(listTestid), { timeout: WAIT }).toBe(true);
  expect(await page.getByTestId('folder-inbox').isVisible()).toBe(true);
  expect(await page.locator('.reading-pane').isVisible()).toBe(false);
  expect(await back().isVisible()).toBe(false);
}

/** The open item alone, with the way back. */
async function expectDetail(paneTestid = 'reading-pane', listTestid = 'mail-list'): Promise<void> {
  await expect.poll(() => visible(paneTestid), { timeout: WAIT }).toBe(true);
  expect(await visible(listTestid)).toBe(false);
  expect(await page.getByTestId('folder-inbox').isVisible()).toBe(false);
  expect(await back().isVisible()).toBe(true);
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-mail',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => {
      node = started;
      Object.assign(keys, (await seedIdentities(node, { domain: DOMAIN, slug: 'panes', names: ['alice', 'bob'] })).keys);
      // Alice's inbox, newest first: Delta, Gamma, Beta, Alpha; her Sent; mail to another node.
      for (const subject of ['Alpha', 'Beta', 'Gamma', 'Delta']) await mail('bob', 'alice', subject);
      await mail('alice', 'bob', 'Sent One');
      await mail('alice', 'far-away.example/zoe', 'Far One');
    },
  });
  ({ page } = rig);
  await page.getByTestId('identity-switcher').click();
  await page
    .getByTestId('identity-switcher-menu')
    .getByRole('option')
    .filter({ hasText: `${DOMAIN}/alice` })
    .click();
  await page
    .getByTestId('identity-switcher')
    .filter({ hasText: `${DOMAIN}/alice` })
    .waitFor({ timeout: WAIT });
  await page.setViewportSize(NARROW);
}, 90_000);

afterAll(() => stopRig(rig));

describe('Mail one pane at a time below 1000 px (headless node, Chromium)', { timeout: 45_000 }, () => {
  it('shows the folders and the list; a click opens the message alone, Back returns to the list', async () => {
    await page.getByTestId('folder-inbox').click();
    await row('Delta').waitFor({ timeout: WAIT });
    await expectList();
    await row('Gamma').click();
    await expectDetail();
    await expect.poll(subjectShown, { timeout: WAIT }).toBe('Message: Gamma');
    expect(await back().getAttribute('aria-label')).toBe('Back to Inbox');
    await back().click();
    await expectList();
    // The message picked is still the list's.
    expect(await row('Gamma').getAttribute('aria-selected')).toBe('true');
  });

  it('keyboard: j/k move through the list (which stays), Enter opens, j moves on in the message, Esc comes back', async () => {
    await list().focus();
    await page.keyboard.press('j');
    expect(await row('Beta').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('k');
    expect(await row('Delta').getAttribute('aria-selected')).toBe('true');
    await expectList();
    await page.keyboard.press('Enter');
    await expectDetail();
    await expect.poll(subjectShown, { timeout: WAIT }).toBe('Message: Delta');
    // From the open message, j moves on and the pane follows, still alone.
    await page.keyboard.press('j');
    await expect.poll(subjectShown, { timeout: WAIT }).toBe('Message: Gamma');
    await expectDetail();
    await page.keyboard.press('Escape');
    await expectList();
    expect(await focused()).toBe('mail-list');
    expect(await row('Gamma').getAttribute('aria-selected')).toBe('true');
  });

  it('a message passed over in the list stays unread; it is read once it is opened', async () => {
    // Alpha, never opened: the list's cursor rests on it well past the second that marks read.
    await page.keyboard.press('End');
    expect(await row('Alpha').getAttribute('aria-selected')).toBe('true');
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(await readAtNode('Alpha')).toBe(false);
    expect(await row('Alpha').locator('.inbox-row.unread').count()).toBe(1);
    await page.keyboard.press('Enter');
    await expectDetail();
    await expect.poll(() => readAtNode('Alpha'), { timeout: WAIT }).toBe(true);
    await page.keyboard.press('Escape');
    await expectList();
  });

  it('screenshots: the list and the open message at 900 px, and three panes at 1200 and 1440, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await emulateColorScheme(page, scheme);
      for (const size of SIZES) {
        await page.setViewportSize(size);
        if (size.width >= 1000) {
          // Both panes fit: folders, list and message side by side, no Back.
          await expect.poll(() => visible('mail-list'), { timeout: WAIT }).toBe(true);
          expect(await reading().isVisible()).toBe(true);
          expect(await back().isVisible()).toBe(false);
          await shot(`mail-one-pane-${size.width}-${scheme}`);
          continue;
        }
        await expectList();
        await shot(`mail-one-pane-list-${size.width}-${scheme}`);
        await row('Beta').click();
        await expectDetail();
        await shot(`mail-one-pane-open-${size.width}-${scheme}`);
        await back().click();
        await expectList();
      }
    }
    await emulateColorScheme(page, 'light');
    await page.setViewportSize(NARROW);
  });

  it('compose works from the one-pane list and from an open message (reply)', async () => {
    await page.keyboard.press('c');
    const compose = modal().getByTestId('compose');
    await compose.waitFor({ timeout: WAIT });
    const to = compose.getByLabel('To', { exact: true });
    await to.fill(`${DOMAIN}/bob`);
    await to.press('Enter');
    await compose.getByLabel('Subject').fill('Narrow hello');
    await compose.getByLabel('Message').fill('Written at 900 px.');
    await compose.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    await expect
      .poll(
        async () => ((await api('bob', 'GET', '/v1/messages/inbox?limit=50')).messages as { subject: string }[]).some((m) => m.subject === 'Narrow hello'),
        {
          timeout: WAIT,
        },
      )
      .toBe(true);

    await row('Gamma').click();
    await expectDetail();
    await page.keyboard.press('r');
    await modal().getByTestId('compose').waitFor({ timeout: WAIT });
    expect(await modal().getByLabel('Subject').inputValue()).toBe('Re: Gamma');
    await shot('mail-one-pane-reply-900');
    await modal().getByTestId('compose-discard').click();
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    await expectDetail();
    await back().click();
    await expectList();
  });

  it('archive from the open message: the next one opens alone, and the notice with Undo shows over it', async () => {
    await row('Beta').click();
    await expectDetail();
    await page.keyboard.press('e');
    await expect.poll(subjectShown, { timeout: WAIT }).toBe('Message: Alpha');
    await expectDetail();
    const notice = page.getByTestId('mail-notice');
    await expect.poll(() => notice.isVisible(), { timeout: WAIT }).toBe(true);
    expect(await notice.getByTestId('undo').isVisible()).toBe(true);
    await shot('mail-one-pane-archived-900');
    const inInbox = async (subject: string): Promise<boolean> =>
      ((await api('alice', 'GET', '/v1/messages/inbox?limit=50')).messages as { subject: string }[]).some((m) => m.subject === subject);
    expect(await inInbox('Beta')).toBe(false);
    await page.keyboard.press('z');
    await expect.poll(() => inInbox('Beta'), { timeout: WAIT }).toBe(true);
    await back().click();
    await expectList();
    await row('Beta').waitFor({ timeout: WAIT });
  });

  it('Sent and Sent to other nodes: one pane too, Enter opens, Esc and Back return', async () => {
    await page.getByTestId('folder-sent').click();
    await page.getByTestId('sent-list').waitFor({ timeout: WAIT });
    await expectList('sent-list');
    await page.getByTestId('sent-list').getByRole('option').filter({ hasText: 'Sent One' }).click();
    await expectDetail('sent-pane', 'sent-list');
    expect(await back().getAttribute('aria-label')).toBe('Back to Sent');
    await page.keyboard.press('Escape');
    await expectList('sent-list');
    expect(await focused()).toBe('sent-list');

    await page.getByTestId('folder-outbound').click();
    await page.getByTestId('outbound-list').waitFor({ timeout: WAIT });
    await expectList('outbound-list');
    await page.getByTestId('outbound-list').focus();
    await page.keyboard.press('j');
    await expectList('outbound-list');
    await page.keyboard.press('Enter');
    await expectDetail('outbound-pane', 'outbound-list');
    expect(await page.getByTestId('outbound-pane').getAttribute('aria-label')).toBe('Sent to another node: Far One');
    await back().click();
    await expectList('outbound-list');
    await page.getByTestId('folder-inbox').click();
    await row('Delta').waitFor({ timeout: WAIT });
  });

  it('widening the window with a message open shows the three panes again', async () => {
    await row('Delta').click();
    await expectDetail();
    await page.setViewportSize(WIDE);
    await expect.poll(() => visible('mail-list'), { timeout: WAIT }).toBe(true);
    expect(await reading().isVisible()).toBe(true);
    expect(await subjectShown()).toBe('Message: Delta');
    await page.setViewportSize(NARROW);
    await expectDetail();
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
