/**
 * Chat that behaves, driven as a person would in Debian's Chromium against a real headless node:
 * alice and bob, each in a window of one browser session. Read receipts show live and are still
 * there after a reload; a draft over the node's size limit says so before anything is sent (and
 * a refusal the node makes anyway is offered Edit, not a pointless Retry); leaving asks first,
 * then the conversation, the header, the composer and the session row all say so, also after a
 * reload, and only an explicit Rejoin writes there again; the list and the conversation work
 * from the keyboard; and carol, with 100,000 chats on the node, gets a windowed list that pages
 * from the node as it scrolls. Screenshots at 1440, 1200 and 900 px in both themes go to
 * test/e2e/screenshots/ (chat-*).
 */
import type { BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeDatabase } from '../support/database.ts';
import { openWindow, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { startRig, shot, stopRig, type Rig, actAs as actAsIdentity } from './steps.ts';

const DOMAIN = 'e2e-chat.test';
/** How long to wait for something to appear (live updates arrive in well under a second). */
const WAIT = 15_000;
/** carol's chats, seeded straight into the database (as the scale benchmarks do). */
const MANY = 100_000;
const NOTE = 'Off to lunch, back at two.';

let rig: Rig | undefined;
let node: HeadlessNode;
let context: BrowserContext;
let alice: Page;
let bob: Page;
const ids: Record<string, string> = {};
const consoleErrors: string[] = [];
let sessionId = '';

/** The mean of a CSS `rgb(r, g, b)` colour's channels (0 black, 255 white). */
function brightness(color: string): number {
  const channels = (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
  return channels.length === 3 ? channels.reduce((sum, value) => sum + value, 0) / 3 : Number.NaN;
}

/** Whether the page shows the theme asked for (its background, as the eye would judge it). */
async function expectTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  const background = async () => brightness(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor'));
  await expect.poll(background, { timeout: WAIT }).toSatisfy((value: number) => (theme === 'dark' ? value < 100 : value > 200));
}

/** Runs `fn` (a screenshot) with the OS in dark mode, then back to light. */
async function inDark(page: Page, fn: () => Promise<void>): Promise<void> {
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectTheme(page, 'dark');
  await fn();
  await page.emulateMedia({ colorScheme: 'light' });
  await expectTheme(page, 'light');
}

/** A call to the identity API as `name`, with a session key the owner mints (as the UI gets its own). */
async function as(name: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const { api_key } = await node.owner('POST', `/v1/node/identities/${ids[name]}/session-key`);
  const response = await fetch(`${node.info.core_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

const actAs = (page: Page, name: string): Promise<void> => actAsIdentity(page, `${DOMAIN}/${name}`, WAIT);

async function use(page: Page): Promise<Page> {
  await page.bringToFront();
  return page;
}

const modal = (page: Page) => page.locator('dialog[open]');
const conversation = (page: Page) => page.getByTestId('conversation');
const systemLine = (page: Page, text: string) => conversation(page).getByTestId('system-line').filter({ hasText: text });
const sessionRow = (page: Page, who: string) => page.getByTestId('session-list').getByRole('option').filter({ hasText: who });
const activeTestId = (page: Page): Promise<string | null> =>
  page.evaluate(`document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.id ?? null`);

/** Opens the chat with `who` in the Chat section of `page`. */
async function openChat(page: Page, who: string): Promise<void> {
  await page.getByTestId('nav-chat').click();
  await sessionRow(page, who).first().click();
  await conversation(page).getByRole('heading', { level: 2, name: who }).waitFor({ timeout: WAIT });
}

/** The chat message POSTs `page` makes (to see that nothing was sent). */
function countSends(page: Page): { readonly count: number; stop(): void } {
  let count = 0;
  const onRequest = (request: Request): void => {
    if (request.method() === 'POST' && /\/v1\/chat\/sessions\/[^/]+\/messages$/.test(new URL(request.url()).pathname)) count += 1;
  };
  page.on('request', onRequest);
  return {
    get count() {
      return count;
    },
    stop: () => page.off('request', onRequest),
  };
}

/**
 * `count` two-party chats of `agentId` with identities on another node, written straight into the
 * node's database while it runs (WAL lets a second connection write), each with one message the
 * identity has read, in the rows and columns the chat service writes.
 */
async function seedChats(agentId: string, count: number): Promise<void> {
  const { db, close } = await openNodeDatabase(node.dataDir);
  try {
    db.pragma('cache_size=-65536');
    const session = db.prepare(`INSERT INTO chat_sessions (session_id, created_by, participant_key, participant_count, created_at) VALUES (?, ?, ?, 2, ?)`);
    const participant = db.prepare(
      `INSERT INTO chat_participants (session_id, agent_id, remote_address, alias, address, did, last_read_id, last_read_at, joined_at, last_message_id) VALUES (?, ?, ?, ?, ?, 'did:key:z6MkSeeded', ?, ?, ?, ?)`,
    );
    const message = db.prepare(
      `INSERT INTO chat_messages (message_id, session_id, from_remote_address, from_alias, from_address, from_did, to_text, body, signature, signed_payload, timestamp, created_at)
       VALUES (?, ?, ?, ?, ?, 'did:key:z6MkSeeded', ?, ?, 'seeded', '{}', ?, ?)`,
    );
    const start = Date.now() - count * 1000 - 60_000;
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const name = `u${String(i).padStart(6, '0')}`;
        const address = `far.test/${name}`;
        const id = `seeded-${String(i).padStart(6, '0')}-${'0'.repeat(12)}`;
        const at = new Date(start + i * 1000).toISOString();
        // A participant on another node: no agent id, its address in remote_address (participant_key still says remote:<address>).
        session.run(id, agentId, [agentId, `remote:${address}`].sort().join(','), at);
        const row = Number(
          message.run(`${id}-m`, id, address, name, address, `${DOMAIN}/carol`, `Seeded message ${i} from ${name}`, at.slice(0, 19) + 'Z', at).lastInsertRowid,
        );
        participant.run(id, agentId, null, 'carol', `${DOMAIN}/carol`, row, at, at, row);
        participant.run(id, null, address, name, address, 0, null, at, row);
      }
    })();
  } finally {
    close();
  }
}

beforeAll(async () => {
  rig = await startRig();
  node = rig.node;
  await node.owner('POST', '/v1/node/namespaces', { domain: DOMAIN });
  const project = await node.owner('POST', '/v1/node/projects', { slug: 'chatters', name: 'Chatters', namespace: DOMAIN });
  for (const name of ['alice', 'bob', 'carol'])
    ids[name] = (await node.owner('POST', '/v1/node/identities', { project_id: project.project_id, name })).agent_id;
  // carol's long history first, so what happens in the test is newer than all of it.
  await seedChats(ids['carol'] as string, MANY);

  // A conversation alice and bob already had; bob has not read alice's last message yet.
  sessionId = (await as('alice', 'POST', '/v1/chat/sessions', { to_addresses: [`${DOMAIN}/bob`], message: 'Morning Bob, the draft is in the shared folder.' }))
    .session_id;
  const reply = await as('bob', 'POST', `/v1/chat/sessions/${sessionId}/messages`, { body: 'Thanks, reading it now.' });
  await as('bob', 'POST', `/v1/chat/sessions/${sessionId}/read`, { up_to_message_id: reply.message_id });
  await as('alice', 'POST', `/v1/chat/sessions/${sessionId}/messages`, { body: 'Take your time; the numbers on page 3 are the ones that changed.' });
  await as('alice', 'POST', '/v1/chat/sessions', { to_addresses: [`${DOMAIN}/carol`], message: 'Carol, lunch on Friday?' });

  context = await rig.browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light', reducedMotion: 'reduce' });
  const windowOptions = { section: 'nav-chat', sink: consoleErrors, timeout: WAIT };
  alice = await openWindow(context, node.info.ui_url, windowOptions);
  await actAs(alice, 'alice');
  bob = await openWindow(context, `${node.info.core_url}/ui/`, windowOptions);
  await actAs(bob, 'bob');
}, 180_000);

afterAll(() => stopRig(rig));

describe('Chat that behaves (headless node, Chromium)', { timeout: 60_000 }, () => {
  it('shows read receipts live, and still after a reload', async () => {
    await openChat(await use(alice), 'bob');
    const latest = conversation(alice).getByTestId('chat-message').filter({ hasText: 'page 3' });
    await latest.waitFor({ timeout: WAIT });
    // What bob read before (through the API) shows at once, from the history.
    await conversation(alice).getByTestId('chat-message').filter({ hasText: 'shared folder' }).getByTestId('read-receipt').waitFor({ timeout: WAIT });
    expect(await latest.getByTestId('read-receipt').count()).toBe(0);

    // Bob opens the chat: alice sees him read her last message, live.
    await openChat(await use(bob), 'alice');
    await latest.getByTestId('read-receipt').waitFor({ timeout: WAIT });
    expect(await latest.getByTestId('read-receipt').textContent()).toContain('Read by bob');

    // A reload keeps it: the history says how far bob has read (the stream replays no receipts).
    await (await use(alice)).reload();
    await openChat(alice, 'bob');
    const again = conversation(alice).getByTestId('chat-message').filter({ hasText: 'page 3' });
    await again.getByTestId('read-receipt').waitFor({ timeout: WAIT });
    expect(await again.getByTestId('read-receipt').textContent()).toContain('Read by bob');
    // One mark per reader: on my last message bob has read, not on every earlier one.
    expect(await conversation(alice).getByTestId('read-receipt').count()).toBe(1);
  });

  it('says the size limit before sending: a counter near it, Send disabled over it, and no request', async () => {
    await use(alice);
    const composer = alice.getByTestId('composer');
    const send = conversation(alice).getByTestId('send');
    const size = conversation(alice).getByTestId('message-size');
    const sends = countSends(alice);

    await composer.fill('x'.repeat(60 * 1024));
    await expect.poll(() => size.getAttribute('data-state')).toBe('near');
    expect(await size.textContent()).toContain('60 KiB of 64 KiB');
    expect(await send.isEnabled()).toBe(true);

    await composer.fill('y'.repeat(200_000));
    await expect.poll(() => size.getAttribute('data-state')).toBe('over');
    expect(await size.textContent()).toContain('Too long to send: 195.3 KiB, and a chat message holds at most 64 KiB.');
    expect(await send.isDisabled()).toBe(true);
    expect(await composer.getAttribute('aria-invalid')).toBe('true');
    await composer.press('Enter');
    await send.click({ force: true });
    await shot(alice, 'chat-size-limit');
    await inDark(alice, () => shot(alice, 'chat-size-limit-dark'));
    expect(sends.count).toBe(0);
    expect(await conversation(alice).locator('[data-delivery="failed"], [data-delivery="sending"]').count()).toBe(0);
    expect(await composer.inputValue()).toHaveLength(200_000);

    await composer.fill('');
    expect(await size.count()).toBe(0);
    sends.stop();
  });

  it('a refusal the node makes anyway is offered Edit, never a Retry that cannot work', async () => {
    await use(alice);
    const pattern = `**/v1/chat/sessions/${sessionId}/messages`;
    await alice.route(pattern, (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 413,
            contentType: 'application/json',
            body: JSON.stringify({ detail: 'body is 70000 bytes; a chat message holds at most 65536 bytes (64 KiB)' }),
          })
        : route.continue(),
    );
    try {
      const composer = alice.getByTestId('composer');
      await composer.fill('This one the node refuses.');
      await composer.press('Enter');
      const failed = conversation(alice).locator('[data-delivery="failed"]');
      await failed.waitFor({ timeout: WAIT });
      expect(await failed.getByRole('alert').textContent()).toContain('a chat message holds at most 65536 bytes (64 KiB)');
      expect(await failed.getByTestId('retry').count()).toBe(0);
      await failed.getByTestId('edit-failed').click();
      expect(await failed.count()).toBe(0);
      expect(await composer.inputValue()).toBe('This one the node refuses.');
      expect(await activeTestId(alice)).toBe('composer');
      await composer.fill('');
    } finally {
      await alice.unroute(pattern);
    }
  });

  it('leaving asks first; then the conversation, header, composer and row say so, also after a reload', async () => {
    await use(alice);
    const sends = countSends(alice);
    expect(await conversation(alice).getByTestId('chat-status').count()).toBeLessThanOrEqual(1);
    await conversation(alice).getByTestId('leave').click();
    const dialog = modal(alice);
    await dialog.getByTestId('leave-dialog').waitFor({ timeout: WAIT });
    expect(await dialog.textContent()).toContain('bob will see that you left. Until you rejoin you can read this chat but not write in it');
    // The safe choice has the focus.
    await expect.poll(() => alice.evaluate('document.activeElement?.textContent?.trim()')).toBe('Stay');
    await shot(alice, 'chat-leave-confirm');
    await inDark(alice, () => shot(alice, 'chat-leave-confirm-dark'));
    await dialog.getByRole('button', { name: 'Stay' }).click();
    await expect.poll(() => modal(alice).count()).toBe(0);
    expect(sends.count).toBe(0);
    expect(await alice.getByTestId('composer').count()).toBe(1);

    await conversation(alice).getByTestId('leave').click();
    await modal(alice).getByLabel('Parting words').fill(NOTE);
    await modal(alice).getByTestId('confirm-leave').click();
    await expect.poll(() => modal(alice).count()).toBe(0);
    expect(sends.count).toBe(1);
    sends.stop();

    // A line, not a bubble; the header and the composer say I am out; the cursor is on Rejoin.
    const mine = systemLine(alice, 'You left the chat');
    await mine.waitFor({ timeout: WAIT });
    expect(await mine.textContent()).toContain(NOTE);
    expect(await conversation(alice).getByTestId('chat-message').filter({ hasText: NOTE }).count()).toBe(0);
    expect(await conversation(alice).getByTestId('chat-status').textContent()).toBe('You left this chat');
    expect(await conversation(alice).locator('.conv-sub').textContent()).not.toContain('in the chat');
    expect(await alice.getByTestId('composer').count()).toBe(0);
    expect(await conversation(alice).getByTestId('leave').count()).toBe(0);
    await expect.poll(() => activeTestId(alice)).toBe('rejoin');
    await expect.poll(() => sessionRow(alice, 'bob').getByTestId('session-left').count()).toBe(1);
    expect(await sessionRow(alice, 'bob').textContent()).toContain('You left the chat');
    await shot(alice, 'chat-left');
    await inDark(alice, () => shot(alice, 'chat-left-dark'));

    // Bob sees it, live.
    await systemLine(bob, 'alice left the chat').waitFor({ timeout: WAIT });
    expect(await systemLine(bob, 'alice left the chat').textContent()).toContain(NOTE);
    await expect.poll(() => conversation(bob).getByTestId('chat-status').textContent()).toBe('left the chat');
    await use(bob);
    await shot(bob, 'chat-they-left');

    // After a reload, the same.
    await (await use(alice)).reload();
    await openChat(alice, 'bob');
    await systemLine(alice, 'You left the chat').waitFor({ timeout: WAIT });
    await alice.getByTestId('left-bar').waitFor({ timeout: WAIT });
    expect(await conversation(alice).getByTestId('chat-status').textContent()).toBe('You left this chat');
    expect(await alice.getByTestId('composer').count()).toBe(0);
    expect(await sessionRow(alice, 'bob').getByTestId('session-left').count()).toBe(1);
  });

  it('rejoining is explicit: Rejoin brings the composer back and everyone sees the return', async () => {
    await use(alice);
    await alice.getByTestId('rejoin').click();
    await systemLine(alice, 'You rejoined the chat').waitFor({ timeout: WAIT });
    await alice.getByTestId('composer').waitFor({ timeout: WAIT });
    await expect.poll(() => activeTestId(alice)).toBe('composer');
    expect(await conversation(alice).getByTestId('chat-status').filter({ hasText: 'You left' }).count()).toBe(0);
    expect(await conversation(alice).getByTestId('leave').count()).toBe(1);
    await expect.poll(() => sessionRow(alice, 'bob').getByTestId('session-left').count()).toBe(0);
    // The "left" line stays where it happened, followed by the return.
    const lines = await conversation(alice).getByTestId('system-line').allTextContents();
    expect(lines.map((line) => line.replace(/:.*/, '').trim())).toEqual(['You left the chat', 'You rejoined the chat']);
    await systemLine(bob, 'alice rejoined the chat').waitFor({ timeout: WAIT });

    const composer = alice.getByTestId('composer');
    await composer.fill('Back. Did page 3 make sense?');
    await composer.press('Enter');
    await conversation(bob).getByTestId('chat-message').filter({ hasText: 'Did page 3 make sense?' }).waitFor({ timeout: WAIT });
    const sessions = (await as('bob', 'GET', '/v1/chat/sessions')).sessions;
    expect(sessions.find((s: { session_id: string }) => s.session_id === sessionId)).toMatchObject({ participants_left: [], you_left: false });
  });

  it('keyboard: j/k move, Enter opens into the composer, Esc goes back to the list and then closes; shortcuts in tooltips', async () => {
    const page = await use(alice);
    const list = page.getByTestId('session-list');
    expect(await list.getAttribute('title')).toMatch(/J\/K move.*Enter opens.*Esc closes/);
    expect(await page.getByTestId('start-chat-button').getAttribute('title')).toContain('(N)');
    expect(await conversation(page).getByTestId('send').getAttribute('title')).toContain('Send (Enter)');

    await page.getByTestId('composer').press('Escape');
    await expect.poll(() => activeTestId(page)).toBe('session-list');
    await page.keyboard.press('Escape');
    await expect.poll(() => conversation(page).count()).toBe(0);
    await expect.poll(() => activeTestId(page)).toBe('session-list');

    // The rows, newest first: bob (just now), carol.
    expect(await list.getByRole('option').nth(0).textContent()).toContain('bob');
    expect(await list.getByRole('option').nth(1).textContent()).toContain('carol');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await expect.poll(() => list.getAttribute('aria-activedescendant')).toBe('session-row-1');
    await page.keyboard.press('Enter');
    await conversation(page).getByRole('heading', { level: 2, name: 'carol' }).waitFor({ timeout: WAIT });
    await expect.poll(() => activeTestId(page)).toBe('composer');
    await page.keyboard.press('Escape');
    await page.keyboard.press('k');
    await page.keyboard.press('Enter');
    await conversation(page).getByRole('heading', { level: 2, name: 'bob' }).waitFor({ timeout: WAIT });

    // N starts a chat from anywhere but a text field; Esc closes the dialog.
    await page.getByTestId('composer').press('Escape');
    await page.keyboard.press('n');
    await modal(page).getByTestId('start-chat').waitFor({ timeout: WAIT });
    await page.keyboard.press('Escape');
    await expect.poll(() => modal(page).count()).toBe(0);
  });

  it('a goodbye or a return in a chat that is not open says so in its row at once, not its text', async () => {
    await openChat(await use(alice), 'bob');
    const row = () => sessionRow(alice, 'carol').first();
    await row().waitFor({ timeout: WAIT });
    // Well inside the list's 20 s refresh: the live arrival itself says what it was.
    const bye = await as('carol', 'POST', '/v1/chat/sessions', {
      to_addresses: [`${DOMAIN}/alice`],
      message: 'Off for the weekend, see you Monday.',
      leaving: true,
    });
    await expect.poll(() => row().textContent(), { timeout: 5_000 }).toContain('carol left the chat');
    expect(await row().textContent()).not.toContain('Off for the weekend');
    await shot(alice, 'chat-row-goodbye');
    await as('carol', 'POST', `/v1/chat/sessions/${bye.session_id}/messages`, { body: 'Back after all.', rejoining: true });
    await expect.poll(() => row().textContent(), { timeout: 5_000 }).toContain('carol rejoined the chat');
  });

  it(`lists ${MANY.toLocaleString('en')} chats smoothly: a page at a time from the node, only the visible rows in the page`, async () => {
    // The node answers a page in the same time however many chats there are.
    const started = performance.now();
    const first = await as('carol', 'GET', '/v1/chat/sessions?limit=100');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(first.sessions).toHaveLength(100);
    expect(first.has_more).toBe(true);
    expect(first.sessions[0].participants).toEqual(['alice']);
    expect(first.sessions[1].participants).toEqual([`u${String(MANY - 1).padStart(6, '0')}`]);

    const page = await use(alice);
    await actAs(page, 'carol');
    await page.getByTestId('nav-chat').click();
    const list = page.getByTestId('session-list');
    await expect.poll(() => list.getAttribute('data-count'), { timeout: WAIT }).toBe('100');
    const rendered = () => list.getByRole('option').count();
    expect(await rendered()).toBeLessThan(40);
    await shot(page, 'chat-many');

    // Scrolling towards the end reads the next pages; the DOM stays small.
    for (const expected of ['200', '300']) {
      await list.evaluate((element) => (element.scrollTop = element.scrollHeight));
      await expect.poll(() => list.getAttribute('data-count'), { timeout: WAIT }).toBe(expected);
    }
    expect(await rendered()).toBeLessThan(40);
    // The rows on screen now are the ones around the 200th (where the last scroll reached): rendered where they belong.
    expect(Number(await list.getByRole('option').last().getAttribute('aria-posinset'))).toBeGreaterThan(190);
    expect(await list.getByRole('option').last().textContent()).toContain('Seeded message');

    // The keyboard reaches rows that were not rendered: Home jumps to the top, Enter opens.
    await list.focus();
    await page.keyboard.press('Home');
    await expect.poll(() => list.getAttribute('aria-activedescendant')).toBe('session-row-0');
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await conversation(page)
      .getByRole('heading', { level: 2, name: `u${String(MANY - 1).padStart(6, '0')}` })
      .waitFor({ timeout: WAIT });
    await shot(page, 'chat-many-open');
    await actAs(page, 'alice');
  });

  it('fits 1440, 1200 and 900 px wide in light and dark', async () => {
    const page = await use(alice);
    await openChat(page, 'bob');
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      // The theme follows the OS: make sure the page really is in it before taking its picture.
      await expectTheme(page, theme);
      for (const width of [1440, 1200, 900]) {
        await page.setViewportSize({ width, height: 820 });
        expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), `${theme} ${width}`).toBe(0);
        // The header, the last message and the composer are all on screen.
        for (const target of [conversation(page).getByRole('heading', { level: 2 }), page.getByTestId('composer'), conversation(page).getByTestId('leave')]) {
          const box = await target.boundingBox();
          expect(box, `${theme} ${width}`).not.toBeNull();
          expect((box?.x ?? 0) + (box?.width ?? 0), `${theme} ${width}`).toBeLessThanOrEqual(width);
        }
        await shot(page, `chat-${theme}-${width}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
