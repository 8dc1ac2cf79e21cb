/**
 * Settings → Backups while a backup is written, in Debian's Chromium against a real headless node
 * whose encrypted database holds about 300 MB (seeded while the node was stopped), so a backup
 * takes seconds: the panel shows a progress bar that moves through the database's chunks, and
 * Cancel stops the backup: the panel says nothing was added, the folder holds no manifest, and the
 * node says no backup runs and none was made. A second backup then runs to its end. Screenshots of
 * the running backup (light, dark, a narrow window) go to test/e2e/screenshots/.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeDatabase } from '../support/database.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import { startHeadlessNode, type HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot, stopRig, type AppRig } from './steps.ts';

const WAIT = 20_000;
/** Rows of about 3 KB, no two alike: about 300 MB of database, several seconds of backup. */
const ROWS = 100_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'svc-e2e-backup-'));

/** Fills the stopped node's database with settings rows nothing reads, made by SQLite itself. */
async function seed(dataDir: string): Promise<void> {
  const { db, close } = await openNodeDatabase(dataDir);
  try {
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO node_settings (key, value) SELECT 'e2e-filler-' || i, hex(randomblob(1536)) FROM n`,
    ).run(ROWS);
  } finally {
    close();
  }
}

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-settings',
    sink: consoleErrors,
    timeout: WAIT,
    start: async () => {
      const first = await startHeadlessNode();
      await first.stop();
      await seed(first.dataDir);
      return startHeadlessNode(30_000, { dataDir: first.dataDir });
    },
    prepare: async (started) => void (await started.owner('POST', '/v1/node/setup', { name: 'alice' })),
  });
  ({ node, page } = rig);
  await page.getByTestId('nav-settings').click();
}, 180_000);

afterAll(async () => {
  await stopRig(rig);
  rmSync(scratch, { recursive: true, force: true });
});

const panel = () => page.getByTestId('backup-panel');
const progress = () => panel().getByTestId('backup-progress');

describe('Settings → Backups while a backup runs (headless node, Chromium)', { timeout: 90_000 }, () => {
  it('shows a progress bar through the chunks, and Cancel stops the backup with nothing added', async () => {
    await panel().getByTestId('last-backup').waitFor({ timeout: WAIT });
    const folder = join(scratch, 'usb-backups');
    await panel().getByTestId('backup-folder').fill(folder);
    await panel().getByTestId('back-up-now').click();

    await progress().waitFor({ timeout: WAIT });
    // The bar moves once the database is read and its chunks are sealed.
    await expect.poll(async () => Number(await progress().getAttribute('aria-valuenow')), { timeout: WAIT, interval: 50 }).toBeGreaterThan(0);
    expect(await progress().getAttribute('aria-valuetext')).toMatch(/^Sealing the database: \d+ of \d+ chunks$/);
    expect(await panel().getByTestId('back-up-now').isDisabled()).toBe(true);
    await panel().scrollIntoViewIfNeeded();
    for (const theme of ['light', 'dark'] as const) {
      await emulateColorScheme(page, theme);
      await shot(page, `settings-backup-running-${theme}`);
    }
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1024, height: 700 });
    await panel().getByTestId('backup-progress').scrollIntoViewIfNeeded();
    await shot(page, 'settings-backup-running-narrow');
    await page.setViewportSize({ width: 1280, height: 820 });

    await panel().getByTestId('backup-cancel').click();
    await panel().getByTestId('backup-cancelled').waitFor({ timeout: WAIT });
    expect(await panel().getByTestId('backup-cancelled').textContent()).toBe('Cancelled: nothing was added to the folder.');
    expect(await progress().count()).toBe(0);
    expect(await panel().getByRole('alert').count()).toBe(0);
    expect(readdirSync(join(folder, 'manifests'))).toEqual([]);
    expect(await node.owner('GET', '/v1/node/backups')).toMatchObject({ running: null, last_backup_at: null });
    expect(await panel().getByTestId('last-backup').textContent()).toMatch(/No backup yet/);
  });

  it('runs the next backup to its end', async () => {
    await panel().getByTestId('back-up-now').click();
    await panel().getByTestId('backup-done').waitFor({ timeout: 60_000 });
    expect(await progress().count()).toBe(0);
    expect(await panel().getByTestId('backup-cancelled').count()).toBe(0);
    await expect.poll(() => panel().getByTestId('last-backup').textContent(), { timeout: WAIT }).toMatch(/Last backup .+, into/);
    expect(readdirSync(join(scratch, 'usb-backups', 'manifests'))).toHaveLength(1);
  });

  it('logged nothing unexpected in the console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
