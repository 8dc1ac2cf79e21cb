/**
 * A shelf of 100,000 profiles in Debian's Chromium against a real headless node: the list opens
 * on its first page, only the rows in view are in the page whatever has been read, scrolling
 * reads the next pages (never the whole shelf at once), the keyboard moves through it and keeps
 * the active row in view, and a profile an agent adds appears live. The shelf is written straight
 * into the node's database (rows as the API writes them, each with its own profile.yaml and
 * digest), since 100,000 signed requests would take minutes. Screenshots:
 * test/e2e/screenshots/shelf-large-*.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileDigest } from '../../server/surfaces/library/domain/digest.ts';
import { payloadFile } from '../../server/surfaces/library/domain/payload.ts';
import { openNodeDatabase } from '../support/database.ts';
import { profileFiles } from '../support/library.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const TEAM_ID = 'many:e2e-large.test';
const PROFILES = 100_000;
const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];
/** Every GET /v1/shelf the page sent, as its query string. */
const shelfReads: string[] = [];

/** `p-004217`: zero-padded, so ref order is number order. */
const refOf = (i: number): string => `p-${String(i).padStart(6, '0')}`;

/** One profile's files as POST /v1/profiles stores them, cheaply (no YAML library per row). */
function storedFiles(i: number) {
  const ref = refOf(i);
  const manifest = `id: ${ref}\nversion: 0.1.0\nname: Agent ${i}\nmission: Handle batch ${i % 97}.\ninstructions: instructions.md\n`;
  return [payloadFile('instructions.md', `# Agent ${i}\n`), payloadFile('profile.yaml', manifest)];
}

/** The first profile through the API, then copies of its rows for the rest, in one transaction. */
async function seedShelf(): Promise<void> {
  await node.asTeamOwner(TEAM_ID, 'POST', '/v1/profiles', { files: profileFiles({ ref: refOf(0), name: 'Agent 0' }) });
  const { db, close } = await openNodeDatabase(node.dataDir);
  try {
    const profile = db.prepare(`SELECT * FROM shelf_profiles WHERE team_id = ?`).get(TEAM_ID) as Record<string, unknown>;
    const version = db.prepare(`SELECT * FROM shelf_versions WHERE team_id = ?`).get(TEAM_ID) as Record<string, unknown>;
    const insert = (table: string, columns: string[]) =>
      db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
    const insertProfile = insert('shelf_profiles', Object.keys(profile));
    const insertVersion = insert(
      'shelf_versions',
      Object.keys(version).filter((c) => c !== 'seq'),
    );
    db.pragma('cache_size=-131072');
    db.transaction(() => {
      for (let i = 1; i < PROFILES; i++) {
        const files = storedFiles(i);
        insertProfile.run({ ...profile, profile_ref: refOf(i) });
        insertVersion.run({ ...version, profile_ref: refOf(i), files: JSON.stringify(files), digest: profileDigest(files) });
      }
    })();
  } finally {
    close();
  }
}

const shot = (name: string): Promise<void> => saveShot(page, `shelf-large-${name}`);

const list = () => page.getByTestId('shelf-list');
const rowsInPage = () => list().getByRole('option').count();
const count = () => page.getByTestId('shelf-count').textContent();
const title = () => page.getByTestId('profile-pane').locator('h1').textContent();

/** Scrolls the list's own scroller to its end (what a person does dragging the scrollbar down). */
const scrollToEnd = () => page.evaluate(`(() => { const s = document.querySelector('[data-testid="shelf-list"]'); s.scrollTop = s.scrollHeight; })()`);

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-shelf',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => {
      node = started;
      await node.owner('POST', '/v1/node/teams', { name: 'many', domain: 'e2e-large.test' });
      // A node in use has an identity (one without goes to its first-run setup instead).
      const project = await node.owner('POST', '/v1/node/projects', { slug: 'fleet', name: 'Fleet' });
      await node.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'operator' });
      await seedShelf();
    },
  });
  ({ page } = rig);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && url.pathname === '/v1/shelf') shelfReads.push(url.search);
  });
}, 240_000);

afterAll(() => stopRig(rig));

describe('A shelf of 100,000 profiles (headless node, Chromium)', { timeout: 60_000 }, () => {
  it('opens on its first page, with only the rows in view in the page', async () => {
    const page1 = (await node.asTeamOwner(TEAM_ID, 'GET', `/v1/shelf?limit=1&after=${refOf(PROFILES - 2)}`)) as { profiles: { profile_ref: string }[] };
    expect(page1.profiles.map((p) => p.profile_ref)).toEqual([refOf(PROFILES - 1)]);

    await page.getByTestId('nav-shelf').click();
    await expect.poll(title, { timeout: WAIT }).toBe('Agent 0');
    await expect.poll(count, { timeout: WAIT }).toBe('200+');
    // The scrollbar is true to what was read; the page holds a screenful and a few more.
    expect(await rowsInPage()).toBeGreaterThan(5);
    expect(await rowsInPage()).toBeLessThanOrEqual(40);
    expect(await list().evaluate((scroller) => scroller.scrollHeight)).toBeGreaterThan(200 * 50);
    // Never the whole shelf in one answer.
    expect(shelfReads.length).toBeGreaterThan(0);
    expect(shelfReads.every((query) => /[?&]limit=(\d+)/.test(query) && Number(/limit=(\d+)/.exec(query)![1]) <= 500)).toBe(true);
    await shot('light');
  });

  it('reads the next pages as it scrolls, keeping the page small', async () => {
    for (const expected of ['700+', '1,200+', '1,700+']) {
      await scrollToEnd();
      await expect.poll(count, { timeout: WAIT }).toBe(expected);
    }
    await scrollToEnd();
    await expect
      .poll(
        () =>
          list()
            .locator('[data-ref]')
            .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-ref'))),
        { timeout: WAIT },
      )
      .toContain(refOf(1699));
    expect(await rowsInPage()).toBeLessThanOrEqual(40);
    await shot('scrolled');
  });

  it('moves through it by keyboard, keeping the active row in view', async () => {
    await list().focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await expect.poll(title, { timeout: WAIT }).toBe('Agent 2');
    await page.keyboard.press('PageDown');
    await page.keyboard.press('Enter');
    await expect.poll(title, { timeout: WAIT }).not.toBe('Agent 2');
    await page.keyboard.press('End');
    const active = await list().getAttribute('aria-activedescendant');
    expect(active).toMatch(/^shelf-row-\d+$/);
    const index = Number(active!.slice('shelf-row-'.length));
    expect(index).toBeGreaterThanOrEqual(1699);
    // The active row is rendered and inside the scroller's view.
    const box = (await page.locator(`#${active}`).boundingBox())!;
    const view = (await list().boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(view.y - 1);
    expect(box.y + box.height).toBeLessThanOrEqual(view.y + view.height + 1);
    await page.keyboard.press('Enter');
    await expect.poll(title, { timeout: WAIT }).toBe(`Agent ${index}`);
  });

  it('shows a profile an agent adds, live', async () => {
    await list().focus();
    await page.keyboard.press('Home');
    await node.asTeamOwner(TEAM_ID, 'POST', '/v1/profiles', { files: profileFiles({ ref: 'a-newcomer', name: 'Newcomer' }) });
    await expect.poll(() => list().locator('[data-ref]').first().getAttribute('data-ref'), { timeout: WAIT }).toBe('a-newcomer');
    expect(await rowsInPage()).toBeLessThanOrEqual(40);
  });

  it('fits 1440, 1200 and 900 px wide windows in dark mode', async () => {
    await emulateColorScheme(page, 'dark');
    for (const width of [1440, 1200, 900]) {
      await page.setViewportSize({ width, height: 860 });
      // Below 1000 px the view shows one pane: the list, after Back from the open item.
      if (width < 1000) await page.getByTestId('pane-back').click();
      await expect.poll(rowsInPage).toBeGreaterThan(5);
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
      await shot(`${width}-dark`);
    }
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
