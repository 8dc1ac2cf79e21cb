/**
 * Mail and chat between two nodes, as the owner of one of them sees it, driven in Debian's
 * Chromium against two real headless nodes (separate data dirs, free ports) that know each other
 * as peers. Node A hosts a.test/alice, whom the browser acts as; node B hosts b.test/bob and the
 * contacts-only b.test/carol, driven through B's identity API. Mail: alice writes to bob (queued,
 * then delivered in "Sent to other nodes"), bob's reply arrives live "via" his node with its
 * signature badge; mail to carol bounces back as a message from this node with the reason, and
 * its outbound row says bounced. Chat: a group across nodes is refused in the node's words; a
 * chat with bob shows him as on another node, the first message becomes delivered, and bob's
 * answer arrives live with its signature badge; a chat message to carol says it was not
 * delivered and why (and the bounce is in the inbox); one to a domain no node is known for stays
 * queued with the last error. Screenshots (light, dark, 1024x700) go to test/e2e/screenshots/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureUiBuilt, ROOT } from './build-ui.ts';
import { launchChromium, openApp, unexpectedConsoleErrors } from './browser.ts';
import { startHeadlessNode, type HeadlessNode } from './headless-node.ts';

const SHOTS = join(ROOT, 'test/e2e/screenshots');
const ALICE = 'a.test/alice';
const BOB = 'b.test/bob';
const CAROL = 'b.test/carol';
const SUBJECT = 'Across the nodes';
const REPLY_SUBJECT = `Re: ${SUBJECT}`;
const CAROL_SUBJECT = 'For carol, who only takes mail from contacts';
const WAIT = 15_000;
/** Delivery happens in the background; "Sent to other nodes" re-reads every 10 s. */
const DELIVERY_WAIT = 30_000;

let nodeA: HeadlessNode;
let nodeB: HeadlessNode;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
/** Bob on node B: his key (did:key) and a session key for B's identity API. */
const bob = { did: '', apiKey: '' };

/** A call to node B's identity API as bob; throws on a non-2xx answer. */
async function asBob(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${nodeB.info.core_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bob.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} as bob: ${response.status} ${text}`);
  return JSON.parse(text);
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** The host part of a node URL, as the UI names a node ("127.0.0.1:41234"). */
const hostOf = (url: string): string => new URL(url).host;

const modal = () => page.locator('dialog[open]');

/** Starts a chat from the Chat view's dialog and waits for it to open. */
async function startChat(to: string, message: string): Promise<void> {
  await page.getByTestId('start-chat-button').click();
  const dialog = modal();
  await dialog.getByTestId('start-chat').waitFor({ timeout: WAIT });
  await dialog.getByLabel('With').fill(to);
  await dialog.getByLabel('Message').fill(message);
  await dialog.getByLabel('Message').press('Enter');
  await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
  await page
    .getByTestId('conversation')
    .getByRole('heading', { level: 2, name: to.slice(to.indexOf('/') + 1) })
    .waitFor({ timeout: WAIT });
}
const mailRow = (subject: string) => page.getByTestId('mail-list').getByRole('option').filter({ hasText: subject });
const outboundRow = (subject: string) => page.getByTestId('outbound-row').filter({ hasText: subject });

beforeAll(async () => {
  ensureUiBuilt();
  mkdirSync(SHOTS, { recursive: true });
  [nodeA, nodeB] = await Promise.all([startHeadlessNode(), startHeadlessNode()]);
  return async () => {
    for (const node of [nodeA, nodeB]) await node.dispose();
  };
}, 90_000);
beforeAll(async () => {
  expect(nodeA.dataDir).not.toBe(nodeB.dataDir);
  expect(nodeA.info.core_url).not.toBe(nodeB.info.core_url);

  // Node A: a.test, a project bound to it, alice.
  await nodeA.owner('POST', '/v1/node/namespaces', { domain: 'a.test' });
  const projectA = await nodeA.owner('POST', '/v1/node/projects', { slug: 'alpha', name: 'Alpha', namespace: 'a.test' });
  await nodeA.owner('POST', '/v1/node/identities', { project_id: projectA.project_id, name: 'alice' });

  // Node B: b.test, bob, and carol who only takes messages from her contacts.
  await nodeB.owner('POST', '/v1/node/namespaces', { domain: 'b.test' });
  const projectB = await nodeB.owner('POST', '/v1/node/projects', { slug: 'beta', name: 'Beta', namespace: 'b.test' });
  const createdBob = await nodeB.owner('POST', '/v1/node/identities', { project_id: projectB.project_id, name: 'bob' });
  await nodeB.owner('POST', '/v1/node/identities', { project_id: projectB.project_id, name: 'carol', address_reachability: 'contacts-only' });
  bob.did = createdBob.did;
  bob.apiKey = (await nodeB.owner('POST', `/v1/node/identities/${createdBob.agent_id}/session-key`)).api_key;

  // Each node knows where the other one answers.
  await nodeA.owner('POST', '/v1/node/peers', { domain: 'b.test', url: nodeB.info.core_url });
  await nodeB.owner('POST', '/v1/node/peers', { domain: 'a.test', url: nodeA.info.core_url });
});
beforeAll(async () => {
  const chrome = await launchChromium();
  browser = chrome.browser;
  return () => chrome.close();
});
beforeAll(async () => {
  ({ context, page } = await openApp(browser, nodeA, { section: 'nav-mail', sink: consoleErrors, timeout: WAIT }));
  return () => context.close();
});
beforeAll(async () => {
  await page.getByTestId('identity-switcher').filter({ hasText: ALICE }).waitFor({ timeout: WAIT });
});

describe('Mail and chat between two nodes (two headless nodes, Chromium)', { timeout: 60_000 }, () => {
  it('alice mails bob on the other node: queued, then delivered in "Sent to other nodes"', async () => {
    await page.getByTestId('nav-mail').click();
    await page.getByTestId('mail-empty').waitFor({ timeout: WAIT });
    await page.getByTestId('compose-button').click();
    const dialog = modal();
    await dialog.getByTestId('compose').waitFor({ timeout: WAIT });
    await dialog.getByLabel('To', { exact: true }).fill(BOB);
    await dialog.getByLabel('Subject').fill(SUBJECT);
    await dialog.getByLabel('Message').fill('Hi Bob,\n\nThis one crosses from node A to node B.\n\nAlice');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => modal().count()).toBe(0);
    const sent = page.getByTestId('outbox').locator('[data-state="sent"]');
    await sent.waitFor({ timeout: WAIT });
    expect(await sent.textContent()).toContain(`Queued for ${BOB} (another node)`);

    await page.getByTestId('folder-outbound').click();
    const row = outboundRow(SUBJECT);
    await row.waitFor({ timeout: WAIT });
    expect(await row.textContent()).toContain(BOB);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: DELIVERY_WAIT }).toBe('delivered');
    expect(await row.getByTestId('outbound-status').textContent()).toBe('Delivered');
    expect(await row.textContent()).toContain(`Delivered to ${hostOf(nodeB.info.core_url)}`);

    // Node B has it in bob's inbox, from alice's address, as mail from another node.
    const inbox = (await asBob('GET', '/v1/messages/inbox')).messages;
    expect(inbox.find((m: any) => m.subject === SUBJECT)).toMatchObject({ from_address: ALICE, origin: 'remote' });
  });

  it('bob’s reply arrives live in alice’s inbox, via his node, with its signature badge', async () => {
    await page.getByTestId('folder-inbox').click();
    await asBob('POST', '/v1/messages', {
      to_addresses: [ALICE],
      subject: REPLY_SUBJECT,
      body: 'Hi Alice,\n\nIt did. Answering from node B.\n\nBob',
      priority: 'normal',
    });
    const row = mailRow(REPLY_SUBJECT);
    await row.waitFor({ timeout: WAIT });
    expect(page.url()).not.toContain('code='); // live, no reload
    const via = `via ${hostOf(nodeB.info.core_url)}`;
    expect(await row.getByTestId('mail-origin').textContent()).toBe(via);

    await row.click();
    const pane = page.getByTestId('reading-pane');
    await pane.getByRole('heading', { level: 2, name: REPLY_SUBJECT }).waitFor({ timeout: WAIT });
    expect(await pane.getByTestId('from-address').textContent()).toBe(BOB);
    expect(await pane.getByTestId('from-node').textContent()).toBe(via);
    expect(await pane.getByTestId('from-node').getAttribute('title')).toContain('checked the sender’s address and signature');
    const badge = pane.getByTestId('signature-badge');
    expect(await badge.textContent()).toMatch(/^Verified · z6Mk\w+…\w{4}$/);
    expect(await badge.getAttribute('title')).toContain(bob.did);
    // A valid signature from another node, but nobody checked that node's domain in DNS.
    expect(await pane.getByTestId('sender-trust').textContent()).toBe('Domain unverified');
    await shot('federation-mail');
  });

  it('mail to contacts-only carol bounces: a message from this node with the reason; the outbound row says bounced', async () => {
    await page.getByTestId('compose-button').click();
    const dialog = modal();
    await dialog.getByTestId('compose').waitFor({ timeout: WAIT });
    await dialog.getByLabel('To', { exact: true }).fill(CAROL);
    await dialog.getByLabel('Subject').fill(CAROL_SUBJECT);
    await dialog.getByLabel('Message').fill('Hello Carol.');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => modal().count()).toBe(0);

    const bounce = mailRow(`Undeliverable: ${CAROL_SUBJECT}`);
    await bounce.waitFor({ timeout: DELIVERY_WAIT });
    expect(await bounce.getByTestId('mail-origin').textContent()).toBe('this node');
    await bounce.click();
    const pane = page.getByTestId('reading-pane');
    await pane.getByRole('heading', { level: 2, name: `Undeliverable: ${CAROL_SUBJECT}` }).waitFor({ timeout: WAIT });
    expect(await pane.getByTestId('from-this-node').textContent()).toBe('From this node (postmaster)');
    expect(await pane.getByTestId('signature-badge').textContent()).toBe('From this node');
    const text = await pane.textContent();
    expect(text).toContain(`could not be delivered`);
    expect(text).toContain(`${CAROL} only accepts messages from contacts`);
    expect(await pane.getByTestId('reply').count()).toBe(0);

    await page.getByTestId('folder-outbound').click();
    const row = outboundRow(CAROL_SUBJECT);
    await row.waitFor({ timeout: WAIT });
    expect(await row.getAttribute('data-status')).toBe('bounced');
    expect(await row.getByTestId('outbound-status').textContent()).toBe('Bounced');
    expect(await row.textContent()).toContain('only accepts messages from contacts');

    await page.setViewportSize({ width: 1024, height: 700 });
    await row.waitFor({ timeout: WAIT });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await shot('federation-mail-1024x700');
    await page.setViewportSize({ width: 1280, height: 820 });
    await page.getByTestId('folder-inbox').click();
  });

  it('a group chat across nodes is refused in the node’s words', async () => {
    await page.getByTestId('nav-chat').click();
    await page.getByTestId('start-chat-button').click();
    const dialog = modal();
    await dialog.getByTestId('start-chat').waitFor({ timeout: WAIT });
    const to = dialog.getByLabel('With');
    await to.fill(BOB);
    await to.press('Enter');
    await to.fill(CAROL);
    await to.press('Enter');
    await expect.poll(() => dialog.getByTestId('recipient-chip').count()).toBe(2);
    await dialog.getByLabel('Message').fill('Both of you?');
    await dialog.getByLabel('Message').press('Enter');
    const error = dialog.getByRole('alert');
    await error.waitFor({ timeout: WAIT });
    expect(await error.textContent()).toContain('a chat across nodes has two participants');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('alice chats with bob: bob is on another node, the message becomes delivered, his answer arrives live and signed', async () => {
    await startChat(BOB, 'Bob, are you there on node B?');
    const conversation = page.getByTestId('conversation');
    await conversation.waitFor({ timeout: WAIT });
    const marker = conversation.getByTestId('chat-remote-marker');
    await marker.waitFor({ timeout: WAIT });
    expect(await marker.textContent()).toContain('another node');
    expect(await marker.getAttribute('title')).toBe('Messages go through federation: queued until that node takes them');
    expect(await conversation.locator('.conv-sub').textContent()).toContain(BOB);
    await page.getByTestId('session-remote-marker').first().waitFor({ timeout: WAIT });

    const mine = conversation.getByTestId('chat-message').filter({ hasText: 'Bob, are you there on node B?' });
    await mine.waitFor({ timeout: WAIT });
    const delivery = mine.getByTestId('chat-delivery');
    await expect.poll(() => delivery.getAttribute('data-status'), { timeout: DELIVERY_WAIT }).toBe('delivered');
    expect(await delivery.textContent()).toContain('Delivered');
    expect(await delivery.getAttribute('title')).toBe(`Taken by the node at ${hostOf(nodeB.info.core_url)}.`);

    // Bob answers in his copy of the session on node B.
    const sessions = (await asBob('GET', '/v1/chat/sessions')).sessions;
    const session = sessions.find((s: any) => s.participant_addresses.includes(ALICE));
    expect(session).toBeDefined();
    await asBob('POST', `/v1/chat/sessions/${session.session_id}/messages`, { body: 'Yes — answering from node B.' });

    const answer = conversation.getByTestId('chat-message').filter({ hasText: 'answering from node B' });
    await answer.waitFor({ timeout: WAIT });
    expect(await answer.textContent()).toContain('bob');
    expect(await answer.getByTestId('chat-delivery').count()).toBe(0);
    const badge = answer.getByTestId('signature-badge');
    expect(await badge.textContent()).toMatch(/^Verified · z6Mk\w+…\w{4}$/);
    expect(await badge.getAttribute('title')).toContain(bob.did);
    await shot('federation-chat');
  });

  it('alice writes again: queued or delivered at once, delivered soon; renders in dark mode', async () => {
    const conversation = page.getByTestId('conversation');
    const composer = page.getByTestId('composer');
    await composer.fill('Good to hear. Talk later.');
    await composer.press('Enter');
    const second = conversation.getByTestId('chat-message').filter({ hasText: 'Talk later.' });
    const delivery = second.getByTestId('chat-delivery');
    await delivery.waitFor({ timeout: WAIT });
    expect(['queued', 'delivered']).toContain(await delivery.getAttribute('data-status'));
    await expect.poll(() => delivery.getAttribute('data-status'), { timeout: DELIVERY_WAIT }).toBe('delivered');
    await expect
      .poll(async () => (await asBob('GET', '/v1/chat/sessions')).sessions.find((s: any) => s.participant_addresses.includes(ALICE))?.unread_count, {
        timeout: WAIT,
      })
      .toBeGreaterThanOrEqual(1);

    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('federation-chat-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('a chat message to contacts-only carol says it was not delivered, with the reason', async () => {
    await startChat(CAROL, 'Carol, may I chat with you?');
    const conversation = page.getByTestId('conversation');
    await conversation.getByTestId('chat-remote-marker').waitFor({ timeout: WAIT });
    const mine = conversation.getByTestId('chat-message').filter({ hasText: 'may I chat with you?' });
    const delivery = mine.getByTestId('chat-delivery');
    await expect.poll(() => delivery.getAttribute('data-status'), { timeout: DELIVERY_WAIT }).toBe('bounced');
    expect(await delivery.textContent()).toContain(
      `Not delivered: the node for b.test (${nodeB.info.core_url}) refused it: ${CAROL} only accepts messages from contacts`,
    );
    await shot('federation-chat-bounced');
    // The bounce also came as mail from this node.
    await page.getByTestId('nav-mail').click();
    const bounce = mailRow('Undeliverable: Chat: Carol, may I chat with you?');
    await bounce.waitFor({ timeout: WAIT });
    expect(await bounce.getByTestId('mail-origin').textContent()).toBe('this node');
    await page.getByTestId('nav-chat').click();
    await page.getByTestId('session-list').waitFor({ timeout: WAIT });
  });

  it('a chat message to a domain no node is known for stays queued, with the attempts and the last error', async () => {
    await startChat('elsewhere.test/dan', 'Anyone at elsewhere.test?');
    const conversation = page.getByTestId('conversation');
    await conversation.getByTestId('chat-remote-marker').waitFor({ timeout: WAIT });
    const delivery = conversation.getByTestId('chat-message').filter({ hasText: 'Anyone at elsewhere.test?' }).getByTestId('chat-delivery');
    await delivery.waitFor({ timeout: WAIT });
    expect(await delivery.getAttribute('data-status')).toBe('queued');
    expect(await delivery.textContent()).toContain('Queued');
    // Re-read every 5 s while queued: the first attempt's error shows in the hint.
    await expect
      .poll(() => delivery.getAttribute('title'), { timeout: DELIVERY_WAIT })
      .toMatch(/^\d+ attempts? so far; this node keeps trying\. Last error: no node is known for elsewhere\.test/);
    expect(await delivery.getAttribute('data-status')).toBe('queued');

    await page.setViewportSize({ width: 1024, height: 700 });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await shot('federation-chat-1024x700');
    await page.setViewportSize({ width: 1280, height: 820 });
  });

  it('left no unexpected console errors', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
