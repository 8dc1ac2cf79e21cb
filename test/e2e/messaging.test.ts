/**
 * Mail and Chat, driven as a person would in Debian's Chromium against a real headless node: two
 * identities (alice and bob) on one node, each in its own window of the same browser session.
 * Alice mails bob by address; bob's window shows it live, he opens it, acknowledges it and
 * replies; alice sees the reply live. Then alice starts a chat, bob sees it live and answers,
 * alice sees the answer and bob's read receipt, and leaves (after confirming). Screenshots (light, dark, 1024x700)
 * of Mail, Compose and Chat go to test/e2e/screenshots/.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWindow, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { startRig, shot, stopRig, type Rig, actAs as actAsIdentity } from './steps.ts';

const DOMAIN = 'e2e-mail.test';
const ALICE = `${DOMAIN}/alice`;
const BOB = `${DOMAIN}/bob`;
const SUBJECT = 'Quarterly numbers';
/** How long to wait for something to appear (live updates arrive in well under a second). */
const WAIT = 15_000;

let rig: Rig | undefined;
let node: HeadlessNode;
let context: BrowserContext;
/** Two windows of one browser session, one acting as each identity. */
let alice: Page;
let bob: Page;
const identities: Record<string, { agent_id: string; did_key: string }> = {};
const consoleErrors: string[] = [];

const owner = (method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> => node.owner(method, path, body);

/** Picks the identity this window acts as, with the sidebar switcher. */
const actAs = (page: Page, name: string): Promise<void> => actAsIdentity(page, `${DOMAIN}/${name}`, WAIT);

/**
 * The person turns to this window. Chromium throttles animation frames in the window that is
 * not in front, which only slows Playwright's clicks; live updates must (and do) arrive anyway.
 */
async function use(page: Page): Promise<Page> {
  await page.bringToFront();
  return page;
}

/** The open modal dialog. */
const modal = (page: Page) => page.locator('dialog[open]');
const mailRow = (page: Page, subject: string) => page.getByTestId('mail-list').getByRole('option').filter({ hasText: subject });
const unreadBadge = (page: Page, section: 'mail' | 'chat') => page.getByTestId(`nav-${section}`).getByTestId('unread-badge');

beforeAll(async () => {
  rig = await startRig();
  node = rig.node;

  // The node: a namespace, a project bound to it, two persistent identities (owner API).
  await owner('POST', '/v1/node/namespaces', { domain: DOMAIN });
  const project = await owner('POST', '/v1/node/projects', { slug: 'team', name: 'Team', namespace: DOMAIN });
  for (const name of ['alice', 'bob']) {
    const created = await owner('POST', '/v1/node/identities', { project_id: project.project_id, name });
    identities[name] = { agent_id: created.agent_id, did_key: created.did };
  }

  context = await rig.browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light', reducedMotion: 'reduce' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: node.info.core_url });
  // The one-time link signs this browser session in; the second window reuses the session.
  const windowOptions = { section: 'nav-mail', sink: consoleErrors, timeout: WAIT };
  alice = await openWindow(context, node.info.ui_url, windowOptions);
  await actAs(alice, 'alice');
  bob = await openWindow(context, `${node.info.core_url}/ui/`, windowOptions);
  await actAs(bob, 'bob');
}, 90_000);

afterAll(() => stopRig(rig));

describe('Mail and Chat between two identities (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('opens on Mail, and an empty inbox teaches how to share the address', async () => {
    expect(bob.url()).toMatch(/#\/mail$/);
    await use(alice);
    await alice.getByTestId('nav-mail').click();
    await expect.poll(() => alice.getByTestId('share-address').textContent(), { timeout: WAIT }).toBe(ALICE);
    expect(await alice.getByTestId('mail-empty').textContent()).toContain('Share it');
    await alice.getByRole('button', { name: 'Copy address' }).click();
    expect(await alice.evaluate('navigator.clipboard.readText()')).toBe(ALICE);
    await shot(alice, 'mail-empty');
    await bob.getByTestId('mail-empty').waitFor({ timeout: WAIT });
  });

  it('alice composes mail to bob by address, with autocomplete and chips', async () => {
    await use(alice);
    await alice.keyboard.press('c');
    const dialog = modal(alice);
    await dialog.getByTestId('compose').waitFor({ timeout: WAIT });
    const to = dialog.getByLabel('To', { exact: true });
    await expect.poll(() => alice.evaluate('document.activeElement?.id')).toBe('compose-to');
    await to.pressSequentially('bo');
    const suggestions = alice.getByTestId('recipient-suggestions');
    await suggestions.waitFor({ timeout: WAIT });
    expect(await suggestions.textContent()).toContain(BOB);
    expect(await suggestions.textContent()).not.toContain(ALICE); // not yourself
    await alice.keyboard.press('Enter');
    await expect.poll(() => dialog.getByTestId('recipient-chip').allTextContents()).toEqual(['bob']);
    expect(await dialog.getByTestId('recipient-chip').getAttribute('title')).toBe(BOB);

    // An address that is not one stays in the field, with the reason next to it.
    await to.fill('not an address!');
    await alice.keyboard.press('Enter');
    expect(await dialog.getByRole('alert').first().textContent()).toContain('is not an address');
    await to.fill('');
    expect(await dialog.getByTestId('recipient-chip').allTextContents()).toEqual(['bob']);

    await dialog.getByLabel('Subject').fill(SUBJECT);
    await dialog.getByLabel('Priority').selectOption('high');
    await dialog.getByLabel('Message').fill('Hi Bob,\n\nThe numbers for the quarter are in. Can you look at them before Friday?\n\nAlice');
    await shot(alice, 'compose-light');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => modal(alice).count()).toBe(0);
    // Optimistic: the outbox says so, then confirms.
    await alice.getByTestId('outbox').locator('[data-state="sent"]').waitFor({ timeout: WAIT });
  });

  it('bob sees the mail arrive live, unread and flagged, with a badge', async () => {
    const row = mailRow(bob, SUBJECT);
    await row.waitFor({ timeout: WAIT });
    expect(await row.locator('.unread').count()).toBe(1);
    expect(await row.textContent()).toContain('alice');
    expect(await row.getByRole('img', { name: 'High priority' }).count()).toBe(1);
    await expect.poll(() => unreadBadge(bob, 'mail').textContent(), { timeout: WAIT }).toBe('1');
    expect(bob.url()).not.toContain('code='); // no reload happened
  });

  it('bob opens it: sender, address, the node’s verdict on the signature by fingerprint; then acknowledges it', async () => {
    await use(bob);
    await mailRow(bob, SUBJECT).click();
    const pane = bob.getByTestId('reading-pane');
    await pane.waitFor({ timeout: WAIT });
    expect(await pane.getByRole('heading', { level: 2 }).textContent()).toBe(SUBJECT);
    expect(await pane.getByTestId('from-address').textContent()).toBe(ALICE);
    const badge = pane.getByTestId('signature-badge');
    expect(await badge.textContent()).toMatch(/^Verified · z6Mk\w+…\w{4}$/);
    expect(await badge.getAttribute('title')).toContain(identities['alice']?.did_key);
    expect(await badge.getAttribute('title')).toContain('The node checked this signature');
    // Beside it, who vouches for alice's domain: the owner registered it here; DNS does not name it.
    const trust = pane.getByTestId('sender-trust');
    expect(await trust.textContent()).toBe('Registered by you');
    expect(await trust.getAttribute('title')).toContain('DNS has not confirmed');
    await shot(bob, 'mail-unread-open');
    // Explicit acknowledgement (the pane would also mark it read after a second).
    const markRead = pane.getByTestId('mark-read');
    if ((await markRead.count()) > 0) await markRead.click().catch(() => undefined);
    await pane.getByTestId('read-state').waitFor({ timeout: WAIT });
    await expect.poll(() => unreadBadge(bob, 'mail').count(), { timeout: WAIT }).toBe(0);
    expect(await mailRow(bob, SUBJECT).locator('.unread').count()).toBe(0);

    // The node has it acknowledged (read_at set), as bob.
    const key = await owner('POST', `/v1/node/identities/${identities['bob']?.agent_id}/session-key`);
    const response = await fetch(`${node.info.core_url}/v1/messages/inbox`, { headers: { authorization: `Bearer ${key.api_key}` } });
    const inbox = (await response.json()) as any;
    expect(inbox.messages[0]).toMatchObject({ subject: SUBJECT, priority: 'high', from_address: ALICE });
    expect(inbox.messages[0].read_at).not.toBeNull();
    await shot(bob, 'mail-light');
  });

  it('bob replies, and alice sees the reply arrive live', async () => {
    await (await use(bob)).keyboard.press('r');
    const dialog = modal(bob);
    await dialog.getByTestId('compose').waitFor({ timeout: WAIT });
    expect(await dialog.getByTestId('recipient-chip').getAttribute('title')).toBe(ALICE);
    expect(await dialog.getByLabel('Subject').inputValue()).toBe(`Re: ${SUBJECT}`);
    const body = dialog.getByLabel('Message');
    expect(await body.inputValue()).toContain('alice wrote:\n> Hi Bob,');
    await expect.poll(() => bob.evaluate('document.activeElement?.id')).toBe('compose-body');
    await body.press('Home');
    await body.pressSequentially('Looks good to me. Bob');
    await bob.keyboard.press('Control+Enter');
    await expect.poll(() => modal(bob).count()).toBe(0);
    await bob.getByTestId('outbox').locator('[data-state="sent"]').waitFor({ timeout: WAIT });

    const row = mailRow(alice, `Re: ${SUBJECT}`);
    await row.waitFor({ timeout: WAIT });
    expect(await row.locator('.unread').count()).toBe(1);
    await expect.poll(() => unreadBadge(alice, 'mail').textContent(), { timeout: WAIT }).toBe('1');
  });

  it('shows a send the node refuses as not sent, with its reason, and lets it be edited', async () => {
    await use(alice);
    await alice.keyboard.press('c');
    const dialog = modal(alice);
    await dialog.getByLabel('To', { exact: true }).fill(`${DOMAIN}/nobody`);
    await dialog.getByLabel('Subject').fill('Anyone there?');
    await dialog.getByLabel('Message').fill('Hello?');
    await alice.keyboard.press('Control+Enter');
    const failed = alice.getByTestId('outbox').locator('[data-state="failed"]');
    await failed.waitFor({ timeout: WAIT });
    expect(await failed.getByRole('alert').textContent()).toContain(`Recipient address not found: ${DOMAIN}/nobody`);
    await failed.getByRole('button', { name: 'Edit' }).click();
    expect(await modal(alice).getByRole('alert').textContent()).toContain('Recipient address not found');
    expect(await modal(alice).getByLabel('Subject').inputValue()).toBe('Anyone there?');
    await alice.keyboard.press('Escape');
    await expect.poll(() => modal(alice).count()).toBe(0);
    await failed.getByRole('button', { name: 'Discard' }).click();
    await expect.poll(() => failed.count()).toBe(0);
  });

  it('the switcher changes who Mail acts as, in the same window', async () => {
    await actAs(alice, 'bob');
    await mailRow(alice, SUBJECT).waitFor({ timeout: WAIT });
    expect(await mailRow(alice, SUBJECT).locator('.unread').count()).toBe(0);
    expect(await mailRow(alice, `Re: ${SUBJECT}`).count()).toBe(0);
    await actAs(alice, 'alice');
    await mailRow(alice, `Re: ${SUBJECT}`).waitFor({ timeout: WAIT });
  });

  it('keyboard: j/k move through the list and the reading pane follows', async () => {
    await use(alice);
    await alice.getByTestId('mail-list').focus();
    await alice.keyboard.press('j');
    await expect.poll(() => alice.getByTestId('reading-pane').getByRole('heading', { level: 2 }).textContent()).toBe(`Re: ${SUBJECT}`);
  });

  it('shows the reply in its thread: alice’s first mail above it, opened on a click', async () => {
    // The reply named the thread of the mail it answers (upstream's thread_id).
    const thread = (await use(alice)).getByTestId('reading-pane').getByTestId('mail-thread');
    await thread.waitFor({ timeout: WAIT });
    expect(await thread.textContent()).toContain('2 messages in this thread');
    const entry = thread.getByTestId('thread-entry');
    expect(await entry.count()).toBe(1);
    expect(await entry.textContent()).toContain('You');
    expect(await entry.textContent()).toContain(`to ${BOB}`);
    await entry.getByRole('button').click();
    await expect.poll(() => entry.locator('pre').textContent(), { timeout: WAIT }).toContain('Hi Bob,');
  });

  it('alice starts a chat with bob; bob sees it live and answers; alice sees the answer live', async () => {
    await (await use(bob)).getByTestId('nav-chat').click();
    await bob.getByText('No chats yet').waitFor({ timeout: WAIT });

    await (await use(alice)).getByTestId('nav-chat').click();
    await alice.getByText('No chats yet').waitFor({ timeout: WAIT });
    await alice.keyboard.press('n');
    const dialog = modal(alice);
    await dialog.getByTestId('start-chat').waitFor({ timeout: WAIT });
    await dialog.getByLabel('With').pressSequentially('bob');
    await alice.getByTestId('recipient-suggestions').waitFor({ timeout: WAIT });
    await alice.keyboard.press('Enter');
    await dialog.getByLabel('Message', { exact: true }).fill('Hi Bob, got a minute for the numbers?');
    await shot(alice, 'chat-start');
    await dialog.getByLabel('Message', { exact: true }).press('Enter');
    await expect.poll(() => modal(alice).count(), { timeout: WAIT }).toBe(0);
    const aliceConversation = alice.getByTestId('conversation');
    await aliceConversation.getByText('Hi Bob, got a minute for the numbers?').waitFor({ timeout: WAIT });

    // Bob: the session appears live, unread.
    const session = bob.getByTestId('session-list').getByRole('option').filter({ hasText: 'alice' });
    await session.waitFor({ timeout: WAIT });
    await expect.poll(() => session.textContent(), { timeout: WAIT }).toContain('got a minute');
    await expect.poll(() => unreadBadge(bob, 'chat').textContent(), { timeout: WAIT }).toBe('1');
    await use(bob);
    await session.click();
    const bobConversation = bob.getByTestId('conversation');
    await bobConversation.getByText('Hi Bob, got a minute for the numbers?').waitFor({ timeout: WAIT });
    await expect.poll(() => unreadBadge(bob, 'chat').count(), { timeout: WAIT }).toBe(0);

    // Alice sees bob read it (a read receipt, live).
    await aliceConversation.getByTestId('read-receipt').waitFor({ timeout: WAIT });
    expect(await aliceConversation.getByTestId('read-receipt').textContent()).toContain('Read by bob');

    // Bob answers from the keyboard: Shift+Enter is a new line, Enter sends.
    const composer = bob.getByTestId('composer');
    await composer.click();
    await composer.pressSequentially('Sure.');
    await composer.press('Shift+Enter');
    await composer.pressSequentially('Call in five?');
    await composer.press('Enter');
    expect(await composer.inputValue()).toBe('');
    await bobConversation.locator('[data-delivery="sent"]').filter({ hasText: 'Call in five?' }).waitFor({ timeout: WAIT });

    const answer = aliceConversation.getByTestId('chat-message').filter({ hasText: 'Call in five?' });
    await answer.waitFor({ timeout: WAIT });
    expect(await answer.textContent()).toContain('Sure.\nCall in five?');
    await use(alice);
    await shot(alice, 'chat-light');
  });

  it('alice leaves, after confirming; bob sees that she left', async () => {
    await use(alice);
    await alice.getByTestId('leave').click();
    await modal(alice).getByTestId('confirm-leave').click();
    await alice.getByTestId('system-line').filter({ hasText: 'You left the chat' }).waitFor({ timeout: WAIT });
    await bob.getByTestId('system-line').filter({ hasText: 'alice left the chat' }).waitFor({ timeout: WAIT });
    // Writing there again is an explicit Rejoin, not the composer.
    expect(await alice.getByTestId('leave').count()).toBe(0);
    expect(await alice.getByTestId('composer').count()).toBe(0);
    await alice.getByTestId('rejoin').waitFor({ timeout: WAIT });
    await use(bob);
    await shot(bob, 'chat-bob');
  });

  it('renders Mail, Compose and Chat in dark mode and in a 1024x700 window', async () => {
    const page = await use(bob);
    await page.getByTestId('nav-mail').click();
    await mailRow(page, SUBJECT).click();
    await page.getByTestId('reading-pane').waitFor({ timeout: WAIT });

    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(24, 25, 28)');
    await shot(page, 'mail-dark');
    await page.keyboard.press('c');
    await modal(page).getByLabel('To', { exact: true }).pressSequentially('al');
    await page.getByTestId('recipient-suggestions').waitFor({ timeout: WAIT });
    await shot(page, 'compose-dark');
    await page.keyboard.press('Escape'); // closes the suggestions
    await page.keyboard.press('Escape'); // closes the dialog
    await expect.poll(() => modal(page).count()).toBe(0);
    await page.getByTestId('nav-chat').click();
    await page.getByTestId('session-list').getByRole('option').first().click();
    await page.getByTestId('conversation').waitFor({ timeout: WAIT });
    await shot(page, 'chat-dark');

    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1024, height: 700 });
    const overflow = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';
    expect(await page.evaluate(overflow)).toBe(0);
    await shot(page, 'chat-1024x700');
    await page.getByTestId('nav-mail').click();
    await mailRow(page, SUBJECT).click();
    await page.getByTestId('reading-pane').waitFor({ timeout: WAIT });
    expect(await page.evaluate(overflow)).toBe(0);
    await shot(page, 'mail-1024x700');
    await page.keyboard.press('r');
    await modal(page).getByTestId('compose').waitFor({ timeout: WAIT });
    await shot(page, 'compose-1024x700');
    await page.keyboard.press('Escape');
    await expect.poll(() => modal(page).count()).toBe(0);
  });

  it('logged no errors in the browser console', () => {
    // 4xx answers the test provoked on purpose show up as failed resource loads; nothing else may.
    const unexpected = unexpectedConsoleErrors(consoleErrors);
    expect(unexpected).toEqual([]);
  });
});
