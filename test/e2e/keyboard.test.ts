/**
 * The keyboard everywhere, driven in Debian's Chromium against a real headless node: every list
 * (Mail's Inbox, Sent and Sent to other nodes, Documents, the Shelf, Chat) moves with j/k and the
 * arrows from wherever the view has the keyboard, Enter opens, Esc closes or goes back to the list;
 * `?` shows the sheet of exactly the keys of the view on screen (and they do what it says); the
 * identity menu closes after a pick, on Esc and on a click outside, and works with the arrows and
 * Enter; keys never fire while typing. And the command palette's search is the acting identity's:
 * alice never sees bob's Sent copy of a mail she deleted, and opening a hit never switches identity.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { profileFiles } from '../support/library.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, seedIdentities, shot as saveShot, stopRig, type AppRig, actAs as actAsIdentity } from './steps.ts';

const DOMAIN = 'keys-e2e.test';
const TEAM_ID = `crew:${DOMAIN}`;
const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
const keys: Record<string, string> = {};

const shot = (name: string): Promise<void> => saveShot(page, name);
const modal = () => page.locator('dialog[open]');
const sheet = () => page.getByTestId('shortcuts-sheet');
const palette = () => page.getByTestId('command-palette');
const switcher = () => page.getByTestId('identity-switcher');
const menu = () => page.getByTestId('identity-switcher-menu');

async function api(as: string, method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${node.info.core_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${keys[as]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} as ${as}: ${response.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

const mail = (from: string, to: string, subject: string): Promise<any> =>
  api(from, 'POST', '/v1/messages', { to_address: to.includes('/') ? to : `${DOMAIN}/${to}`, subject, body: `About ${subject}.` });

/** The text of the row the list's keyboard is on (its aria-activedescendant), or null. */
const activeRow = (testid: string): Promise<string | null> =>
  page.evaluate(
    `(() => { const list = document.querySelector('[data-testid="${testid}"]'); const id = list?.getAttribute('aria-activedescendant'); return id ? (document.getElementById(id)?.textContent ?? '').trim() : null; })()`,
  ) as Promise<string | null>;

/** The focused element's test id. */
const focused = (): Promise<string | null> => page.evaluate("document.activeElement?.getAttribute('data-testid') ?? null") as Promise<string | null>;

/** The sheet's groups, each as its title and its rows' labels. */
async function sheetGroups(): Promise<{ title: string; labels: string[] }[]> {
  const groups = sheet().getByTestId('shortcuts-group');
  const result: { title: string; labels: string[] }[] = [];
  for (let i = 0; i < (await groups.count()); i++) {
    const group = groups.nth(i);
    result.push({ title: (await group.getAttribute('data-title')) ?? '', labels: await group.getByTestId('shortcut-label').allTextContents() });
  }
  return result;
}

/** `?` from the view, the sheet's groups, then Esc closes it. */
async function sheetOf(view: string): Promise<{ title: string; labels: string[] }[]> {
  await page.keyboard.press('?');
  await sheet().waitFor({ timeout: WAIT });
  const groups = await sheetGroups();
  await shot(`keyboard-sheet-${view}`);
  await page.keyboard.press('Escape');
  await expect.poll(() => modal().count()).toBe(0);
  return groups;
}

const LIST = ['Next item', 'Previous item', 'First item', 'Last item', 'Open the item'];
const EVERYWHERE = { title: 'Everywhere', labels: ['Command palette: go to, do or find', 'These shortcuts'] };

const actAs = (name: string): Promise<void> => actAsIdentity(page, `${DOMAIN}/${name}`, WAIT);

/**
 * Clicks a sidebar section (the keyboard is then on that link, not in the list) and waits until
 * the router has shown it: until then the view before it is still on screen, with its keys.
 */
async function go(section: string): Promise<void> {
  const link = page.getByTestId(`nav-${section}`);
  await link.click();
  await expect.poll(() => link.getAttribute('aria-current'), { timeout: WAIT }).toBe('page');
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-mail',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => {
      node = started;
      Object.assign(keys, (await seedIdentities(node, { domain: DOMAIN, slug: 'keys', names: ['alice', 'bob', 'carol'] })).keys);
      // Alice's inbox (newest first: Gamma, Beta, Alpha), her Sent, and mail to another node.
      for (const subject of ['Inbox Alpha', 'Inbox Beta', 'Inbox Gamma']) await mail('bob', 'alice', subject);
      for (const subject of ['Sent One', 'Sent Two']) await mail('alice', 'bob', subject);
      for (const subject of ['Far One', 'Far Two']) await mail('alice', 'far-away.example/zoe', subject);
      // Search: a mail alice deleted (bob's Sent keeps its copy), and one she kept.
      const walrus = await mail('bob', 'alice', 'Walrus minutes');
      await api('alice', 'DELETE', `/v1/messages/${walrus.message_id}`);
      await mail('bob', 'alice', 'Zebra crossing plan');
      // Two chats for alice.
      await api('bob', 'POST', '/v1/chat/sessions', { to_addresses: [`${DOMAIN}/alice`], message: 'Chat from bob' });
      await api('carol', 'POST', '/v1/chat/sessions', { to_addresses: [`${DOMAIN}/alice`], message: 'Chat from carol' });

      // Settings: two peers.
      for (const name of ['one', 'two']) await node.owner('POST', '/v1/node/peers', { domain: `${name}.example`, url: `https://node.${name}.example` });

      await node.owner('POST', '/v1/node/teams', { name: 'crew', domain: DOMAIN });
      for (const slug of ['doc-one', 'doc-two', 'doc-three']) {
        await node.asTeamOwner(TEAM_ID, 'POST', '/v1/documents', { slug, title: `Title ${slug}`, body: `# ${slug}\n\nText.\n` });
      }
      for (const ref of ['analyst', 'builder', 'critic']) {
        await node.asTeamOwner(TEAM_ID, 'POST', '/v1/profiles', { files: profileFiles({ ref, name: `Profile ${ref}`, mission: 'Helps.' }) });
      }
    },
  });
  ({ page } = rig);
}, 90_000);

afterAll(() => stopRig(rig));

// Each test starts with nothing open: a test that fails with the identity menu, the palette or the
// sheet still up must not make the next ones fail under it (the menu covers the sidebar).
afterEach(async () => {
  for (let i = 0; i < 3 && (await page.locator('dialog[open], [data-testid="identity-switcher-menu"]').count()) > 0; i++) await page.keyboard.press('Escape');
});

describe('The keyboard everywhere (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('the identity menu closes after a pick, on Esc and on a click outside, and works with arrows and Enter', async () => {
    await actAs('alice');
    expect(await menu().count()).toBe(0);
    expect(await switcher().getAttribute('aria-expanded')).toBe('false');

    await switcher().click();
    await menu().waitFor({ timeout: WAIT });
    expect(await switcher().getAttribute('aria-expanded')).toBe('true');
    expect(await switcher().getAttribute('aria-haspopup')).toBe('listbox');
    // The button names the list it opens.
    expect(await menu().getAttribute('id')).toBeTruthy();
    expect(await switcher().getAttribute('aria-controls')).toBe(await menu().getAttribute('id'));
    expect(await menu().getAttribute('role')).toBe('listbox');
    expect(await menu().getByRole('option').count()).toBe(3);
    await page.keyboard.press('Escape');
    await expect.poll(() => menu().count()).toBe(0);
    expect(await focused()).toBe('identity-switcher');

    await switcher().click();
    await menu().waitFor({ timeout: WAIT });
    // A click on the page beside the menu (the list pane's empty space).
    await page.mouse.click(900, 700);
    await expect.poll(() => menu().count()).toBe(0);

    // Keyboard only: Enter opens on the current identity, ArrowDown moves, Enter picks and closes.
    await switcher().focus();
    await page.keyboard.press('Enter');
    await menu().waitFor({ timeout: WAIT });
    expect(await activeRow('identity-switcher-menu')).toContain(`${DOMAIN}/alice`);
    await page.keyboard.press('ArrowDown');
    expect(await activeRow('identity-switcher-menu')).toContain(`${DOMAIN}/bob`);
    await page.keyboard.press('Enter');
    await expect.poll(() => menu().count()).toBe(0);
    await switcher()
      .filter({ hasText: `${DOMAIN}/bob` })
      .waitFor({ timeout: WAIT });

    await actAs('alice');
    expect(await menu().count()).toBe(0);
  });

  it('the identity menu closes on a click in the document preview, a frame this page hears no pointer from', async () => {
    await go('documents');
    const frame = page.getByTestId('preview-frame');
    await frame.waitFor({ timeout: WAIT });
    // The preview is shown once its page has loaded: a click while the frame is still being
    // replaced can be lost on its way into it.
    await page.frameLocator('[data-testid="preview-frame"]').locator('body').waitFor({ timeout: WAIT });
    await switcher().click();
    await menu().waitFor({ timeout: WAIT });
    await frame.click({ timeout: WAIT });
    await expect.poll(() => menu().count()).toBe(0);
    await go('mail');
  });

  it('Mail’s Inbox: j/k and the arrows move from anywhere in the view, Enter opens, Esc goes back to the list', async () => {
    await go('mail');
    await page.getByTestId('folder-inbox').click();
    await page.getByTestId('mail-list').waitFor({ timeout: WAIT });
    // The keyboard is on the folder button, not in the list.
    expect(await focused()).toBe('folder-inbox');
    await page.keyboard.press('j');
    expect(await focused()).toBe('mail-list');
    expect(await activeRow('mail-list')).toContain('Zebra crossing plan');
    await page.keyboard.press('j');
    expect(await activeRow('mail-list')).toContain('Inbox Gamma');
    await page.keyboard.press('k');
    expect(await activeRow('mail-list')).toContain('Zebra crossing plan');
    await page.keyboard.press('ArrowDown');
    expect(await activeRow('mail-list')).toContain('Inbox Gamma');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('reading-pane').getAttribute('aria-label'), { timeout: WAIT }).toBe('Message: Inbox Gamma');
    expect(await focused()).not.toBe('mail-list');
    // j from the reading pane moves on, the pane follows.
    await page.keyboard.press('j');
    await expect.poll(() => page.getByTestId('reading-pane').getAttribute('aria-label'), { timeout: WAIT }).toBe('Message: Inbox Beta');
    await page.getByTestId('reading-pane').focus();
    await page.keyboard.press('Escape');
    expect(await focused()).toBe('mail-list');
  });

  it('Mail’s `?` sheet lists exactly the Inbox’s keys, and they do what it says', async () => {
    expect(await sheetOf('mail-inbox')).toEqual([
      {
        title: 'Mail',
        labels: [
          'New mail',
          ...LIST,
          'Back to the list',
          'Plain text on or off',
          'Reply',
          'Archive (in Archive: back to the inbox)',
          'Delete (asks first)',
          'Mark unread',
          'Mark read',
          'Undo the archive',
        ],
      },
      { title: 'Search', labels: ['Search this identity’s mail'] },
      EVERYWHERE,
    ]);
    // C, as listed: the compose dialog.
    await page.keyboard.press('c');
    await modal().getByTestId('compose').waitFor({ timeout: WAIT });
    // Keys type while typing: `?` and j in a field are text.
    await modal().getByLabel('Subject').click();
    await page.keyboard.type('j?k');
    expect(await modal().getByLabel('Subject').inputValue()).toBe('j?k');
    expect(await sheet().isVisible()).toBe(false);
    await modal().getByLabel('Subject').fill('');
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('Mail’s Sent: j/k, Enter, Esc, and its sheet without the inbox’s keys', async () => {
    await page.getByTestId('folder-sent').click();
    await page.getByTestId('sent-list').waitFor({ timeout: WAIT });
    await page.keyboard.press('j');
    expect(await focused()).toBe('sent-list');
    const first = await activeRow('sent-list');
    await page.keyboard.press('j');
    const second = await activeRow('sent-list');
    expect(second).not.toBe(first);
    await page.keyboard.press('k');
    expect(await activeRow('sent-list')).toBe(first);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('sent-pane').getAttribute('aria-label'), { timeout: WAIT }).toMatch(/^Sent: /);
    await page.keyboard.press('Escape');
    expect(await focused()).toBe('sent-list');
    const groups = await sheetOf('mail-sent');
    expect(groups[0]).toEqual({ title: 'Mail', labels: ['New mail', ...LIST, 'Back to the list', 'Plain text on or off'] });
  });

  it('Mail’s Sent to other nodes: j/k, arrows, Enter, Esc', async () => {
    await page.getByTestId('folder-outbound').click();
    await page.getByTestId('outbound-list').waitFor({ timeout: WAIT });
    await page.keyboard.press('j');
    expect(await focused()).toBe('outbound-list');
    expect(await activeRow('outbound-list')).toContain('Far Two');
    await page.keyboard.press('ArrowDown');
    expect(await activeRow('outbound-list')).toContain('Far One');
    await page.keyboard.press('k');
    expect(await activeRow('outbound-list')).toContain('Far Two');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('outbound-pane').getAttribute('aria-label'), { timeout: WAIT }).toBe('Sent to another node: Far Two');
    await page.getByTestId('outbound-pane').click();
    await page.keyboard.press('Escape');
    expect(await focused()).toBe('outbound-list');
    const groups = await sheetOf('mail-outbound');
    expect(groups[0]).toEqual({ title: 'Mail', labels: ['New mail', ...LIST, 'Back to the list'] });
  });

  it('Documents: j/k and arrows move, Enter opens, Esc comes back to the list; its sheet', async () => {
    await go('documents');
    await page.getByTestId('document-list').waitFor({ timeout: WAIT });
    // Newest first; the newest is open, and the keyboard starts there.
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: WAIT }).toBe('Title doc-three');
    await page.keyboard.press('j');
    expect(await focused()).toBe('document-list');
    expect(await activeRow('document-list')).toContain('Title doc-two');
    await page.keyboard.press('j');
    expect(await activeRow('document-list')).toContain('Title doc-one');
    await page.keyboard.press('k');
    expect(await activeRow('document-list')).toContain('Title doc-two');
    await page.keyboard.press('ArrowDown');
    expect(await activeRow('document-list')).toContain('Title doc-one');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: WAIT }).toBe('Title doc-one');
    await page.getByTestId('doc-title').click();
    await page.keyboard.press('Escape');
    expect(await focused()).toBe('document-list');
    expect(await sheetOf('documents')).toEqual([
      { title: 'Documents', labels: [...LIST, 'Back to the list'] },
      { title: 'Search', labels: ['Search this team’s documents'] },
      EVERYWHERE,
    ]);
  });

  it('Shelf: j/k and arrows move, Enter opens, Esc comes back to the list; its sheet', async () => {
    await go('shelf');
    await page.getByTestId('shelf-list').waitFor({ timeout: WAIT });
    await page.getByTestId('profile-pane').getByRole('heading', { name: 'Profile analyst' }).waitFor({ timeout: WAIT });
    await page.keyboard.press('j');
    expect(await focused()).toBe('shelf-list');
    expect(await activeRow('shelf-list')).toContain('Profile builder');
    await page.keyboard.press('ArrowDown');
    expect(await activeRow('shelf-list')).toContain('Profile critic');
    await page.keyboard.press('k');
    expect(await activeRow('shelf-list')).toContain('Profile builder');
    await page.keyboard.press('Enter');
    await page.getByTestId('profile-pane').getByRole('heading', { name: 'Profile builder' }).waitFor({ timeout: WAIT });
    await page.getByTestId('profile-pane').getByRole('heading', { name: 'Profile builder' }).click();
    await page.keyboard.press('Escape');
    expect(await focused()).toBe('shelf-list');
    expect(await sheetOf('shelf')).toEqual([
      { title: 'Shelf', labels: ['New profile', ...LIST] },
      { title: 'Search', labels: ['Search this team’s profiles'] },
      {
        title: 'Profile',
        labels: ['Edit as a new version', 'Bind to an identity', 'Preview the agent home', 'Publish to the public catalog', 'Back to the shelf list'],
      },
      EVERYWHERE,
    ]);
    // N, as listed: the new profile dialog.
    await page.keyboard.press('n');
    await modal().waitFor({ timeout: WAIT });
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('Chat: j/k and arrows move, Enter opens, Esc leaves the composer and then closes the chat; its sheet', async () => {
    await go('chat');
    await page.getByTestId('session-list').waitFor({ timeout: WAIT });
    await page.keyboard.press('j');
    expect(await focused()).toBe('session-list');
    expect(await activeRow('session-list')).toContain('carol');
    await page.keyboard.press('ArrowDown');
    expect(await activeRow('session-list')).toContain('bob');
    await page.keyboard.press('k');
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('conversation').getAttribute('aria-label'), { timeout: WAIT }).toContain('bob');
    // The composer has the cursor: letters type.
    await expect.poll(focused, { timeout: WAIT }).toBe('composer');
    await page.keyboard.type('jk');
    expect(await page.getByTestId('composer').inputValue()).toBe('jk');
    await page.keyboard.press('Escape');
    expect(await focused()).toBe('session-list');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('conversation').count()).toBe(0);
    expect(await sheetOf('chat')).toEqual([{ title: 'Chat', labels: ['New chat', ...LIST, 'Back to the list; again: close the open chat'] }, EVERYWHERE]);
  });

  it('Identities and Teams list their own keys, and N there does what the sheet says', async () => {
    await go('identities');
    expect(await sheetOf('identities')).toEqual([
      { title: 'Identities', labels: ['New identity', 'New project', 'New namespace: a domain for addresses'] },
      EVERYWHERE,
    ]);
    await go('teams');
    expect(await sheetOf('teams')).toEqual([{ title: 'Teams', labels: ['New team', 'Invite an agent'] }, EVERYWHERE]);
    await page.keyboard.press('n');
    await modal().waitFor({ timeout: WAIT });
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('a small list in a pane takes its keys from anywhere in that pane, and `?` lists them there: a document’s versions', async () => {
    await go('documents');
    await page.getByTestId('tab-history').click();
    await page.getByTestId('version-list').waitFor({ timeout: WAIT });
    // A click in the history beside the list (the comparison's layout): the keyboard is in the pane, not in the list.
    await page.getByTestId('history').getByRole('button', { name: 'Unified' }).click();
    await page.keyboard.press('j');
    expect(await focused()).toBe('version-list');
    expect(await activeRow('version-list')).toContain('v1');
    const groups = await sheetOf('documents-history');
    expect(groups).toContainEqual({ title: 'Versions', labels: LIST });
    // The documents list keeps its Esc; its moving keys are the versions' here.
    expect(groups[0]).toEqual({ title: 'Documents', labels: ['Back to the list'] });
    // Elsewhere in the view the keys are the documents list's again.
    await page.getByTestId('tab-write').click();
    await page.keyboard.press('j');
    expect(await focused()).toBe('document-list');
  });

  it('… a profile’s files, the file shown following', async () => {
    await go('shelf');
    await page.getByTestId('file-list').waitFor({ timeout: WAIT });
    await page.getByTestId('file-content').click();
    const shown = await page.getByTestId('file-content').textContent();
    await page.keyboard.press('j');
    expect(await focused()).toBe('file-list');
    await page.keyboard.press('End');
    await expect.poll(() => page.getByTestId('file-content').textContent(), { timeout: WAIT }).not.toBe(shown);
    expect(await sheetOf('shelf-files')).toContainEqual({ title: 'Files', labels: LIST });
  });

  it('… a team’s members: j from the section, Enter opens the member, Esc closes it', async () => {
    await go('teams');
    await page.locator('#member-list-title').click();
    await page.keyboard.press('j');
    expect(await focused()).toBe('member-list');
    expect(await activeRow('member-list')).toBeTruthy();
    expect(await sheetOf('teams-members')).toEqual([
      { title: 'Teams', labels: ['New team', 'Invite an agent'] },
      { title: 'Members', labels: LIST },
      EVERYWHERE,
    ]);
    await page.keyboard.press('Enter');
    await modal().waitFor({ timeout: WAIT });
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('… Settings’ peers and browser sessions: j from the panel moves the rows, Enter acts on one', async () => {
    await go('settings');
    const peers = page.getByTestId('peers-panel');
    // Settings reads its lists when it opens: the keys move rows once they are there.
    await expect.poll(() => peers.getByTestId('peer-row').count(), { timeout: WAIT }).toBe(2);
    await peers.locator('#peers-title').click();
    await page.keyboard.press('j');
    const domainShown = (): Promise<string | null> => page.evaluate("document.activeElement?.getAttribute('data-domain') ?? null") as Promise<string | null>;
    expect(await focused()).toBe('peer-row');
    const first = await domainShown();
    await page.keyboard.press('j');
    expect(await domainShown()).not.toBe(first);
    expect(await sheetOf('settings-peers')).toEqual([{ title: 'Peers', labels: LIST }, EVERYWHERE]);
    // Enter: that peer into the form, to change its URL.
    const picked = await domainShown();
    await page.keyboard.press('Enter');
    expect(await peers.getByLabel('Domain').inputValue()).toBe(picked);

    const sessions = page.getByTestId('sessions-panel');
    await sessions.getByTestId('session-row').first().waitFor({ timeout: WAIT });
    await sessions.locator('#sessions-title').click();
    await page.keyboard.press('j');
    expect(await focused()).toBe('session-row');
    expect(await sheetOf('settings-sessions')).toEqual([{ title: 'Browser sessions', labels: LIST }, EVERYWHERE]);
    // Enter asks first, as the row's Sign out does.
    await page.keyboard.press('Enter');
    const confirm = sessions.getByRole('group', { name: /^Sign out/ });
    await confirm.waitFor({ timeout: WAIT });
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await expect.poll(() => confirm.count()).toBe(0);
  });

  it('below 1000 px, one pane: Esc backs out of the open document to the list, the keys move it, Enter opens, k from the document brings the list back', async () => {
    await page.setViewportSize({ width: 900, height: 700 });
    try {
      await go('documents');
      await page.getByTestId('doc-title').waitFor({ timeout: WAIT });
      expect(await page.getByTestId('document-list').isVisible()).toBe(false);
      await page.getByTestId('doc-title').click();
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByTestId('document-list').isVisible(), { timeout: WAIT }).toBe(true);
      expect(await focused()).toBe('document-list');
      // Newest first: doc-three, doc-two, doc-one.
      await page.keyboard.press('g');
      await page.keyboard.press('j');
      expect(await activeRow('document-list')).toContain('Title doc-two');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('document-list').isVisible(), { timeout: WAIT }).toBe(false);
      await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: WAIT }).toBe('Title doc-two');
      // k from the open document: the list again, one row up.
      await page.getByTestId('doc-title').click();
      await page.keyboard.press('k');
      await expect.poll(() => page.getByTestId('document-list').isVisible(), { timeout: WAIT }).toBe(true);
      expect(await focused()).toBe('document-list');
      expect(await activeRow('document-list')).toContain('Title doc-three');
      await shot('keyboard-documents-900');
    } finally {
      await page.setViewportSize({ width: 1280, height: 820 });
    }
  });

  it('below 1000 px, one pane: Esc backs out of the open profile to the Shelf list, Enter opens, j from the profile brings the list back', async () => {
    await page.setViewportSize({ width: 900, height: 700 });
    try {
      await go('shelf');
      const heading = () => page.getByTestId('profile-pane').locator('h1');
      await heading().waitFor({ timeout: WAIT });
      expect(await page.getByTestId('shelf-list').isVisible()).toBe(false);
      await heading().click();
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByTestId('shelf-list').isVisible(), { timeout: WAIT }).toBe(true);
      expect(await focused()).toBe('shelf-list');
      await page.keyboard.press('j');
      const next = await activeRow('shelf-list');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('shelf-list').isVisible(), { timeout: WAIT }).toBe(false);
      await expect.poll(() => heading().textContent(), { timeout: WAIT }).toBe(next?.match(/Profile (analyst|builder|critic)/)?.[0]);
      await heading().click();
      await page.keyboard.press('j');
      await expect.poll(() => page.getByTestId('shelf-list').isVisible(), { timeout: WAIT }).toBe(true);
      expect(await focused()).toBe('shelf-list');
      await shot('keyboard-shelf-900');
    } finally {
      await page.setViewportSize({ width: 1280, height: 820 });
    }
  });

  it('below 1000 px, one pane: Enter opens a chat alone, Esc from its composer backs out to the list at once', async () => {
    await page.setViewportSize({ width: 900, height: 700 });
    try {
      await go('chat');
      await page.getByTestId('session-list').waitFor({ timeout: WAIT });
      await page.keyboard.press('j');
      expect(await focused()).toBe('session-list');
      await page.keyboard.press('Enter');
      await expect.poll(focused, { timeout: WAIT }).toBe('composer');
      expect(await page.getByTestId('session-list').isVisible()).toBe(false);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByTestId('session-list').isVisible(), { timeout: WAIT }).toBe(true);
      expect(await focused()).toBe('session-list');
      expect(await page.getByTestId('conversation').count()).toBe(0);
    } finally {
      await page.setViewportSize({ width: 1280, height: 820 });
    }
  });

  it('the sheet in dark mode and a 900 px window', async () => {
    await emulateColorScheme(page, 'dark');
    await go('mail');
    await page.keyboard.press('?');
    await sheet().waitFor({ timeout: WAIT });
    await shot('keyboard-sheet-dark');
    await page.keyboard.press('Escape');
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 900, height: 700 });
    await page.keyboard.press('?');
    await sheet().waitFor({ timeout: WAIT });
    await shot('keyboard-sheet-900');
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 820 });
  });

  it('the palette searches as the acting identity: alice never sees bob’s Sent copy of a mail she deleted', async () => {
    await actAs('alice');
    await page.keyboard.press('Control+k');
    await palette().waitFor({ timeout: WAIT });
    await page.getByTestId('palette-input').pressSequentially('walrus');
    await palette().getByTestId('palette-search-empty').waitFor({ timeout: WAIT });
    expect(await palette().getByTestId('palette-hit').count()).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('opening a hit never switches the acting identity: only alice’s own copy is listed, and opens as alice', async () => {
    await page.keyboard.press('Control+k');
    await palette().waitFor({ timeout: WAIT });
    await page.getByTestId('palette-input').pressSequentially('zebra');
    const hits = palette().getByTestId('palette-group-mail').getByTestId('palette-hit');
    await expect.poll(() => hits.count(), { timeout: WAIT }).toBeGreaterThan(0);
    // Bob's Sent copy of the same mail is his, not alice's.
    expect(await hits.getByTestId('hit-context').allTextContents()).toEqual([expect.stringContaining('Inbox')]);
    await page.keyboard.press('Enter');
    await expect.poll(() => modal().count()).toBe(0);
    await expect.poll(() => page.getByTestId('reading-pane').getAttribute('aria-label'), { timeout: WAIT }).toBe('Message: Zebra crossing plan');
    expect(await switcher().textContent()).toContain(`${DOMAIN}/alice`);
  });

  it('the palette’s “New mail” opens Mail and runs its command there, from any view', async () => {
    await go('settings');
    await page.keyboard.press('Control+k');
    await palette().waitFor({ timeout: WAIT });
    await page.getByTestId('palette-input').pressSequentially('new mail');
    await palette().getByTestId('palette-new-mail').waitFor({ timeout: WAIT });
    await page.keyboard.press('Enter');
    await modal().getByTestId('compose').waitFor({ timeout: WAIT });
    expect(await page.getByTestId('nav-mail').getAttribute('aria-current')).toBe('page');
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
