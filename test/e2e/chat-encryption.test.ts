/**
 * End-to-end encryption in Chat, driven as a person would in Debian's Chromium against a real
 * headless node. Alice is an identity whose keys the node holds; pocket holds its own and
 * publishes no encryption key. Their chat is plaintext, and the session row, the header and each
 * message say "Not end-to-end encrypted" (in words for screen readers and on hover, with the open
 * lock). A message alice sends that is refused for want of pocket's key comes back to her
 * composer with the node's reason and "Send as plaintext…": keeping it unsent sends nothing and
 * keeps the text; confirming upstream's warning sends it as plaintext by name, marked so. Start
 * chat offers the same for a first message. Every refusal is the node's own answer
 * (`SVC_ERR_E2EE_RECIPIENT_KEY_MISSING`). Bob, whose keys the node holds too, chats with alice
 * sealed: the row, the header and each message wear the lock, a reply included. Screenshots
 * (light, dark, 1024x700) go to test/e2e/screenshots/ (chat-encryption-*).
 */
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../support/node.ts';
import { genesisEntry, selfKey } from '../support/self-signer.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { actAs, openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const DOMAIN = 'sealed-chat-e2e.test';
const WAIT = 15_000;
const PLAINTEXT_WARNING = 'Sending as legacy plaintext. Subject/body may be stored and visible to the service.';
const FIRST = 'Hello pocket, plain words for now.';
const TYPED = 'Readable on purpose.';
const STARTED = 'Starting over, still readable.';
const SEALED = 'For your eyes only, alice.';

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
let pocketApiKey: string;
let sessionId: string;
let bobKey: string;
let sealedId: string;

const shot = (name: string): Promise<void> => saveShot(page, name);
const api = (method: string, path: string, token: string, body?: unknown) => requestJson(node.info.core_url, method, path, { token, body });
const sessionRow = () => page.getByTestId('session-list').getByRole('option').filter({ hasText: 'pocket' });
const conversation = () => page.getByTestId('conversation');
const messageRow = (text: string) => conversation().getByTestId('chat-message').filter({ hasText: text });
const sendsPath = () => `/v1/chat/sessions/${encodeURIComponent(sessionId)}/messages`;

/** The chat message POSTs the window makes, with their bodies (to see what went, and how). */
function watchSends(): { readonly bodies: Record<string, unknown>[]; stop(): void } {
  const bodies: Record<string, unknown>[] = [];
  const onRequest = (request: Request): void => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === sendsPath()) bodies.push(request.postDataJSON() as Record<string, unknown>);
  };
  page.on('request', onRequest);
  return { bodies, stop: () => page.off('request', onRequest) };
}

/** What pocket reads of the chat, through its own API key. */
async function pocketReads(): Promise<{ body: string; end_to_end: boolean; content_mode: string }[]> {
  const history = await api('GET', `${sendsPath()}?limit=50`, pocketApiKey);
  expect(history.status, JSON.stringify(history.body)).toBe(200);
  return history.body.messages;
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-chat',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => {
      node = started;
      await started.owner('POST', '/v1/node/namespaces', { domain: DOMAIN });
      const project = await started.owner('POST', '/v1/node/projects', { slug: 'home', name: 'Home', namespace: DOMAIN });
      const alice = await started.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'alice' });
      // Pocket: its client registers its did:svc, then the node makes the identity without a key of its own.
      const pocketKey = selfKey();
      const head = genesisEntry(pocketKey);
      const registered = await requestJson(started.info.core_url, 'POST', '/v1/did', { body: { ...head.payload, proof: head.signature } });
      expect(registered.status, JSON.stringify(registered.body)).toBeLessThan(300);
      const made = await requestJson(started.info.core_url, 'POST', '/v1/workspaces/init', {
        token: project.api_key,
        body: { name: 'pocket', lifetime: 'persistent', custody: 'self', did: pocketKey.didKey, public_key: pocketKey.publicKey.toString('base64') },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      pocketApiKey = made.body.api_key;
      // Alice's first message names plaintext, the one way a chat with pocket can start.
      const aliceKey = (await started.owner('POST', `/v1/node/identities/${alice.agent_id}/session-key`)).api_key;
      const opened = await api('POST', '/v1/chat/sessions', aliceKey, { to_aliases: ['pocket'], message: FIRST, content_mode: 'legacy_plaintext_v1' });
      expect(opened.status, JSON.stringify(opened.body)).toBeLessThan(300);
      sessionId = opened.body.session_id;
      // Bob: the node holds his keys as it holds alice's, so what they say to each other is sealed.
      const bob = await started.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'bob' });
      bobKey = (await started.owner('POST', `/v1/node/identities/${bob.agent_id}/session-key`)).api_key;
      const sealed = await api('POST', '/v1/chat/sessions', bobKey, { to_aliases: ['alice'], message: SEALED });
      expect(sealed.status, JSON.stringify(sealed.body)).toBeLessThan(300);
      sealedId = sealed.body.session_id;
    },
  });
  page = rig.page;
  await actAs(page, `${DOMAIN}/alice`, WAIT);
}, 90_000);

afterAll(() => stopRig(rig));

describe('End-to-end encryption in Chat (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('marks the session row of a plaintext chat, in words for screen readers and on hover', async () => {
    await page.getByTestId('nav-chat').click();
    await sessionRow().waitFor({ timeout: WAIT });
    const mark = sessionRow().getByTestId('session-encryption');
    await mark.waitFor({ timeout: WAIT });
    expect(await mark.getAttribute('data-encrypted')).toBe('false');
    expect((await mark.textContent())?.trim()).toBe('Not end-to-end encrypted');
    expect(await mark.getAttribute('title')).toMatch(/plaintext/);
    expect(await mark.locator('svg').getAttribute('aria-hidden')).toBe('true');
  });

  it('says it on the conversation’s header and on each message', async () => {
    await sessionRow().click();
    await conversation().getByRole('heading', { level: 2, name: 'pocket' }).waitFor({ timeout: WAIT });
    await messageRow(FIRST).waitFor({ timeout: WAIT });
    const header = conversation().getByTestId('chat-encryption-header');
    expect((await header.textContent())?.trim()).toBe('Not end-to-end encrypted');
    expect(await header.getAttribute('data-encrypted')).toBe('false');
    const mark = messageRow(FIRST).getByTestId('chat-encryption');
    expect((await mark.textContent())?.trim()).toBe('Not end-to-end encrypted');
    expect(await mark.getAttribute('data-encrypted')).toBe('false');
    await shot('chat-encryption-plaintext');
  });

  it('gives a message refused for want of a key back to the composer; keeping it unsent sends nothing', async () => {
    const sends = watchSends();
    try {
      const composer = page.getByTestId('composer');
      await composer.fill(TYPED);
      await composer.press('Enter');
      const offer = page.getByTestId('plaintext-offer');
      await offer.waitFor({ timeout: WAIT });
      expect(await offer.getByRole('alert').textContent()).toContain('publishes no valid encryption key, so nothing was sent');
      // The text is back where it was written, and nothing of it sits in the conversation.
      expect(await composer.inputValue()).toBe(TYPED);
      expect(await messageRow(TYPED).count()).toBe(0);
      expect(sends.bodies).toHaveLength(1);
      expect(sends.bodies[0]).not.toHaveProperty('content_mode');

      await offer.getByTestId('send-plaintext').click();
      const dialog = page.locator('dialog[open]').getByTestId('plaintext-dialog');
      await dialog.waitFor({ timeout: WAIT });
      expect((await dialog.getByTestId('plaintext-warning').textContent())?.trim()).toBe(PLAINTEXT_WARNING);
      expect(await dialog.getByTestId('plaintext-reason').textContent()).toContain(`${DOMAIN}/pocket publishes no valid encryption key`);
      expect(await page.evaluate('document.activeElement?.textContent?.trim()')).toBe('Keep it unsent');
      await shot('chat-encryption-plaintext-confirm');
      await dialog.getByTestId('keep-unsent').click();
      await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);

      expect(await composer.inputValue()).toBe(TYPED);
      expect(sends.bodies).toHaveLength(1);
      expect((await pocketReads()).map((m) => m.body)).toEqual([FIRST]);
    } finally {
      sends.stop();
    }
  });

  it('sends it as plaintext only once confirmed, marked “Not end-to-end encrypted” here and for pocket', async () => {
    const sends = watchSends();
    try {
      await page.getByTestId('plaintext-offer').getByTestId('send-plaintext').click();
      const dialog = page.locator('dialog[open]').getByTestId('plaintext-dialog');
      await dialog.waitFor({ timeout: WAIT });
      await dialog.getByTestId('confirm-plaintext').click();

      const sent = messageRow(TYPED).and(page.locator('[data-delivery="sent"]'));
      await sent.waitFor({ timeout: WAIT });
      const mark = sent.getByTestId('chat-encryption');
      await expect.poll(() => mark.textContent(), { timeout: WAIT }).toContain('Not end-to-end encrypted');
      expect(await mark.getAttribute('data-encrypted')).toBe('false');
      expect(await page.getByTestId('composer').inputValue()).toBe('');
      expect(await page.getByTestId('plaintext-offer').count()).toBe(0);
      expect(sends.bodies).toEqual([expect.objectContaining({ body: TYPED, content_mode: 'legacy_plaintext_v1' })]);
      expect((await conversation().getByTestId('chat-encryption-header').textContent())?.trim()).toBe('Not end-to-end encrypted');
      await expect.poll(() => sessionRow().getByTestId('session-encryption').getAttribute('data-encrypted'), { timeout: WAIT }).toBe('false');

      expect(await pocketReads()).toMatchObject([
        { body: FIRST, end_to_end: false, content_mode: 'legacy_plaintext_v1' },
        { body: TYPED, end_to_end: false, content_mode: 'legacy_plaintext_v1' },
      ]);
      await shot('chat-encryption-light');
    } finally {
      sends.stop();
    }
  });

  it('offers the same when starting a chat: keeping it unsent keeps the dialog’s text, confirming starts it as plaintext', async () => {
    const starts: Record<string, unknown>[] = [];
    const onRequest = (request: Request): void => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/chat/sessions')
        starts.push(request.postDataJSON() as Record<string, unknown>);
    };
    page.on('request', onRequest);
    try {
      await page.getByTestId('start-chat-button').click();
      const start = page.locator('dialog[open]').filter({ has: page.getByTestId('start-chat') });
      await start.waitFor({ timeout: WAIT });
      await start.getByLabel('With').fill(`${DOMAIN}/pocket`);
      await start.getByLabel('Message', { exact: true }).fill(STARTED);
      await start.getByLabel('Message', { exact: true }).press('Enter');
      await start.getByTestId('send-plaintext').waitFor({ timeout: WAIT });
      expect(await start.getByRole('alert').textContent()).toContain('publishes no valid encryption key, so nothing was sent');
      expect(starts).toHaveLength(1);
      expect(starts[0]).not.toHaveProperty('content_mode');

      await start.getByTestId('send-plaintext').click();
      const confirm = page.locator('dialog[open]').getByTestId('plaintext-dialog');
      await confirm.waitFor({ timeout: WAIT });
      expect((await confirm.getByTestId('plaintext-warning').textContent())?.trim()).toBe(PLAINTEXT_WARNING);
      await confirm.getByTestId('keep-unsent').click();
      await expect.poll(() => confirm.count()).toBe(0);
      expect(await start.getByLabel('Message', { exact: true }).inputValue()).toBe(STARTED);
      expect(starts).toHaveLength(1);

      await start.getByTestId('send-plaintext').click();
      await confirm.getByTestId('confirm-plaintext').click();
      await expect.poll(() => page.locator('dialog[open]').count(), { timeout: WAIT }).toBe(0);
      expect(starts).toEqual([expect.anything(), expect.objectContaining({ message: STARTED, content_mode: 'legacy_plaintext_v1' })]);
      // Writing to pocket again continues the chat, and its new message is marked.
      const mark = messageRow(STARTED).getByTestId('chat-encryption');
      await mark.waitFor({ timeout: WAIT });
      expect(await mark.getAttribute('data-encrypted')).toBe('false');
      expect((await pocketReads()).map((m) => [m.body, m.end_to_end])).toEqual([
        [FIRST, false],
        [TYPED, false],
        [STARTED, false],
      ]);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('leaving and rejoining a chat with pocket, refused for want of its key, go as plaintext only once asked', async () => {
    await sessionRow().click();
    await conversation().getByRole('heading', { level: 2, name: 'pocket' }).waitFor({ timeout: WAIT });
    const before = (await pocketReads()).length;
    await conversation().getByTestId('leave').click();
    const dialog = page.locator('dialog[open]').filter({ has: page.getByTestId('leave-dialog') });
    await dialog.waitFor({ timeout: WAIT });
    await dialog.getByLabel('Parting words').fill('Off for today.');
    await dialog.getByTestId('confirm-leave').click();
    // The node refused the goodbye: the dialog says why and what leaving now means, and sent nothing.
    await dialog.getByTestId('leave-plaintext-warning').waitFor({ timeout: WAIT });
    expect((await dialog.getByTestId('leave-plaintext-warning').textContent())?.trim()).toBe(PLAINTEXT_WARNING);
    expect(await dialog.textContent()).toContain('publishes no valid encryption key');
    expect((await dialog.getByTestId('confirm-leave').textContent())?.trim()).toBe('Leave as plaintext');
    expect(await pocketReads()).toHaveLength(before);
    await dialog.getByTestId('confirm-leave').click();
    await expect.poll(() => page.locator('dialog[open]').count(), { timeout: WAIT }).toBe(0);
    await page.getByTestId('left-bar').waitFor({ timeout: WAIT });

    // Rejoining is a message too: refused the same way, and offered as plaintext, asked first.
    await page.getByTestId('rejoin').click();
    await page.getByTestId('rejoin-plaintext').waitFor({ timeout: WAIT });
    expect(await page.getByTestId('left-bar').textContent()).toContain('publishes no valid encryption key');
    await page.getByTestId('rejoin-plaintext').click();
    const confirm = page.locator('dialog[open]').getByTestId('plaintext-dialog');
    await confirm.waitFor({ timeout: WAIT });
    await confirm.getByTestId('keep-unsent').click();
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    expect(await page.getByTestId('left-bar').count()).toBe(1);
    await page.getByTestId('rejoin-plaintext').click();
    await confirm.getByTestId('confirm-plaintext').click();
    await page.getByTestId('composer').waitFor({ timeout: WAIT });

    const reads = await pocketReads();
    expect(reads.slice(before).map((m) => [m.body, m.end_to_end])).toEqual([
      ['Off for today.', false],
      ['Rejoined the chat.', false],
    ]);
  });

  it('locks a chat between identities whose keys the node holds: row, header and each message, a reply included', async () => {
    await page.getByTestId('nav-chat').click();
    const row = page.getByTestId('session-list').getByRole('option').filter({ hasText: 'bob' });
    await row.waitFor({ timeout: WAIT });
    expect(await row.getByTestId('session-encryption').getAttribute('data-encrypted')).toBe('true');
    expect((await row.getByTestId('session-encryption').textContent())?.trim()).toBe('End-to-end encrypted');
    await row.click();
    await conversation().getByRole('heading', { level: 2, name: 'bob' }).waitFor({ timeout: WAIT });
    const header = conversation().getByTestId('chat-encryption-header');
    await expect.poll(() => header.getAttribute('data-encrypted'), { timeout: WAIT }).toBe('true');
    expect((await header.textContent())?.trim()).toBe('End-to-end encrypted');
    expect(await messageRow(SEALED).getByTestId('chat-encryption').getAttribute('data-encrypted')).toBe('true');
    const composer = page.getByTestId('composer');
    await composer.fill('Sealed reply.');
    await composer.press('Enter');
    const sent = messageRow('Sealed reply.').and(page.locator('[data-delivery="sent"]'));
    await expect.poll(() => sent.getByTestId('chat-encryption').getAttribute('data-encrypted'), { timeout: WAIT }).toBe('true');
    const history = await api('GET', `/v1/chat/sessions/${sealedId}/messages?limit=10`, bobKey);
    expect(history.body.messages).toMatchObject([
      { body: SEALED, end_to_end: true, content_mode: 'server_readable_hosted' },
      { body: 'Sealed reply.', end_to_end: true, content_mode: 'server_readable_hosted' },
    ]);
    await shot('chat-encryption-sealed');
  });

  it('renders in dark mode and in a 1024x700 window', async () => {
    await emulateColorScheme(page, 'dark');
    await shot('chat-encryption-dark');
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1024, height: 700 });
    await conversation().getByTestId('chat-encryption-header').waitFor({ timeout: WAIT });
    await shot('chat-encryption-1024x700');
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
