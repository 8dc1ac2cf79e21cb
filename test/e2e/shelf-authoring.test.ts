/**
 * Authoring on the Shelf, driven as a person would in Debian's Chromium against its own headless
 * node: a profile created from the empty shelf (the node's refusal of a taken id shown inline),
 * edited as a new version, published as a new blueprint (it appears in the catalog with its
 * tags), a second profile published into that blueprint as its next version (the card shows
 * both), a blueprint folder imported through the directory picker (created, then "already
 * published", a changed file refused by the node, a binary file refused before sending), files
 * dropped on the catalog, and a blueprint deleted, detaching the shelf copy that tracked it.
 * The forms check as they are typed with the node's rules: the blueprint id follows the name,
 * tags show what they become ("Code Review" is one tag, code-review, as "CI" is ci), a
 * version such as "banana" is explained and never named on a button, and every message clears
 * once fixed. A skill added as skills/<n>/SKILL.md is declared by the node, so materialize links
 * it for claude-code. Screenshots (light, dark, 1440/1200/900 px, 1024x700) go to
 * test/e2e/screenshots/shelf-authoring-*.png.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blueprintPayload } from '../support/library.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const TEAM = { name: 'authors', domain: 'e2e-authoring.test' };
const TEAM_ID = `${TEAM.name}:${TEAM.domain}`;
const OTHER_TEAM_ID = `others:${TEAM.domain}`;
/** How long to wait for something to appear. */
const WAIT = 15_000;
const REVIEWER_INSTRUCTIONS = '# Code reviewer\n\nRead the whole change before commenting.\nSay what is wrong and why, once.\n';

let rig: AppRig | undefined;
let node: HeadlessNode;
let browser: Browser;
let page: Page;
let folders: string;
const consoleErrors: string[] = [];

const owner = (method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> => node.owner(method, path, body);

const asTeam = (teamId: string, method: string, path: string, body?: unknown): Promise<any> => node.asTeamOwner(teamId, method, path, body);

async function publicRead(path: string): Promise<any> {
  const response = await fetch(`${node.info.library_url}${path}`);
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Writes a folder of files (path → text or bytes) under the temp dir; returns its path. */
function writeFolder(name: string, files: Record<string, string | Uint8Array>): string {
  const root = join(folders, name);
  rmSync(root, { recursive: true, force: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const DOCS_FILES: Record<string, string> = {
  'blueprint.yaml':
    'id: docs.team\nversion: 1.0.0\nname: Docs crew\nsummary: Agents that keep the documentation true.\nprofiles:\n  - id: editor\n    default_count: 1\n',
  'README.md': '# Docs crew\n\nOne editor that keeps the docs in step with the code.\n',
  'profiles/editor/profile.yaml':
    'id: editor\nversion: 0.1.0\nname: Docs editor\nmission: Keep the documentation in step with the code.\ninstructions: instructions.md\n',
  'profiles/editor/instructions.md': '# Docs editor\n\nRead the diff, then the docs it touches.\n',
  // Left out by the library's rules: never sent.
  '.git/HEAD': 'ref: refs/heads/main\n',
  'node_modules/left-pad/index.js': 'module.exports = (s) => s;\n',
};

const shot = (name: string): Promise<void> => saveShot(page, `shelf-authoring-${name}`);

const modal = () => page.locator('dialog[open]');
const pane = () => page.getByTestId('profile-pane');
const shelfRow = (ref: string) => page.getByTestId('shelf-list').locator(`[data-ref="${ref}"]`);
const blueprintCard = (ref: string) => page.getByTestId('blueprint-list').locator(`[data-ref="${ref}"]`);
const noSideScroll = () => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');

async function chooseFolder(path: string): Promise<void> {
  await page.getByTestId('import-folder-input').setInputFiles(path);
}

beforeAll(() => {
  folders = mkdtempSync(join(tmpdir(), 'svc-node-e2e-folders-'));
  return () => rmSync(folders, { recursive: true, force: true });
});
beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-shelf',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (started) => {
      node = started;
      // A node in use has an identity (one without goes to its first-run setup instead).
      const project = await owner('POST', '/v1/node/projects', { slug: 'authoring', name: 'Authoring' });
      await owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'author' });
      await owner('POST', '/v1/node/teams', TEAM);
      // Another team of this node publishes a blueprint: ours may import it, never delete it.
      await owner('POST', '/v1/node/teams', { name: 'others', domain: TEAM.domain });
      await asTeam(
        OTHER_TEAM_ID,
        'POST',
        '/v1/blueprints/import',
        blueprintPayload({ ref: 'shared.team', name: 'Shared desk', profiles: [{ ref: 'helper', name: 'Helper' }] }),
      );
    },
  });
  ({ browser, page } = rig);
}, 90_000);

afterAll(() => stopRig(rig));

describe('Shelf authoring (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('creates a profile from the empty shelf and opens it', async () => {
    await page.getByTestId('nav-shelf').click();
    await page.getByTestId('shelf-empty').waitFor({ timeout: WAIT });
    expect(await page.getByTestId('team-picker').inputValue()).toBe(TEAM_ID);
    await page.getByTestId('empty-new-profile').click();
    const dialog = modal().getByTestId('new-profile-dialog');
    await dialog.waitFor({ timeout: WAIT });

    // The id follows the name until it is typed; a bad one is explained before anything is sent.
    await dialog.getByLabel('Name').fill('Code reviewer');
    expect(await dialog.getByTestId('new-profile-id').inputValue()).toBe('code-reviewer');
    await dialog.getByTestId('new-profile-id').fill('Reviewer');
    // Under the field, as every form says it, and read with it.
    const idError = dialog.getByTestId('field-error');
    expect(await idError.textContent()).toMatch(/^Id: "Reviewer" cannot be an id \(perhaps reviewer\)/);
    expect(await dialog.getByTestId('new-profile-id').getAttribute('aria-invalid')).toBe('true');
    expect((await dialog.getByTestId('new-profile-id').getAttribute('aria-describedby'))?.split(' ')).toContain(await idError.getAttribute('id'));
    await dialog.getByTestId('create-profile').click();
    expect(await idError.textContent()).toContain('"Reviewer" cannot be an id');
    expect(await modal().count()).toBe(1);
    await dialog.getByTestId('new-profile-id').fill('reviewer');
    await dialog.getByLabel('Mission').fill('Review every change for correctness and clarity.');
    await shot('new-profile');
    await dialog.getByTestId('create-profile').click();

    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    await shelfRow('reviewer').waitFor({ timeout: WAIT });
    await expect.poll(() => pane().locator('h1').textContent(), { timeout: WAIT }).toBe('Code reviewer');
    expect(await pane().getByTestId('profile-version').textContent()).toBe('v0.1.0');
    expect(await pane().textContent()).toContain('made on this shelf');
    expect(await pane().getByTestId('file-content').textContent()).toContain('# Code reviewer');

    const stored = await asTeam(TEAM_ID, 'GET', '/v1/profiles/reviewer?include=files');
    expect(Object.fromEntries(stored.files.map((f: any) => [f.path, f.content_utf8]))).toEqual({
      'profile.yaml':
        'id: reviewer\nversion: 0.1.0\nname: Code reviewer\nmission: Review every change for correctness and clarity.\ninstructions: instructions.md\n',
      'instructions.md': '# Code reviewer\n',
    });
  });

  it("shows the node's refusal of an id the shelf already has, in the dialog", async () => {
    await page.getByTestId('new-profile').click();
    const dialog = modal().getByTestId('new-profile-dialog');
    await dialog.waitFor({ timeout: WAIT });
    expect(await dialog.getByLabel('Name').inputValue()).toBe('');
    await dialog.getByLabel('Name').fill('Reviewer');
    await dialog.getByTestId('create-profile').click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor({ timeout: WAIT });
    expect(await alert.textContent()).toContain('Profile reviewer is already on the shelf');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => modal().count()).toBe(0);
    expect(await page.getByTestId('shelf-list').getByRole('option').count()).toBe(1);
  });

  it('edits the new profile as a new version', async () => {
    await page.getByTestId('edit-version').click();
    const editor = page.getByTestId('version-editor');
    await editor.waitFor({ timeout: WAIT });
    await editor.locator('[data-path="instructions.md"] .file-button').click();
    await page.getByTestId('file-editor').fill(REVIEWER_INSTRUCTIONS);
    await page.getByTestId('save-version').click();
    await expect.poll(() => pane().getByTestId('profile-version').textContent(), { timeout: WAIT }).toBe('v0.1.1');
    expect(await pane().getByTestId('file-content').textContent()).toContain('Say what is wrong and why, once.');
  });

  it('publishes it as a new blueprint, which the catalog shows with its tags', async () => {
    await pane().getByTestId('publish').click();
    const form = modal().getByTestId('publish-form');
    await form.waitFor({ timeout: WAIT });
    expect(await form.getByTestId('publish-warning').textContent()).toContain('Anyone who can reach this node can read it.');
    // Only blueprints this team owns can take a new version: none yet (shared.team is another team's).
    await expect.poll(() => form.getByTestId('publish-mode-existing').isDisabled(), { timeout: WAIT }).toBe(true);
    expect(await form.textContent()).toContain('Your team owns no blueprint yet');
    expect(await form.getByTestId('publish-version').inputValue()).toBe('1.0.0');
    expect(await form.getByTestId('publish-profile-version').inputValue()).toBe('0.1.1');

    // The id follows the name until it is typed, as a profile's does.
    await form.getByLabel('Blueprint name').fill('Review crew');
    expect(await form.getByTestId('publish-ref').inputValue()).toBe('review-crew');
    await form.getByLabel('Blueprint id').fill('review.team');
    await form.getByLabel('Blueprint name').fill('Review crew (v2)');
    expect(await form.getByTestId('publish-ref').inputValue()).toBe('review.team');
    await form.getByLabel('Blueprint name').fill('Review crew');
    await form.getByLabel('Summary').fill('Agents that review changes before they land.');
    // Tags show what they become as they are typed, by one rule for case and spaces: "CI" is ci,
    // "Shipping Tools" is shipping-tools; what the rule cannot spell is refused, with the one that would do.
    await form.getByLabel('Tags').fill('CI, Shipping Tools, C++');
    expect(
      await form
        .getByTestId('tag-preview')
        .locator('[data-tag]')
        .evaluateAll((chips) => chips.map((c) => [c.getAttribute('data-tag'), c.getAttribute('data-refused')])),
    ).toEqual([
      ['ci', null],
      ['shipping-tools', null],
      ['c++', 'true'],
    ]);
    expect(await form.locator('#publish-tags-error').textContent()).toContain('Tag "c++" may only use a-z, 0-9, ".", "_" and "-"; perhaps c.');
    await shot('publish-tags');
    await form.getByLabel('Tags').fill('code, Review');
    expect(
      await form
        .getByTestId('tag-preview')
        .locator('[data-tag]')
        .evaluateAll((chips) => chips.map((c) => c.getAttribute('data-tag'))),
    ).toEqual(['code', 'review']);
    expect(await form.locator('#publish-tags-error').count()).toBe(0);
    // A version that is not one is explained, and the button never names it.
    await form.getByTestId('publish-version').fill('banana');
    expect(await form.locator('#publish-version-error').textContent()).toContain('"banana" is not a version');
    expect(await form.getByTestId('publish-submit').textContent()).toBe('Publish');
    expect(await form.getByTestId('publish-submit').isDisabled()).toBe(true);
    await form.getByTestId('publish-version').fill('1.0.0');
    expect(await form.getByTestId('publish-submit').textContent()).toBe('Publish v1.0.0');
    expect(await form.locator('#publish-version-error').count()).toBe(0);
    await form.getByLabel('README').fill('# Review crew\n\nReviewers for every pull request.\n');
    await shot('publish');
    await form.getByTestId('publish-submit').click();

    const result = modal().getByTestId('publish-result');
    await result.waitFor({ timeout: WAIT });
    expect(await modal().getByRole('heading', { level: 2 }).textContent()).toBe('Published');
    expect(await result.textContent()).toContain('review.team v1.0.0 is in the public catalog, with reviewer v0.1.1.');
    expect(await result.getByTestId('publish-digest').textContent()).toMatch(/^sha256:[0-9a-f]{8}…[0-9a-f]{4}$/);
    const published = await publicRead('/v1/blueprints/review.team');
    expect(await result.getByTestId('publish-digest').getAttribute('title')).toBe(published.digest);
    expect(published).toMatchObject({
      version: '1.0.0',
      name: 'Review crew',
      summary: 'Agents that review changes before they land.',
      tags: ['code', 'review'],
      owner: TEAM_ID,
    });
    expect(published.files.find((f: any) => f.path === 'README.md')?.content_utf8).toBe('# Review crew\n\nReviewers for every pull request.\n');
    await shot('published');

    await result.getByTestId('open-in-catalog').click();
    await expect.poll(() => modal().count()).toBe(0);
    const card = blueprintCard('review.team');
    await card.locator('[data-profile="reviewer"]').waitFor({ timeout: WAIT });
    expect(await card.getByRole('button', { name: /Review crew/ }).getAttribute('aria-expanded')).toBe('true');
    expect(await card.locator('.meta .badge-accent').allTextContents()).toEqual(['code', 'review']);
    expect(await card.getByTestId('owned-badge').count()).toBe(1);
    expect(await card.locator('[data-profile="reviewer"]').textContent()).toContain('v0.1.1');
    // Its own profile is not offered for import (the id is the shelf's already).
    expect(await card.locator('[data-profile="reviewer"]').getByTestId('namesake').textContent()).toBe('From your shelf');
    expect(await card.locator('[data-profile="reviewer"]').getByTestId('import-button').count()).toBe(0);
    expect(await page.getByTestId('tag-filter').locator('[data-tag="review"]').count()).toBe(1);
    // Another team's blueprint: importable, not deletable.
    await blueprintCard('shared.team')
      .getByRole('button', { name: /Shared desk/ })
      .click();
    await blueprintCard('shared.team').locator('[data-profile="helper"]').waitFor({ timeout: WAIT });
    expect(await blueprintCard('shared.team').getByTestId('delete-blueprint').count()).toBe(0);
    expect(await blueprintCard('shared.team').getByTestId('owned-badge').count()).toBe(0);
    expect(await card.getByTestId('delete-blueprint').count()).toBe(1);
  });

  it('publishes a second profile into that blueprint as its next version', async () => {
    // N starts a new profile (the + button's tooltip says so).
    expect(await page.getByTestId('new-profile').getAttribute('title')).toBe('New profile (N)');
    await page.keyboard.press('n');
    const dialog = modal().getByTestId('new-profile-dialog');
    await dialog.waitFor({ timeout: WAIT });
    await dialog.getByLabel('Name').fill('Test writer');
    await dialog.getByTestId('new-profile-id').fill('tester');
    await dialog.getByLabel('Mission').fill('Write the tests a change is missing.');
    await dialog.getByTestId('create-profile').click();
    await expect.poll(() => pane().locator('h1').textContent(), { timeout: WAIT }).toBe('Test writer');

    await page.keyboard.press('p');
    const form = modal().getByTestId('publish-form');
    await form.waitFor({ timeout: WAIT });
    // As a new blueprint under a taken id, the node says what to do instead.
    await form.getByLabel('Blueprint name').fill('Review crew');
    await form.getByLabel('Blueprint id').fill('review.team');
    await form.getByTestId('publish-submit').click();
    // Under the id it is about.
    await expect
      .poll(() => form.locator('#publish-ref-error').textContent(), { timeout: WAIT })
      .toContain('Blueprint review.team already exists; publish into it with target_blueprint_ref');

    await form.getByTestId('publish-mode-existing').check();
    expect(await form.getByTestId('publish-target').inputValue()).toBe('review.team');
    expect(await form.getByTestId('publish-target').locator('option').allTextContents()).toEqual([
      expect.stringContaining('Review crew (review.team) · v1.0.0'),
    ]);
    expect(await form.getByTestId('publish-version').inputValue()).toBe('1.1.0');
    expect(await form.textContent()).toContain('keeps the other profiles and the README of v1.0.0; tester is added');
    expect(await form.getByRole('alert').count()).toBe(0);
    await form.getByTestId('publish-submit').click();
    const result = modal().getByTestId('publish-result');
    await result.waitFor({ timeout: WAIT });
    expect(await result.textContent()).toContain('review.team v1.1.0 is in the public catalog, with tester v0.1.0.');
    await result.getByTestId('open-in-catalog').click();

    const card = blueprintCard('review.team');
    await expect.poll(() => card.locator('.title-line .badge').textContent(), { timeout: WAIT }).toBe('v1.1.0');
    await expect
      .poll(() => card.locator('[data-profile]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-profile'))), { timeout: WAIT })
      .toEqual(['reviewer', 'tester']);
    expect(await card.textContent()).toContain('Versions: 1.1.0, 1.0.0');
    expect(await card.locator('.meta .badge-accent').allTextContents()).toEqual(['code', 'review']);
    await shot('catalog');
  });

  it('imports a blueprint from a folder, summarised before it is sent', async () => {
    const docs = writeFolder('docs.team', DOCS_FILES);
    await chooseFolder(docs);
    const summary = modal().getByTestId('import-folder-summary');
    await summary.waitFor({ timeout: WAIT });
    expect(await summary.getByTestId('import-folder-ref').textContent()).toBe('docs.team');
    expect(await summary.getByTestId('import-folder-version').textContent()).toBe('v1.0.0');
    const bytes = ['blueprint.yaml', 'README.md', 'profiles/editor/profile.yaml', 'profiles/editor/instructions.md'].reduce(
      (sum, path) => sum + Buffer.byteLength(DOCS_FILES[path] as string),
      0,
    );
    expect(await summary.getByTestId('import-folder-counts').textContent()).toMatch(new RegExp(`^4 files · ${bytes} bytes\\s+from docs\\.team/$`));
    expect(await summary.getByTestId('import-folder-skipped').textContent()).toContain('.git/, node_modules/');
    expect(await summary.textContent()).toContain('Profiles: editor');
    expect(await summary.textContent()).toContain('Anyone who can reach this node can read it.');
    await shot('import');
    await summary.getByTestId('import-folder-submit').click();

    const result = modal().getByTestId('import-folder-result');
    await result.waitFor({ timeout: WAIT });
    expect(await modal().getByRole('heading', { level: 2 }).textContent()).toBe('Imported');
    expect(await result.textContent()).toContain('docs.team v1.0.0 is in the public catalog, with 1 profile.');
    const stored = await publicRead('/v1/blueprints/docs.team');
    expect(stored.files.map((f: any) => f.path)).toEqual(['README.md', 'blueprint.yaml', 'profiles/editor/instructions.md', 'profiles/editor/profile.yaml']);
    expect(stored.owner).toBe(TEAM_ID);
    await result.getByTestId('import-folder-open').click();
    await blueprintCard('docs.team').locator('[data-profile="editor"]').waitFor({ timeout: WAIT });
  });

  it('says when the folder is already published with identical content', async () => {
    await chooseFolder(join(folders, 'docs.team'));
    await modal().getByTestId('import-folder-submit').click();
    const result = modal().getByTestId('import-folder-result');
    await result.waitFor({ timeout: WAIT });
    expect(await modal().getByRole('heading', { level: 2 }).textContent()).toBe('Already published');
    expect(await result.textContent()).toContain('docs.team v1.0.0 was already published with identical content; nothing changed.');
    await result.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => modal().count()).toBe(0);
  });

  it("shows the node's refusal of a changed file under a published version", async () => {
    const changed = writeFolder('docs.team', { ...DOCS_FILES, 'profiles/editor/instructions.md': '# Docs editor\n\nRewritten, same version.\n' });
    await chooseFolder(changed);
    const summary = modal().getByTestId('import-folder-summary');
    await summary.getByTestId('import-folder-submit').click();
    const alert = summary.getByRole('alert');
    await alert.waitFor({ timeout: WAIT });
    expect(await alert.textContent()).toContain('Blueprint docs.team version 1.0.0 is already published with different content; publish a new version');
    await shot('import-refused');
    await summary.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('refuses a folder with a file that is not UTF-8 text before sending anything', async () => {
    const binary = writeFolder('docs-with-logo', {
      ...DOCS_FILES,
      'profiles/editor/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]),
    });
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/v1/blueprints/import')) posts.push(request.url());
    });
    await chooseFolder(binary);
    const refused = modal().getByTestId('import-folder-refused');
    await refused.waitFor({ timeout: WAIT });
    expect(await modal().getByRole('heading', { level: 2 }).textContent()).toBe('This folder cannot be imported');
    expect(await refused.getByRole('alert').textContent()).toContain('profiles/editor/logo.png is not UTF-8 text, and a blueprint holds only text files.');
    expect(posts).toEqual([]);
    await refused.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => modal().count()).toBe(0);
  });

  it("takes files dropped on the catalog, and shows the node's refusal of an incomplete blueprint", async () => {
    // Dragging files over the catalog says what dropping does.
    // (An expression string: this side is compiled without the DOM's types.)
    const drag = (type: 'dragenter' | 'dragleave') =>
      page.evaluate(`(() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File(['id: x'], 'blueprint.yaml'));
        const zone = document.querySelector('[data-testid="folder-drop-zone"]');
        zone.dispatchEvent(new DragEvent('${type}', { bubbles: true, cancelable: true, dataTransfer: transfer }));
      })()`);
    await drag('dragenter');
    await page.getByText('Drop a blueprint folder to import it').waitFor({ timeout: WAIT });
    await shot('drop');
    await drag('dragleave');
    await expect.poll(() => page.getByText('Drop a blueprint folder to import it').count()).toBe(0);

    // A synthetic drop carries loose files (no folder entries): they are taken at their names.
    await page.getByTestId('folder-drop-zone').drop({
      files: {
        name: 'blueprint.yaml',
        mimeType: 'application/yaml',
        buffer: Buffer.from('id: loose.team\nversion: 1.0.0\nname: Loose\nprofiles:\n  - id: ghost\n'),
      },
    });
    const summary = modal().getByTestId('import-folder-summary');
    await summary.waitFor({ timeout: WAIT });
    expect(await summary.getByTestId('import-folder-ref').textContent()).toBe('loose.team');
    expect(await summary.getByTestId('import-folder-counts').textContent()).toMatch(/^1 file · \d+ bytes$/);
    await summary.getByTestId('import-folder-submit').click();
    const alert = summary.getByRole('alert');
    await alert.waitFor({ timeout: WAIT });
    expect(await alert.textContent()).toContain('profiles/ghost/profile.yaml is required for listed profile ghost');
    await summary.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => modal().count()).toBe(0);
    expect(await blueprintCard('loose.team').count()).toBe(0);
  });

  it('deletes a blueprint the team owns, detaching the shelf copy that tracked it', async () => {
    const card = blueprintCard('docs.team');
    await card.locator('[data-profile="editor"]').getByTestId('import-button').click();
    await shelfRow('editor').waitFor({ timeout: WAIT });

    await card.getByTestId('delete-blueprint').click();
    const dialog = modal().getByTestId('delete-blueprint-dialog');
    await dialog.waitFor({ timeout: WAIT });
    expect(await dialog.textContent()).toContain('All versions of docs.team are deleted and shelf copies that track it are detached; this cannot be undone.');
    expect(await dialog.textContent()).toContain('On your shelf, editor keeps its files and no longer updates from it.');
    await shot('delete');
    await dialog.getByTestId('confirm-delete-blueprint').click();
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    await expect.poll(() => blueprintCard('docs.team').count(), { timeout: WAIT }).toBe(0);
    expect(await page.getByTestId('catalog-note').textContent()).toContain('Deleted docs.team (1 version; 1 shelf copy detached).');
    await expect(publicRead('/v1/blueprints/docs.team')).rejects.toThrow(/404/);

    await shelfRow('editor').click();
    await expect.poll(() => pane().locator('h1').textContent(), { timeout: WAIT }).toBe('Docs editor');
    expect(await pane().textContent()).toContain('made on this shelf');
    expect(await pane().getByTestId('source-pin').count()).toBe(0);
  });

  it('adds a skill as a file: the node declares it and materialize links it; the version is checked as typed', async () => {
    await shelfRow('tester').click();
    await expect.poll(() => pane().locator('h1').textContent(), { timeout: WAIT }).toBe('Test writer');
    await pane().getByTestId('edit-version').click();
    const editor = page.getByTestId('version-editor');
    await editor.waitFor({ timeout: WAIT });

    const version = editor.getByTestId('new-version');
    const save = editor.getByTestId('save-version');
    expect(await version.inputValue()).toBe('0.1.1');
    expect(await save.textContent()).toBe('Save as v0.1.1');
    await version.fill('banana');
    expect(await editor.locator('#new-version-error').textContent()).toBe(
      '"banana" is not a version: use 1-64 characters of 0-9, A-Z, a-z, ".", "+" or "-", starting with a digit, for example 0.2.0.',
    );
    expect(await version.getAttribute('aria-invalid')).toBe('true');
    // The problem is under the input, once; the hint stays below it.
    expect(await editor.getByTestId('field-error').count()).toBe(1);
    expect(await editor.locator('#new-version-hint').textContent()).toContain('newer than 0.1.0');
    expect(await save.textContent()).toBe('Save version');
    expect(await save.isDisabled()).toBe(true);
    await shot('version-invalid');
    await version.fill('0.0.1');
    expect(await editor.locator('#new-version-error').textContent()).toBe('Version 0.0.1 must be newer than the latest version 0.1.0.');
    await version.fill('0.2.0');
    expect(await editor.locator('#new-version-error').count()).toBe(0);
    expect(await version.getAttribute('aria-invalid')).toBeNull();
    expect(await save.textContent()).toBe('Save as v0.2.0');

    await editor.getByTestId('new-file-path').fill('skills/edge-cases/SKILL.md');
    await editor.getByRole('button', { name: 'Add file' }).click();
    await page.getByTestId('file-editor').fill('# Edge cases\n\nList the inputs the change forgot.\n');
    await save.click();
    await expect.poll(() => pane().getByTestId('profile-version').textContent(), { timeout: WAIT }).toBe('v0.2.0');
    expect(await pane().getByTestId('profile-note').textContent()).toBe('Saved as version 0.2.0. 1 skill (edge-cases) declared in profile.yaml.');
    await shot('skill-declared');
    const stored = await asTeam(TEAM_ID, 'GET', '/v1/profiles/tester?include=files');
    expect(stored.files.find((f: any) => f.path === 'profile.yaml').content_utf8).toContain('skills:\n  - path: skills/edge-cases/SKILL.md\n    kind: skill\n');

    await pane().getByTestId('materialize').click();
    const tree = modal().getByTestId('home-tree');
    await tree.waitFor({ timeout: WAIT });
    const link = tree.locator('[data-path=".claude/skills/edge-cases"]');
    await link.waitFor({ timeout: WAIT });
    expect(await link.getAttribute('data-kind')).toBe('symlink');
    expect(await link.getByTestId('symlink-target').textContent()).toBe('→ ../../skills/edge-cases');
    expect(await tree.locator('[data-path="skills/edge-cases/SKILL.md"]').count()).toBe(1);
    await shot('skill-materialized');
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
    // The success note does not stay for minutes: it goes by itself.
    await expect.poll(() => pane().getByTestId('profile-note').count(), { timeout: 15_000 }).toBe(0);
  });

  it('shows what a typed tag becomes, and clears a refusal once it is fixed', async () => {
    const input = pane().getByTestId('tag-input');
    await input.fill('Code Review!');
    expect(await pane().getByTestId('tag-preview').locator('[data-tag]').getAttribute('data-tag')).toBe('code-review!');
    expect(await pane().locator('#tag-input-tester-error').textContent()).toBe(
      'Tag "code-review!" may only use a-z, 0-9, ".", "_" and "-"; perhaps code-review.',
    );
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect((await input.getAttribute('aria-describedby'))?.split(' ')).toContain('tag-input-tester-error');
    await input.press('Enter');
    expect(await pane().getByTestId('profile-tags').locator('.chip').count()).toBe(0);
    await shot('tag-refused');
    // Spaces are spelled as "-", as capitals are lower-cased: shown before it is added.
    await input.fill('Code Review');
    expect(await pane().locator('#tag-input-tester-error').count()).toBe(0);
    expect(await pane().getByTestId('tag-preview').locator('[data-tag]').getAttribute('data-tag')).toBe('code-review');
    await input.press('Enter');
    await expect
      .poll(() => pane().getByTestId('profile-tags').locator('.chip').allTextContents(), { timeout: WAIT })
      .toEqual([expect.stringContaining('code-review')]);
    expect(await input.inputValue()).toBe('');
    expect((await asTeam(TEAM_ID, 'GET', '/v1/profiles/tester')).tags).toEqual(['code-review']);
  });

  it('fits the editor and the publish form at 1440, 1200 and 900 px in light and dark', async () => {
    await shelfRow('tester').click();
    await expect.poll(() => pane().locator('h1').textContent(), { timeout: WAIT }).toBe('Test writer');
    for (const width of [1440, 1200, 900]) {
      await page.setViewportSize({ width, height: 860 });
      for (const scheme of ['light', 'dark'] as const) {
        await emulateColorScheme(page, scheme);
        await pane().getByTestId('edit-version').click();
        const editor = page.getByTestId('version-editor');
        await editor.waitFor({ timeout: WAIT });
        await editor.getByTestId('new-version').fill('0.1.9');
        await editor.locator('#new-version-error').waitFor({ timeout: WAIT });
        expect(await noSideScroll()).toBe(0);
        const bar = (await editor.boundingBox())!;
        const save = (await editor.getByTestId('save-version').boundingBox())!;
        expect(save.x + save.width).toBeLessThanOrEqual(bar.x + bar.width);
        await shot(`editor-${width}-${scheme}`);
        await editor.getByRole('button', { name: 'Cancel' }).click();
        await pane().getByTestId('publish').click();
        const form = modal().getByTestId('publish-form');
        await form.waitFor({ timeout: WAIT });
        await form.getByLabel('Blueprint name').fill('Edge crew');
        await form.getByLabel('Tags').fill('testing, Code Review, C++');
        expect(await noSideScroll()).toBe(0);
        await shot(`publish-${width}-${scheme}`);
        await page.keyboard.press('Escape');
        await expect.poll(() => modal().count()).toBe(0);
      }
    }
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1280, height: 820 });
  });

  it('renders in dark mode and in a 1024x700 window', async () => {
    await shelfRow('reviewer').click();
    await expect.poll(() => pane().locator('h1').textContent(), { timeout: WAIT }).toBe('Code reviewer');
    await emulateColorScheme(page, 'dark');
    await pane().getByTestId('publish').click();
    const form = modal().getByTestId('publish-form');
    await form.waitFor({ timeout: WAIT });
    await form.getByTestId('publish-mode-existing').check();
    await expect.poll(() => form.getByTestId('publish-version').inputValue()).toBe('1.2.0');
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(24, 25, 28)');
    await shot('dark');
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);

    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByTestId('catalog-entry').click();
    await blueprintCard('review.team').waitFor({ timeout: WAIT });
    expect(await noSideScroll()).toBe(0);
    // The tallest dialog in a short window: it scrolls inside, its buttons stay reachable.
    await shelfRow('tester').click();
    await expect.poll(() => pane().locator('h1').textContent(), { timeout: WAIT }).toBe('Test writer');
    await pane().getByTestId('publish').click();
    const narrow = modal().getByTestId('publish-form');
    await narrow.waitFor({ timeout: WAIT });
    await narrow.getByLabel('Blueprint name').fill('Test crew');
    await narrow.getByLabel('Blueprint id').fill('test.team');
    expect(await noSideScroll()).toBe(0);
    const box = await modal().boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(700);
    await shot('1024x700');
    await narrow.getByTestId('publish-submit').scrollIntoViewIfNeeded();
    expect(await narrow.getByTestId('publish-submit').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('logged no errors in the browser console', () => {
    // The refusals the test provoked on purpose (409s) show up as failed loads.
    const unexpected = unexpectedConsoleErrors(consoleErrors);
    expect(unexpected).toEqual([]);
  });

  it('stops cleanly on SIGTERM', async () => {
    await browser.close();
    expect(await node.stop()).toBe(0);
  });
});
