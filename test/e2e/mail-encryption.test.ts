/**
 * End-to-end encryption in Mail and Identities, driven as a person would in Debian's Chromium
 * against a real headless node. Alice and bob are identities whose keys the node holds; pocket holds
 * its own and publishes no encryption key, and its client sends plaintext it signs itself. Alice's
 * inbox shows a lock on bob's sealed mail (and on its thread) and "Not end-to-end encrypted" on
 * pocket's; her mail to pocket is refused for want of a key, never resent on its own, and goes as
 * plaintext only after she chooses "Send as plaintext" and confirms upstream's warning. Then she
 * turns plaintext off in her identity's details, and pocket's next plaintext mail is refused.
 * Screenshots (light, dark, 1024x700) go to test/e2e/screenshots/.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityList } from '../../contract/node/identities.ts';
import { requestJson } from '../support/node.ts';
import { genesisEntry, selfKey, signedFields, type Envelope, type SelfKey } from '../support/self-signer.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { actAs, openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const DOMAIN = 'sealed-e2e.test';
const WAIT = 15_000;
const PLAINTEXT_WARNING = 'Sending as legacy plaintext. Subject/body may be stored and visible to the service.';

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
const agents: Record<string, { agent_id: string; did_key: string; did_aw: string }> = {};
let pocketKey: SelfKey;
let pocketApiKey: string;
let bobKey: string;

const shot = (name: string): Promise<void> => saveShot(page, name);
const api = (method: string, path: string, token: string, body?: unknown) => requestJson(node.info.core_url, method, path, { token, body });
const mailRow = (subject: string) => page.getByTestId('mail-list').getByRole('option').filter({ hasText: subject });
const outbox = () => page.getByTestId('outbox');

/** Pocket's client sends alice plaintext it signed itself: it does not encrypt. */
function pocketSends(subject: string, body: string) {
  const alice = agents.alice!;
  const envelope: Envelope = {
    type: 'mail',
    from: `${DOMAIN}/pocket`,
    to: 'alice',
    to_did: alice.did_key,
    to_stable_id: alice.did_aw,
    from_stable_id: pocketKey.didSvc,
    subject,
    body,
  };
  return api('POST', '/v1/messages', pocketApiKey, { to_alias: 'alice', subject, body, ...signedFields(pocketKey, envelope) });
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-mail',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => {
      node = started;
      await started.owner('POST', '/v1/node/namespaces', { domain: DOMAIN });
      const project = await started.owner('POST', '/v1/node/projects', { slug: 'home', name: 'Home', namespace: DOMAIN });
      for (const name of ['alice', 'bob']) {
        const created = await started.owner('POST', '/v1/node/identities', { project_id: project.project_id, name });
        agents[name] = { agent_id: created.agent_id, did_key: created.did_key, did_aw: created.did_aw };
      }
      bobKey = (await started.owner('POST', `/v1/node/identities/${agents.bob!.agent_id}/session-key`)).api_key;
      // Pocket: its client registers its did:svc, then the node makes the identity without a key of its own.
      pocketKey = selfKey();
      const head = genesisEntry(pocketKey);
      const registered = await requestJson(started.info.core_url, 'POST', '/v1/did', { body: { ...head.payload, proof: head.signature } });
      expect(registered.status, JSON.stringify(registered.body)).toBeLessThan(300);
      const made = await requestJson(started.info.core_url, 'POST', '/v1/workspaces/init', {
        token: project.api_key,
        body: { name: 'pocket', lifetime: 'persistent', custody: 'self', did: pocketKey.didKey, public_key: pocketKey.publicKey.toString('base64') },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      pocketApiKey = made.body.api_key;
      // Bob's mail to alice is sealed; alice's reply keeps the thread sealed. Pocket's is plaintext.
      const sealed = await api('POST', '/v1/messages', bobKey, { to_address: `${DOMAIN}/alice`, subject: 'Sealed numbers', body: 'Revenue is up.' });
      expect(sealed.status, JSON.stringify(sealed.body)).toBe(200);
      const aliceKey = (await started.owner('POST', `/v1/node/identities/${agents.alice!.agent_id}/session-key`)).api_key;
      const reply = await api('POST', '/v1/messages', aliceKey, {
        to_address: `${DOMAIN}/bob`,
        subject: 'Re: Sealed numbers',
        body: 'Great news.',
        thread_id: sealed.body.message_id,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const old = await pocketSends('From an old client', 'No encryption here.');
      expect(old.status, JSON.stringify(old.body)).toBe(200);
    },
  });
  page = rig.page;
  await actAs(page, `${DOMAIN}/alice`, WAIT);
}, 90_000);

afterAll(() => stopRig(rig));

describe('End-to-end encryption in the app (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('locks the encrypted mail in the list and marks the plaintext one, in words for screen readers', async () => {
    await page.getByTestId('nav-mail').click();
    await mailRow('Sealed numbers').waitFor({ timeout: WAIT });
    await mailRow('From an old client').waitFor({ timeout: WAIT });
    const sealedMark = mailRow('Sealed numbers').getByTestId('row-encryption');
    expect(await sealedMark.getAttribute('data-encrypted')).toBe('true');
    expect((await sealedMark.textContent())?.trim()).toBe('End-to-end encrypted');
    expect(await sealedMark.locator('svg').getAttribute('aria-hidden')).toBe('true');
    const plainMark = mailRow('From an old client').getByTestId('row-encryption');
    expect(await plainMark.getAttribute('data-encrypted')).toBe('false');
    expect((await plainMark.textContent())?.trim()).toBe('Not end-to-end encrypted');
    expect(await plainMark.getAttribute('title')).toMatch(/plaintext/);
  });

  it('says it on the open message, and locks a thread whose every message is encrypted', async () => {
    await mailRow('From an old client').click();
    const pane = page.getByTestId('reading-pane');
    await pane.filter({ hasText: 'No encryption here.' }).waitFor({ timeout: WAIT });
    expect((await pane.getByTestId('mail-encryption').textContent())?.trim()).toBe('Not end-to-end encrypted');
    await shot('mail-encryption-plaintext');

    await mailRow('Sealed numbers').click();
    await pane.filter({ hasText: 'Revenue is up.' }).waitFor({ timeout: WAIT });
    expect((await pane.getByTestId('mail-encryption').textContent())?.trim()).toBe('End-to-end encrypted');
    const thread = page.getByTestId('mail-thread');
    await thread.waitFor({ timeout: WAIT });
    const threadMark = thread.getByTestId('thread-encryption');
    expect((await threadMark.textContent())?.trim()).toBe('End-to-end encrypted');
    expect(await threadMark.getAttribute('data-encrypted')).toBe('true');
    await shot('mail-encryption-light');
  });

  it('shows a refusal for a recipient without a key, resends nothing by itself, and sends plaintext only when asked and confirmed', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('c');
    const dialog = page.locator('dialog[open]');
    await dialog.getByTestId('compose').waitFor({ timeout: WAIT });
    await dialog.getByLabel('To', { exact: true }).fill(`${DOMAIN}/pocket`);
    await dialog.getByLabel('Subject').fill('Plain words');
    await dialog.getByLabel('Message').fill('Readable on purpose.');
    await page.keyboard.press('Control+Enter');
    const failed = outbox().locator('[data-state="failed"]');
    await failed.waitFor({ timeout: WAIT });
    expect(await failed.getByRole('alert').textContent()).toContain('publishes no valid encryption key, so nothing was sent');
    // Nothing went: no silent fallback.
    const pocketInbox = await api('GET', '/v1/messages/inbox', pocketApiKey);
    expect(pocketInbox.body.messages).toEqual([]);
    // The plaintext choice stands apart from Retry, and asks first.
    expect(await failed.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    await failed.getByTestId('send-plaintext').click();
    const confirm = page.getByTestId('plaintext-dialog');
    await confirm.waitFor({ timeout: WAIT });
    expect((await confirm.getByTestId('plaintext-warning').textContent())?.trim()).toBe(PLAINTEXT_WARNING);
    expect(await confirm.textContent()).toContain(`pocket publishes no encryption key`);
    expect(await page.evaluate('document.activeElement?.textContent?.trim()')).toBe('Keep it unsent');
    await shot('mail-encryption-plaintext-confirm');
    await confirm.getByTestId('confirm-plaintext').click();

    const sent = outbox().locator('[data-state="sent"]');
    await sent.waitFor({ timeout: WAIT });
    expect(await sent.getByTestId('outbox-plaintext').textContent()).toContain('not end-to-end encrypted, by your choice');
    const arrived = await api('GET', '/v1/messages/inbox', pocketApiKey);
    expect(arrived.body.messages).toMatchObject([
      { subject: 'Plain words', body: 'Readable on purpose.', end_to_end: false, content_mode: 'legacy_plaintext_v1' },
    ]);
  });

  it('marks the plaintext send in Sent, and locks the sealed one', async () => {
    await page.getByTestId('folder-sent').click();
    const plain = page.getByTestId('sent-row').filter({ hasText: 'Plain words' });
    await plain.waitFor({ timeout: WAIT });
    expect(await plain.getByTestId('row-encryption').getAttribute('data-encrypted')).toBe('false');
    const sealed = page.getByTestId('sent-row').filter({ hasText: 'Re: Sealed numbers' });
    expect(await sealed.getByTestId('row-encryption').getAttribute('data-encrypted')).toBe('true');
    await plain.click();
    const pane = page.getByTestId('sent-pane');
    await pane.waitFor({ timeout: WAIT });
    expect((await pane.getByTestId('mail-encryption').textContent())?.trim()).toBe('Not end-to-end encrypted');
  });

  it('turns plaintext off in the identity’s details, and the next plaintext mail is refused with nothing stored', async () => {
    await page.getByTestId('nav-identities').click();
    await page.getByTestId('identity-list').getByRole('option').filter({ hasText: 'alice' }).click();
    const details = page.locator('dialog[open]');
    const setting = details.getByTestId('plaintext-setting');
    await setting.waitFor({ timeout: WAIT });
    const box = setting.getByTestId('accepts-plaintext');
    expect(await box.isChecked()).toBe(true);
    expect(await setting.textContent()).toContain('marked “Not end-to-end encrypted”');
    await box.uncheck();
    await expect.poll(() => setting.textContent(), { timeout: WAIT }).toContain('Only end-to-end encrypted mail arrives');
    const listed = IdentityList.parse(await node.owner('GET', '/v1/node/identities')).identities.find((i) => i.alias === 'alice');
    expect(listed?.accepts_plaintext).toBe(false);
    await shot('identity-accepts-plaintext-off');

    const refused = await pocketSends('Another old one', 'Still plaintext.');
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('SVC_ERR_E2EE_PLAINTEXT_REFUSED');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
  });

  it('renders in dark mode and in a 1024x700 window', async () => {
    await page.getByTestId('nav-mail').click();
    await page.getByTestId('folder-inbox').click();
    await mailRow('Sealed numbers').click();
    await page.getByTestId('mail-thread').waitFor({ timeout: WAIT });
    await emulateColorScheme(page, 'dark');
    await shot('mail-encryption-dark');
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByTestId('reading-pane').getByTestId('mail-encryption').waitFor({ timeout: WAIT });
    await shot('mail-encryption-1024x700');
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
