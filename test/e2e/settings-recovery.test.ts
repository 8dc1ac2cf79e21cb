/**
 * Settings → Recovery, driven in Debian's Chromium against a real headless node: a node without a
 * recovery kit marks Settings in the sidebar and says in Settings what is at stake; making a kit
 * offers a generated seven-word phrase, asks to retype a phrase of one's own and for the box that
 * says it is written down, then saves the kit with the browser's download. The saved file is the
 * real kit: `svc-node kit restore` opens it with that phrase into a new data dir. The panel then
 * says the kit holds every key, and the sidebar's mark and the Identities view's warning are gone.
 * Settings → Backups refuses a relative folder, backs up now into a folder (sealed files appear
 * there, and the panel says when it ran) and keeps a daily schedule the node then holds.
 * Screenshots (light, dark, a narrow window) go to test/e2e/screenshots/.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHRASE_WORDS, WORDS } from '../../contract/node/kit-words.ts';
import { runCli } from '../support/cli.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'svc-e2e-kit-'));

const panel = () => page.getByTestId('recovery-panel');
const modal = () => page.locator('dialog[open]');
const attention = () => page.getByTestId('nav-settings').getByTestId('nav-attention');

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

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-settings',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => void (await started.owner('POST', '/v1/node/setup', { name: 'alice' })),
  });
  ({ node, page } = rig);
  await page.getByTestId('nav-settings').click();
}, 90_000);

afterAll(async () => {
  await stopRig(rig);
  rmSync(scratch, { recursive: true, force: true });
});

describe('Settings → Recovery (headless node, Chromium)', { timeout: 90_000 }, () => {
  it('marks Settings and says what is at stake while no kit exists', async () => {
    await expect.poll(() => attention().count(), { timeout: WAIT }).toBe(1);
    expect(await attention().getAttribute('aria-label')).toMatch(/recovery kit/i);
    await panel().getByTestId('kit-missing').waitFor({ timeout: WAIT });
    expect(await panel().getByTestId('kit-missing').textContent()).toMatch(/No recovery kit yet/);
    await panel().scrollIntoViewIfNeeded();
    await shots('settings-recovery-missing');
  });

  it('offers a generated phrase, asks twice for one of your own, and waits for the written-down box', async () => {
    await panel().getByTestId('make-kit').click();
    await modal().waitFor({ timeout: WAIT });
    const field = modal().getByTestId('kit-passphrase');
    const generated = await field.inputValue();
    const words = generated.split(' ');
    expect(words).toHaveLength(PHRASE_WORDS);
    for (const word of words) expect(WORDS).toContain(word);
    const create = modal().getByTestId('kit-create');
    expect(await create.isDisabled()).toBe(true);
    await saveShot(page, 'settings-recovery-dialog');

    await field.fill('a phrase of my own choosing');
    await modal().getByTestId('kit-passphrase-again').fill('a phrase of my own chosing');
    await modal().getByTestId('kit-written-down').check();
    expect(await modal().getByTestId('kit-problem').textContent()).toBe('The two passphrases differ.');
    expect(await create.isDisabled()).toBe(true);
    await modal().getByTestId('kit-passphrase-again').fill('a phrase of my own choosing');
    await expect.poll(() => create.isDisabled()).toBe(false);
  });

  it('saves the kit, which svc-node kit restore opens with that phrase', async () => {
    const phrase = 'a phrase of my own choosing';
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: WAIT }), modal().getByTestId('kit-create').click()]);
    expect(download.suggestedFilename()).toMatch(/^svc-node-recovery-kit-[0-9a-f-]{8}-\d{4}-\d{2}-\d{2}\.json$/);
    const file = join(scratch, download.suggestedFilename());
    await download.saveAs(file);
    await modal().getByTestId('kit-made').waitFor({ timeout: WAIT });
    await saveShot(page, 'settings-recovery-saved');
    const kit = readFileSync(file, 'utf8');
    expect(kit).toContain('svc-node.recovery-kit');
    expect(kit).not.toContain(phrase);

    const restored = join(scratch, 'restored');
    const wrong = await runCli(['kit', 'restore', file, '--data', restored, '--json'], { SVC_NODE_KIT_PASSPHRASE: 'not the phrase at all' });
    expect(wrong.code).not.toBe(0);
    expect(() => statSync(restored)).toThrow();
    const right = await runCli(['kit', 'restore', file, '--data', restored, '--json'], { SVC_NODE_KIT_PASSPHRASE: phrase });
    expect(right.code, right.stderr).toBe(0);
    const { node_id } = (await node.owner('GET', '/v1/node/info')) as { node_id: string };
    expect(JSON.parse(right.stdout)).toMatchObject({ data_dir: restored, node_id });
  });

  it('says the kit holds every key once made; the mark and the Identities warning are gone', async () => {
    await modal().getByRole('button', { name: 'Done' }).click();
    await panel().getByTestId('kit-current').waitFor({ timeout: WAIT });
    await expect.poll(() => attention().count(), { timeout: WAIT }).toBe(0);
    await shots('settings-recovery-current');
    await page.getByTestId('nav-identities').click();
    await page.getByRole('heading', { name: 'Identities', level: 1 }).waitFor({ timeout: WAIT });
    expect(await page.getByTestId('key-loss-warning').count()).toBe(0);
  });

  it('Backups: refuses a relative folder, backs up now into a folder, and keeps a schedule', async () => {
    await page.getByTestId('nav-settings').click();
    const backups = page.getByTestId('backup-panel');
    await backups.getByTestId('last-backup').waitFor({ timeout: WAIT });
    expect(await backups.getByTestId('last-backup').textContent()).toMatch(/No backup yet/);
    await backups.getByTestId('backup-folder').fill('usb/backups');
    expect(await backups.getByTestId('back-up-now').isDisabled()).toBe(true);
    expect(await backups.textContent()).toContain('Use a full path, starting with /.');

    const folder = join(scratch, 'usb-backups');
    await backups.getByTestId('backup-folder').fill(folder);
    await backups.getByTestId('back-up-now').click();
    await backups.getByTestId('backup-done').waitFor({ timeout: WAIT });
    expect(await backups.getByTestId('backup-done').textContent()).toMatch(/^\s*Done: \d+ new chunks? of \d+, .+ written;\s+1 backup kept in the folder\.\s*$/);
    await expect.poll(() => backups.getByTestId('last-backup').textContent(), { timeout: WAIT }).toMatch(/Last backup .+, into/);
    expect(readdirSync(folder).length).toBeGreaterThan(0);

    await backups.getByTestId('backup-every').selectOption('24');
    await backups.getByTestId('backup-schedule-save').click();
    await expect.poll(() => backups.getByTestId('backup-schedule').textContent(), { timeout: WAIT }).toMatch(/Every 24 hours, into/);
    expect(await node.owner('GET', '/v1/node/backups')).toMatchObject({ schedule: { to: folder, every_hours: 24 } });
    await backups.scrollIntoViewIfNeeded();
    await shots('settings-backups');
  });

  it('logged nothing unexpected in the console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
