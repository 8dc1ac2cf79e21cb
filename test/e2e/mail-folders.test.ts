/**
 * Mail a daily user expects, driven in Debian's Chromium against a real headless node:
 * Sent (local and to another node, with delivery states), Markdown bodies rendered by the node
 * (sanitised; links open outside the app; no outside images) with a remembered "Plain text"
 * toggle, archive (E) with Undo (Z), the Archive folder and back to the inbox, mark unread (U),
 * delete (#) behind a confirmation that says what happens, j/k from the reading pane, tooltips
 * naming the shortcuts, and a virtual list that keeps the DOM small while 1,200 messages page in
 * from the node as it scrolls. Screenshots at 1440, 1200 and 900 px in light and dark.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWindow, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { seedIdentities, shot as saveShot, startRig, stopRig, type Rig, actAs as actAsIdentity } from './steps.ts';

const DOMAIN = 'e2e-folders.test';
const WAIT = 15_000;
const BULK = 1200;

let rig: Rig | undefined;
let node: HeadlessNode;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
/** Session keys for the identity API, by name. */
const keys: Record<string, string> = {};
const agents: Record<string, string> = {};

const MARKDOWN = [
  '# Launch plan',
  '',
  'The **numbers** are in; see [the dashboard](https://example.com/dash) or mail [ops](mailto:ops@example.com).',
  '',
  '- ship on *Friday*',
  '- tell the [team](#/settings)',
  '',
  '![tracking pixel](https://tracker.example/pixel.png)',
  '',
  '<script>alert("x")</script>',
  '',
  '> quoted advice',
  '',
  '```',
  'npm run release',
  '```',
].join('\n');

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

const actAs = (name: string): Promise<void> => actAsIdentity(page, `${DOMAIN}/${name}`, WAIT);

const list = () => page.getByTestId('mail-list');
const row = (subject: string) => list().getByRole('option').filter({ hasText: subject });
const pane = () => page.getByTestId('reading-pane');
const body = () => page.getByTestId('mail-body');
const modal = () => page.locator('dialog[open]');
const heading = () => pane().getByRole('heading', { level: 2 });

beforeAll(async () => {
  rig = await startRig();
  node = rig.node;
  const seeded = await seedIdentities(node, { domain: DOMAIN, slug: 'folders', names: ['alice', 'bob', 'bulk', 'robot'] });
  Object.assign(agents, seeded.agents);
  Object.assign(keys, seeded.keys);
  // Bob's inbox: a few plain messages, then the Markdown one on top.
  for (const subject of ['Lunch on Thursday?', 'Invoice 2231', 'Minutes of the review']) await mailTo('alice', 'bob', subject, `About: ${subject}.`);
  await mailTo('alice', 'bob', 'Launch plan', MARKDOWN);
  // Bulk's inbox: 1,200 messages from a robot, eight sends at a time.
  for (let start = 0; start < BULK; start += 8) {
    await Promise.all(Array.from({ length: Math.min(8, BULK - start) }, (_, i) => mailTo('robot', 'bulk', `Bulk #${String(start + i).padStart(4, '0')}`, 'x')));
  }

  context = await rig.browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light', reducedMotion: 'reduce' });
  page = await openWindow(context, node.info.ui_url, { section: 'nav-mail', sink: consoleErrors, timeout: WAIT });
}, 180_000);

afterAll(() => stopRig(rig));

describe('Mail folders, Markdown and keyboard (headless node, Chromium)', { timeout: 60_000 }, () => {
  it('renders a Markdown body sanitised by the node: formatting, outside links that open elsewhere, no images, no script', async () => {
    await actAs('bob');
    await page.getByTestId('nav-mail').click();
    await row('Launch plan').click();
    await expect.poll(() => body().getAttribute('data-format'), { timeout: WAIT }).toBe('rendered');
    expect(await body().getByRole('heading', { level: 1 }).textContent()).toBe('Launch plan');
    expect(await body().locator('strong').textContent()).toBe('numbers');
    expect(await body().locator('li').allTextContents()).toEqual(['ship on Friday', 'tell the team']);
    expect(await body().locator('blockquote').textContent()).toContain('quoted advice');
    expect(await body().locator('pre').textContent()).toContain('npm run release');
    const dash = body().getByRole('link', { name: 'the dashboard' });
    expect(await dash.getAttribute('href')).toBe('https://example.com/dash');
    expect(await dash.getAttribute('target')).toBe('_blank');
    expect(await dash.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await body().getByRole('link', { name: 'ops' }).getAttribute('href')).toBe('mailto:ops@example.com');
    // A same-page link would move the app itself: it is left as text.
    expect(await body().getByRole('link', { name: 'team' }).count()).toBe(0);
    // No image from outside, no script: the alt text and the escaped tag are text.
    expect(await body().locator('img, script').count()).toBe(0);
    expect(await body().textContent()).toContain('tracking pixel');
    expect(await body().textContent()).toContain('<script>alert("x")</script>');
    await shot('mail-markdown-light');
  });

  it('"Plain text" shows the text as written, and is remembered after a reload', async () => {
    const toggle = page.getByTestId('plain-toggle');
    expect(await toggle.getAttribute('title')).toContain('(P)');
    await toggle.click();
    await expect.poll(() => body().getAttribute('data-format')).toBe('plain');
    expect(await body().textContent()).toBe(MARKDOWN);
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');

    await page.reload();
    await row('Launch plan').click();
    await expect.poll(() => body().getAttribute('data-format'), { timeout: WAIT }).toBe('plain');
    await page.keyboard.press('p');
    await expect.poll(() => body().getAttribute('data-format'), { timeout: WAIT }).toBe('rendered');
  });

  it('names the shortcuts in the tooltips of the reading pane', async () => {
    expect(await pane().getByTestId('reply').getAttribute('title')).toContain('(R)');
    expect(await pane().getByTestId('archive').getAttribute('title')).toContain('(E)');
    expect(await pane().getByTestId('delete').getAttribute('title')).toContain('(# or Delete)');
    expect(await page.getByTestId('compose-button').getAttribute('title')).toBe('Compose (C)');
  });

  it('keyboard: j/k move from the reading pane too; U marks unread; E archives, Z undoes', async () => {
    await row('Launch plan').click();
    await body().focus();
    await page.keyboard.press('j');
    await expect.poll(() => heading().textContent()).toBe('Minutes of the review');
    await page.keyboard.press('k');
    await expect.poll(() => heading().textContent()).toBe('Launch plan');

    // Read by now (open for a second); U makes it unread again, at the node too.
    await pane().getByTestId('read-state').waitFor({ timeout: WAIT });
    await page.keyboard.press('u');
    await expect.poll(() => row('Launch plan').locator('.unread').count()).toBe(1);
    const inbox = async () => (await api('bob', 'GET', '/v1/messages/inbox?limit=200')).messages as any[];
    await expect.poll(async () => (await inbox()).find((m) => m.subject === 'Launch plan')?.read_at, { timeout: WAIT }).toBeNull();

    await page.keyboard.press('e');
    await expect.poll(() => row('Launch plan').count()).toBe(0);
    // The next message is shown; the notice offers Undo.
    await expect.poll(() => heading().textContent()).toBe('Minutes of the review');
    expect(await page.getByTestId('mail-notice').textContent()).toContain('Archived “Launch plan”');
    await expect.poll(async () => (await api('bob', 'GET', '/v1/messages/inbox?folder=archive')).messages.map((m: any) => m.subject)).toEqual(['Launch plan']);
    await shot('mail-archived-notice');
    await page.keyboard.press('z');
    await row('Launch plan').waitFor({ timeout: WAIT });
    // Undo puts it back as it was: unread.
    await expect.poll(async () => (await inbox()).find((m) => m.subject === 'Launch plan')?.read_at, { timeout: WAIT }).toBeNull();
    await expect.poll(() => row('Launch plan').locator('.unread').count()).toBe(1);
  });

  it('the Archive folder lists archived mail, and E moves it back to the inbox', async () => {
    await row('Invoice 2231').click();
    await pane().getByTestId('archive').click();
    await expect.poll(() => row('Invoice 2231').count()).toBe(0);
    await page.getByTestId('folder-archive').click();
    await row('Invoice 2231').waitFor({ timeout: WAIT });
    expect(await list().getByRole('option').count()).toBe(1);
    await row('Invoice 2231').click();
    expect(await pane().getByTestId('unarchive').getAttribute('title')).toBe('Move to inbox (E)');
    await shot('mail-archive-light');
    await page.keyboard.press('e');
    await page.getByTestId('mail-empty').filter({ hasText: 'Nothing archived' }).waitFor({ timeout: WAIT });
    await page.getByTestId('folder-inbox').click();
    await row('Invoice 2231').waitFor({ timeout: WAIT });
  });

  it('# asks before deleting, saying what happens; Esc keeps it, Enter deletes it; the sender still has it in Sent', async () => {
    await row('Lunch on Thursday?').click();
    await page.keyboard.press('#');
    const dialog = modal();
    await dialog.getByTestId('delete-mail-dialog').waitFor({ timeout: WAIT });
    expect(await dialog.getByTestId('delete-mail-consequence').textContent()).toBe(
      '“Lunch on Thursday?” is removed from your mail for good, from the inbox and the archive; this cannot be undone. alice keeps their copy.',
    );
    await shot('mail-delete-confirm');
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
    expect(await row('Lunch on Thursday?').count()).toBe(1);

    await page.keyboard.press('Delete');
    await modal().getByTestId('delete-mail-dialog').waitFor({ timeout: WAIT });
    await page.keyboard.press('Enter');
    await expect.poll(() => modal().count()).toBe(0);
    await expect.poll(() => row('Lunch on Thursday?').count()).toBe(0);
    await expect
      .poll(async () => (await api('bob', 'GET', '/v1/messages/inbox?limit=200')).messages.map((m: any) => m.subject))
      .not.toContain('Lunch on Thursday?');
    expect((await api('alice', 'GET', '/v1/messages/sent?limit=200')).messages.map((m: any) => m.subject)).toContain('Lunch on Thursday?');
  });

  it('shows changes made elsewhere at once: archived, unread, read or deleted through the API, no reload', async () => {
    await page.getByTestId('folder-inbox').click();
    await row('Launch plan').click();
    // Read by now (open for a second), so the badge counts only what happens below.
    await pane().getByTestId('read-state').waitFor({ timeout: WAIT });
    const subject = 'Minutes of the review';
    await row(subject).waitFor({ timeout: WAIT });
    const inbox = async () => (await api('bob', 'GET', '/v1/messages/inbox?limit=200')).messages as any[];
    const id = (await inbox()).find((m) => m.subject === subject).message_id as string;
    const badge = () => page.getByTestId('nav-mail').getByTestId('unread-badge');
    const waiting = async () => String((await api('bob', 'GET', '/v1/chat/pending')).messages_waiting);

    // An agent archives it: the open inbox drops it; the message being read stays open.
    await api('bob', 'POST', `/v1/messages/${id}/archive`, {});
    await expect.poll(() => row(subject).count(), { timeout: WAIT }).toBe(0);
    expect(await heading().textContent()).toBe('Launch plan');
    // It puts it back unread: back in its place, unread, and the badge counts it.
    await api('bob', 'POST', `/v1/messages/${id}/unread`, {});
    await expect.poll(() => row(subject).locator('.unread').count(), { timeout: WAIT }).toBe(1);
    await expect.poll(() => badge().textContent(), { timeout: WAIT }).toBe(await waiting());
    await shot('mail-changed-elsewhere');
    // Read in another window: no longer unread here either.
    await api('bob', 'POST', `/v1/messages/${id}/ack`, {});
    await expect.poll(() => row(subject).locator('.unread').count(), { timeout: WAIT }).toBe(0);
    expect(await row(subject).count()).toBe(1);
    // Deleted elsewhere: gone.
    await api('bob', 'DELETE', `/v1/messages/${id}`);
    await expect.poll(() => row(subject).count(), { timeout: WAIT }).toBe(0);
    expect((await inbox()).map((m) => m.subject)).not.toContain(subject);
  });

  it('Sent lists mail to this node (delivered) and to another node (queued), with the body and the delivery state', async () => {
    await actAs('alice');
    await page.getByTestId('compose-button').click();
    const dialog = modal();
    await dialog.getByTestId('compose').waitFor({ timeout: WAIT });
    await dialog.getByLabel('To', { exact: true }).fill('far-away.example/zoe');
    await dialog.getByLabel('Subject').fill('Across the sea');
    await dialog.getByLabel('Message').fill('Hello **Zoe**');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => modal().count()).toBe(0);
    await page.getByTestId('outbox').locator('[data-state="sent"]').waitFor({ timeout: WAIT });

    await page.getByTestId('folder-sent').click();
    const sentRow = (subject: string) => page.getByTestId('sent-list').getByRole('option').filter({ hasText: subject });
    await sentRow('Across the sea').waitFor({ timeout: WAIT });
    expect(await sentRow('Across the sea').getByTestId('sent-status').textContent()).toBe('Queued');
    expect(await sentRow('Launch plan').getByTestId('sent-status').textContent()).toBe('Delivered');
    // Bob deleted his copy; alice's stays.
    expect(await sentRow('Lunch on Thursday?').count()).toBe(1);
    await sentRow('Across the sea').click();
    const sentPane = page.getByTestId('sent-pane');
    expect(await sentPane.getByTestId('sent-pane-status').textContent()).toBe('Queued');
    await expect.poll(() => sentPane.getByTestId('mail-body').locator('strong').textContent(), { timeout: WAIT }).toBe('Zoe');
    await sentRow('Launch plan').click();
    await expect.poll(() => sentPane.getByTestId('mail-body').getByRole('heading', { level: 1 }).textContent(), { timeout: WAIT }).toBe('Launch plan');
    // j moves through Sent too (the pane follows).
    await page.getByTestId('sent-list').focus();
    await page.keyboard.press('j');
    await expect.poll(() => sentPane.getByRole('heading', { level: 2 }).textContent()).not.toBe('Launch plan');
    await shot('mail-sent-light');
  });

  it(`keeps the DOM small with ${BULK} messages and pages them in from the node as the list scrolls`, async () => {
    await actAs('bulk');
    await page.getByTestId('folder-inbox').click();
    await row(`Bulk #${String(BULK - 1).padStart(4, '0')}`).waitFor({ timeout: WAIT });
    const options = () => list().getByRole('option').count();
    expect(await options()).toBeLessThan(40);
    // One meaning per number, grouped: the unread count (the node's) in the folder list, the
    // header and the sidebar; never the size of the page loaded so far.
    await expect.poll(() => page.locator('.list-head .head-count').textContent(), { timeout: WAIT }).toBe('1,200 unread');
    const inboxCount = page.getByTestId('folder-inbox').getByTestId('folder-count');
    expect(await inboxCount.textContent()).toBe('1,200');
    expect(await inboxCount.getAttribute('aria-label')).toBe('1,200 unread messages');
    expect(await page.getByTestId('nav-mail').getByTestId('unread-badge').textContent()).toBe('1,200');
    // The first page only: the rest comes as the list scrolls.
    const count = () => list().getByRole('option').first().getAttribute('aria-setsize');
    expect(Number(await count())).toBeLessThan(BULK);

    // End jumps to the last row loaded; each time, the node sends the next page, until all are there.
    await list().focus();
    await expect
      .poll(
        async () => {
          await page.keyboard.press('End');
          return count();
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(String(BULK));
    await page.keyboard.press('End');
    await row('Bulk #0000').waitFor({ timeout: WAIT });
    expect(await options()).toBeLessThan(40);
    expect(await list().getByRole('option').first().getAttribute('aria-setsize')).toBe(String(BULK));
    await page.keyboard.press('Home');
    await row(`Bulk #${String(BULK - 1).padStart(4, '0')}`).waitFor({ timeout: WAIT });
    expect(await options()).toBeLessThan(40);
    // PageDown moves a screenful; the listbox points at the active row for screen readers.
    await page.keyboard.press('PageDown');
    const active = list().locator('[role="option"][aria-selected="true"]');
    await expect.poll(async () => Number(await active.getAttribute('aria-posinset'))).toBeGreaterThan(5);
    expect(await list().getAttribute('aria-activedescendant')).toBe(await active.getAttribute('id'));
  });

  it('renders the folders at 1440, 1200 and 900 px in light and dark, without sideways scrolling', async () => {
    await actAs('bob');
    const overflow = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      for (const width of [1440, 1200, 900]) {
        await page.setViewportSize({ width, height: width === 900 ? 700 : 860 });
        await page.getByTestId('folder-inbox').click();
        await row('Launch plan').click();
        await expect.poll(() => body().getAttribute('data-format'), { timeout: WAIT }).toBe('rendered');
        expect(await page.evaluate(overflow)).toBe(0);
        await shot(`mail-folders-inbox-${width}-${theme}`);
        // Below 1000 px the open message has the window: the folders are one Back away.
        if (width < 1000) await page.getByTestId('pane-back').click();
        await page.getByTestId('folder-sent').click();
        await page.getByTestId('sent-empty').waitFor({ timeout: WAIT });
        await page.getByTestId('folder-archive').click();
        await page.getByTestId('mail-empty').waitFor({ timeout: WAIT });
      }
    }
    await actAs('alice');
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      for (const width of [1440, 1200, 900]) {
        await page.setViewportSize({ width, height: width === 900 ? 700 : 860 });
        // Narrowed below 1000 px with a message open, the message has the window: Back to the folders.
        if (width < 1000) await page.getByTestId('pane-back').click();
        await page.getByTestId('folder-sent').click();
        await page.getByTestId('sent-list').getByRole('option').filter({ hasText: 'Across the sea' }).click();
        await page.getByTestId('sent-pane').waitFor({ timeout: WAIT });
        expect(await page.evaluate(overflow)).toBe(0);
        await shot(`mail-folders-sent-${width}-${theme}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
