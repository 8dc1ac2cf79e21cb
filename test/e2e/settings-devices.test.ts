/**
 * Settings → Devices, driven in Debian's Chromium against a real headless node: the panel lists
 * this computer as "This device", with nothing to revoke. "Link a new device" shows, step by step,
 * the command to run on the other computer (Copy puts it on the clipboard), the address and the
 * code apart, and the time the code has left. The real `svc-node device join` with that code then
 * makes a new device, and the panel shows it at once, without a reload (the owner feed's
 * `devices_changed`), and says it joined. Revoking it asks first, saying what it does and what to
 * do if the device may be in someone else's hands; then the list keeps it, marked revoked, and the
 * node has it revoked. A code whose ten minutes are out says so and offers a new one. Axe finds
 * nothing serious with the steps showing or the dialog open. Screenshots (light, dark, a narrow
 * window) go to test/e2e/screenshots/.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { seriousViolations } from './axe.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'svc-e2e-devices-'));
let shown: { url: string; code: string; command: string };

const panel = () => page.getByTestId('devices-panel');
const rows = () => panel().getByTestId('device-row');
const row = (name: string) => rows().filter({ has: page.getByTestId('device-name').getByText(name, { exact: true }) });
const dialog = () => page.getByTestId('revoke-device-dialog');

/** The panel at both themes and a narrow window, as `<name>-<theme>` and `<name>-narrow`. */
async function shots(name: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await emulateColorScheme(page, theme);
    await saveShot(page, `${name}-${theme}`);
  }
  await emulateColorScheme(page, 'light');
  await page.setViewportSize({ width: 1024, height: 700 });
  await saveShot(page, `${name}-narrow`);
  await page.setViewportSize({ width: 1280, height: 820 });
}

/** Axe's serious findings on the page as it is, in both themes. */
async function audit(): Promise<string[]> {
  const found: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await emulateColorScheme(page, theme);
    found.push(...(await seriousViolations(page)).map((line) => `${theme}: ${line}`));
  }
  await emulateColorScheme(page, 'light');
  return found;
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-settings',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => void (await started.owner('POST', '/v1/node/setup', { name: 'alice' })),
  });
  ({ node, page } = rig);
  await page.getByRole('navigation', { name: 'Sections' }).getByTestId('nav-settings').click();
}, 90_000);

afterAll(async () => {
  await stopRig(rig);
  rmSync(scratch, { recursive: true, force: true });
});

describe('Settings → Devices (headless node, Chromium)', { timeout: 90_000 }, () => {
  it('lists this computer as this device, with nothing to revoke', async () => {
    await rows().first().waitFor({ timeout: WAIT });
    expect(await rows().count()).toBe(1);
    const self = rows().first();
    expect(await self.getAttribute('data-this')).toBe('true');
    expect(await self.getByTestId('device-this').textContent()).toBe('This device');
    expect(await self.getByTestId('device-revoke').count()).toBe(0);
    expect(await panel().getByTestId('devices-only-this').isVisible()).toBe(true);
    const { devices } = (await node.owner('GET', '/v1/node/devices')) as { devices: { name: string; this_device: boolean }[] };
    expect(await self.getByTestId('device-name').textContent()).toBe(devices[0]!.name);
    await panel().scrollIntoViewIfNeeded();
    await shots('settings-devices');
  });

  it('“Link a new device” shows the command, the address and the code apart, and the time left', async () => {
    const link = panel().getByTestId('link-device');
    expect(await link.textContent()).toMatch(/sealed so that only it can open them.*nothing passes through any server but your own nodes/s);
    await link.getByTestId('link-start').click();
    const steps = link.getByTestId('link-steps');
    await steps.waitFor({ timeout: WAIT });
    // The keyboard follows to the steps that replaced the button.
    expect(await page.evaluate("document.activeElement?.getAttribute('data-testid')")).toBe('link-steps');

    shown = {
      url: (await steps.getByTestId('link-url').textContent())!,
      code: (await steps.getByTestId('link-code').textContent())!,
      command: (await steps.getByTestId('link-command').textContent())!,
    };
    expect(shown.url).toBe(node.info.core_url);
    expect(shown.code).toMatch(/^svc_link_[0-9a-f]{32}$/);
    expect(shown.command).toBe(`svc-node device join ${shown.url} ${shown.code} --data NEW_DIR`);
    expect(await steps.getByTestId('link-countdown').textContent()).toMatch(/Works for (10:00|9:[0-5]\d)/);
    expect(await steps.textContent()).toMatch(/works once, and only for the next ten minutes/);
    // No tunnel or public listener: the panel says only this computer can reach that address.
    expect(await steps.getByTestId('link-local-only').isVisible()).toBe(true);

    await steps.getByRole('button', { name: 'Copy command' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()'), { timeout: WAIT }).toBe(shown.command);

    expect(await audit()).toEqual([]);
    await steps.scrollIntoViewIfNeeded();
    await shots('settings-devices-link');
  });

  it('shows the device that joins with the code at once, without a reload', async () => {
    // A mark in the window's memory: a reload would lose it.
    await page.evaluate("window.devicesMark = 'kept'");
    const joined = await runCli(['device', 'join', shown.url, shown.code, '--data', join(scratch, 'laptop'), '--name', 'Laptop', '--json']);
    expect(joined.code, joined.stderr).toBe(0);

    await row('Laptop').waitFor({ timeout: WAIT });
    expect(await page.evaluate('window.devicesMark')).toBe('kept');
    expect(await rows().count()).toBe(2);
    expect(await row('Laptop').getAttribute('data-this')).toBe('false');
    expect(await row('Laptop').getByTestId('device-seen').textContent()).toMatch(/last seen/);
    const done = panel().getByTestId('link-joined');
    await done.waitFor({ timeout: WAIT });
    expect(await done.textContent()).toMatch(/Laptop joined/);
    await done.scrollIntoViewIfNeeded();
    await saveShot(page, 'settings-devices-joined');
  });

  it('revokes it after a confirmation that says what it does; the list keeps it, marked revoked', async () => {
    // From the keyboard: Delete on its row asks; Esc keeps it.
    await row('Laptop').focus();
    await page.keyboard.press('Delete');
    await dialog().waitFor({ timeout: WAIT });
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'hidden', timeout: WAIT });
    expect(await row('Laptop').getAttribute('data-revoked')).toBe('false');

    await row('Laptop').getByTestId('device-revoke').click();
    await dialog().waitFor({ timeout: WAIT });
    const words = await dialog().textContent();
    expect(words).toMatch(/receives nothing from this node from now on/);
    expect(words).toMatch(/give every identity new keys too/);
    expect(await audit()).toEqual([]);
    await saveShot(page, 'settings-devices-revoke');

    // It may be in someone else's hands: every identity gets new keys with it.
    type Identities = { identities: { alias: string; did_key: string }[] };
    const didKeyOf = async () => ((await node.owner('GET', '/v1/node/identities')) as Identities).identities.find((i) => i.alias === 'alice')?.did_key;
    const before = await didKeyOf();
    await page.getByTestId('revoke-device-rotate').check();
    await page.getByTestId('confirm-revoke-device').click();
    await dialog().waitFor({ state: 'hidden', timeout: WAIT });
    await expect.poll(() => row('Laptop').getAttribute('data-revoked'), { timeout: WAIT }).toBe('true');
    expect(await row('Laptop').getByTestId('device-revoked').textContent()).toMatch(/^Revoked /);
    expect(await row('Laptop').getByTestId('device-revoke').count()).toBe(0);
    const { devices } = (await node.owner('GET', '/v1/node/devices')) as { devices: { name: string; revoked_at: string | null }[] };
    expect(devices.find((device) => device.name === 'Laptop')?.revoked_at).toEqual(expect.any(String));
    await expect.poll(didKeyOf, { timeout: WAIT }).not.toBe(before);
    // What the panel said of it ("Laptop joined") no longer holds: the panel offers a new link instead.
    expect(await panel().getByTestId('link-joined').count()).toBe(0);
    expect(await panel().getByTestId('link-start').isVisible()).toBe(true);
    await panel().scrollIntoViewIfNeeded();
    await shots('settings-devices-revoked');
  });

  it('says when a code ran out before a device joined, and offers a new one', async () => {
    await page.clock.install();
    await panel().getByTestId('link-start').click();
    const first = await panel().getByTestId('link-code').textContent();
    await page.clock.fastForward('10:01');
    const expired = panel().getByTestId('link-expired');
    await expired.waitFor({ timeout: WAIT });
    expect(await expired.textContent()).toMatch(/expired before a device joined/);
    await expired.getByTestId('link-again').click();
    await panel().getByTestId('link-steps').waitFor({ timeout: WAIT });
    expect(await panel().getByTestId('link-code').textContent()).not.toBe(first);
  });

  it('logged nothing unexpected in the console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
