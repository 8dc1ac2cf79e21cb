/**
 * Documents at scale, in Debian's Chromium against a real headless node whose
 * encrypted database holds 100,000 documents: the list shows the count, keeps only the rows in
 * view in the DOM, reads further pages from the node as the keyboard reaches the end, opens a
 * document with Enter, and the filter finds one document among them on the node. The seeding
 * writes rows the way the node stores them (a snapshot version each) while the node is stopped.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodySha256Hex, sha256Hex } from '../../server/crypto/encoding.ts';
import { encodeVersion } from '../../server/surfaces/docs/domain/delta.ts';
import { openNodeDatabase } from '../support/database.ts';
import { unexpectedConsoleErrors } from './browser.ts';
import { startHeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot, stopRig, type AppRig } from './steps.ts';

const COUNT = 100_000;
const TEAM = { name: 'archive', domain: 'e2e-scale.test' };
const TEAM_ID = `${TEAM.name}:${TEAM.domain}`;
const WAIT = 20_000;

let rig: AppRig | undefined;
let page: Page;
const consoleErrors: string[] = [];

const slugOf = (i: number): string => `doc-${String(i).padStart(6, '0')}`;

/** 100,000 documents of one version each, newest first by index (doc-000000 is the newest). */
async function seed(dataDir: string): Promise<void> {
  const { db, close } = await openNodeDatabase(dataDir);
  try {
    const newest = Date.parse('2026-11-20T12:00:00.000Z');
    const insertDocument = db.prepare(
      `INSERT INTO documents (document_id, team_id, slug, title, body, current_version, created_at, updated_at) VALUES (?, ?, ?, ?, X'', 1, ?, ?)`,
    );
    const insertVersion = db.prepare(
      `INSERT INTO document_versions (document_id, version_number, version_id, kind, prefix_len, suffix_len, payload, compressed, body_bytes,
         body_sha256, source, created_by_alias, created_at) VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, 'api', 'owner', ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < COUNT; i++) {
        const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        const at = new Date(newest - i * 1000).toISOString();
        const body = Buffer.from(`# Document ${i}\n\nNumber ${i} of ${COUNT}.\n`, 'utf8');
        const stored = encodeVersion(1, null, body);
        insertDocument.run(id, TEAM_ID, slugOf(i), `Document ${i}`, at, at);
        insertVersion.run(
          id,
          sha256Hex(id),
          stored.kind,
          stored.prefix_len,
          stored.suffix_len,
          stored.payload,
          stored.compressed ? 1 : 0,
          body.length,
          bodySha256Hex(body),
          at,
        );
      }
    })();
  } finally {
    close();
  }
}

const rowsInDom = () => page.getByTestId('document-row').count();
const setSize = async () => Number(await page.getByTestId('document-list').locator('[role="option"]').first().getAttribute('aria-setsize'));

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-documents',
    sink: consoleErrors,
    timeout: WAIT,
    // A node stopped after making its team, its database seeded meanwhile, started again.
    start: async () => {
      const first = await startHeadlessNode();
      await first.owner('POST', '/v1/node/teams', TEAM);
      await first.stop();
      await seed(first.dataDir);
      return startHeadlessNode(30_000, { dataDir: first.dataDir });
    },
    // Someone who uses the app: an identity, so it opens on its sections rather than on setup.
    prepare: async (started) => {
      const project = await started.owner('POST', '/v1/node/projects', { slug: 'archivists', name: 'Archivists' });
      await started.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'ada' });
    },
  });
  ({ page } = rig);
}, 180_000);

afterAll(() => stopRig(rig));

describe('Documents with 100,000 of them (headless node, Chromium)', { timeout: 60_000 }, () => {
  it('shows the count and only the rows in view', async () => {
    await page.getByTestId('nav-documents').click();
    await expect.poll(() => page.getByTestId('documents-count').textContent(), { timeout: WAIT }).toBe(`${COUNT.toLocaleString('en-US')} documents`);
    // The first page only; the newest document is opened.
    expect(await setSize()).toBe(100);
    expect(await rowsInDom()).toBeLessThanOrEqual(40);
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: WAIT }).toBe('Document 0');
    await expect.poll(() => page.frameLocator('.preview-pane [data-testid="preview-frame"]').locator('h1').textContent(), { timeout: WAIT }).toBe('Document 0');
    await shot(page, 'documents-100k');
  });

  it('reads further pages as the keyboard reaches the end, keeping the DOM small', async () => {
    await page.getByTestId('document-list').focus();
    for (let round = 1; round <= 4; round++) {
      await page.keyboard.press('End');
      await expect.poll(setSize, { timeout: WAIT }).toBeGreaterThan(round * 100);
      expect(await rowsInDom()).toBeLessThanOrEqual(40);
    }
    // End went to the last row read then; Enter opens it, and it is the document in that place.
    const size = await setSize();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    const opened = await page.getByTestId('document-list').locator('[aria-selected="true"]').getAttribute('aria-posinset');
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: WAIT }).toBe(`Document ${Number(opened) - 1}`);
    expect(Number(opened)).toBeGreaterThanOrEqual(size);
    await shot(page, 'documents-100k-paged');
  });

  it("finds one document among them with the node's filter", async () => {
    await page.getByTestId('doc-filter').fill('doc-099999');
    await expect.poll(() => page.getByTestId('documents-count').textContent(), { timeout: WAIT }).toBe('1 match');
    expect(await page.getByTestId('document-row').getAttribute('data-slug')).toBe('doc-099999');
    await page.getByTestId('document-row').click();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: WAIT }).toBe('Document 99999');
    await page.getByTestId('doc-filter').press('Escape');
    await expect.poll(() => page.getByTestId('documents-count').textContent(), { timeout: WAIT }).toBe(`${COUNT.toLocaleString('en-US')} documents`);
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
