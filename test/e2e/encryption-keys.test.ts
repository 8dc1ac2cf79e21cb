/**
 * Encryption key health in the Identities view, driven as a person would in Debian's Chromium
 * against a real headless node: the warning that the node holds the keys, each identity's key
 * badge (published for the node's own identity, not published for one holding its own keys), the
 * details saying when the key renews, then Rotate key asked once (saying old messages stay
 * readable) and the details saying "rotated", as the node's list says too.
 * Screenshots (light, dark, 1024x700) go to test/e2e/screenshots/.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityList } from '../../contract/node/identities.ts';
import { requestJson } from '../support/node.ts';
import { selfKey } from '../support/self-signer.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const DOMAIN = 'keys-e2e.test';
const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];

const shot = (name: string): Promise<void> => saveShot(page, name);
const identityRow = (name: string) => page.getByTestId('identity-list').getByRole('option').filter({ hasText: name });
const dialogTitled = (title: string) => page.locator('dialog[open]').filter({ has: page.getByRole('heading', { name: title }) });

async function listedKey(alias: string) {
  const list = IdentityList.parse(await node.owner('GET', '/v1/node/identities'));
  return list.identities.find((identity) => identity.alias === alias)!.encryption_key;
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-identities',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => {
      // Alice, whose keys the node holds; and "pocket", an agent that holds its own.
      await started.owner('POST', '/v1/node/setup', { name: 'alice', domain: DOMAIN });
      const project = await started.owner('POST', '/v1/node/projects', { slug: 'pockets' });
      const key = selfKey();
      const made = await requestJson(started.info.core_url, 'POST', '/v1/workspaces/init', {
        token: project.api_key,
        body: { alias: 'pocket', custody: 'self', did: key.didKey, public_key: key.publicKey.toString('base64') },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    },
  });
  ({ node, page } = rig);
}, 90_000);

afterAll(() => stopRig(rig));

describe('Encryption key health (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('warns that the node holds the keys, and badges each identity’s key', async () => {
    await page.getByTestId('nav-identities').click();
    await page.getByRole('heading', { name: 'Identities', level: 1 }).waitFor({ timeout: WAIT });
    const warning = page.getByTestId('key-loss-warning');
    await warning.waitFor({ timeout: WAIT });
    expect(await warning.textContent()).toMatch(
      /losing the node \(its database and its key store\) loses their\s+encrypted messages for good, unless a recovery kit holds the keys/,
    );
    expect(await warning.getByRole('link', { name: 'Make one in Settings → Recovery' }).getAttribute('href')).toMatch(/\/settings$/);
    await expect.poll(() => identityRow('alice').count(), { timeout: WAIT }).toBe(1);
    const aliceBadge = identityRow('alice').getByTestId('identity-key-badge');
    expect((await aliceBadge.textContent())?.trim()).toBe('Key published');
    expect(await aliceBadge.getAttribute('title')).toMatch(/^End-to-end encryption key: published, renews /);
    const pocketBadge = identityRow('pocket').getByTestId('identity-key-badge');
    expect((await pocketBadge.textContent())?.trim()).toBe('No key');
    expect(await pocketBadge.getAttribute('title')).toBe('End-to-end encryption key: not published (the identity holds its own keys).');
    await shot('identity-keys-light');
  });

  it('opens an identity holding its own keys: not published, and nothing for the node to rotate', async () => {
    await identityRow('pocket').click();
    const details = dialogTitled('pocket');
    await details.waitFor({ timeout: WAIT });
    expect((await details.getByTestId('key-health-text').textContent())?.trim()).toBe(
      'End-to-end encryption key: not published (the identity holds its own keys)',
    );
    expect(await details.getByRole('button', { name: 'Rotate key' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
  });

  it('opens alice’s details by keyboard: published, when it renews, never rotated', async () => {
    // Pocket, opened last, is the list's current row: k moves up to alice.
    await page.getByTestId('identity-list').focus();
    await page.keyboard.press('k');
    await page.keyboard.press('Enter');
    const details = dialogTitled('alice');
    await details.waitFor({ timeout: WAIT });
    expect((await details.getByTestId('key-health-text').textContent())?.trim()).toMatch(/^End-to-end encryption key: published, renews \d{1,2} [A-Z][a-z]{2}/);
    expect(await details.getByTestId('key-rotated').count()).toBe(0);
    await shot('identity-key-detail');
  });

  it('rotates the key after asking once, saying old messages stay readable; then says "rotated"', async () => {
    const before = await listedKey('alice');
    const details = dialogTitled('alice');
    await details.getByRole('button', { name: 'Rotate key' }).click();
    const confirm = page.getByTestId('rotate-key-dialog');
    await confirm.waitFor({ timeout: WAIT });
    expect(await confirm.textContent()).toContain('Old messages stay readable');
    expect(await confirm.textContent()).toContain(`${DOMAIN}/alice`);
    // The safe choice has the focus: Enter right away would keep the key.
    expect(await page.evaluate('document.activeElement?.textContent?.trim()')).toBe('Keep this key');
    await shot('identity-key-rotate');
    await page.getByTestId('confirm-rotate-key').click();
    await expect.poll(() => confirm.isVisible(), { timeout: WAIT }).toBe(false);

    // The details, still open, follow the rotation.
    const rotated = details.getByTestId('key-rotated');
    await rotated.waitFor({ timeout: WAIT });
    expect(await rotated.textContent()).toMatch(/^\s*Rotated just now · 1 earlier key, kept so old messages stay readable\s*$/);
    expect(await details.getByTestId('key-health-text').textContent()).toMatch(/published, renews/);
    const after = await listedKey('alice');
    expect(after).toMatchObject({ state: 'published', earlier_keys: 1 });
    expect(after.encryption_key_id).not.toBe(before.encryption_key_id);
    expect(await details.textContent()).toContain(after.encryption_key_id!);
    await shot('identity-key-rotated');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
  });

  it('renders in dark mode and in a 1024x700 window', async () => {
    await emulateColorScheme(page, 'dark');
    await shot('identity-keys-dark');
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByTestId('key-loss-warning').waitFor({ timeout: WAIT });
    const overflow = await page.evaluate(
      "(() => { const main = document.querySelector('main'); return [document.documentElement.scrollWidth - document.documentElement.clientWidth, main ? main.scrollWidth - main.clientWidth : 0]; })()",
    );
    expect(overflow).toEqual([0, 0]);
    await shot('identity-keys-1024x700');
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
