/**
 * The Shelf, driven as a person would in Debian's Chromium against a real headless node: with no
 * team the view teaches what one is and creates it; then the catalog (published from the test by
 * signing as the team's owner member) is browsed and filtered by tag, a profile imported, a newer
 * blueprint version flagged, the profile edited as a new version and updated from source (the
 * updated field and the kept local edit listed), proposals from a member reviewed side by side,
 * approved, refused as stale and rejected, the profile bound to an identity (a confirmation in
 * place, no dialog to dismiss) and materialized for claude-code, a second team picked, a profile
 * deleted. It is live: a newer blueprint version, a member's proposals and a team created with
 * `svc-node team create` appear without Refresh or reload. The keyboard drives the list (j/k,
 * Enter, Esc back from a profile). Screenshots (light and dark at 1440, 1200 and 900 px wide, and
 * 1024x700) go to test/e2e/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTeamHeaders } from '../../server/auth/team-envelope-client.ts';
import { privateKeyFromSeed, signBytes } from '../../server/crypto/ed25519.ts';
import { runCli } from '../support/cli.ts';
import { testKey } from '../support/keys.ts';
import { blueprintPayload, CHANGESET_SCHEMA, type ProfileSpec } from '../support/library.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const TEAM = { name: 'agents', domain: 'e2e-shelf.test' };
const TEAM_ID = `${TEAM.name}:${TEAM.domain}`;
/** How long to wait for something to appear. */
const WAIT = 15_000;

const TRIAGER_V1: ProfileSpec = {
  ref: 'triager',
  name: 'Triager',
  mission: 'Sort incoming support requests by urgency and route them.',
  accepted_work: ['triage', 'routing'],
  instructions: '# Triage\n\nRead each request once.\nTag it with a priority.\nRoute it to the right queue.\n',
};
const WRITER: ProfileSpec = { ref: 'writer', name: 'Reply writer', mission: 'Draft friendly, exact replies to customers.' };
const LOCAL_INSTRUCTIONS =
  '# Triage\n\nRead each request twice.\nTag it with a priority and a product area.\nRoute it to the right queue.\nEscalate anything about billing.\n';

let rig: AppRig | undefined;
let node: HeadlessNode;
let browser: Browser;
let page: Page;
let aliceAgentId: string;
const consoleErrors: string[] = [];
const proposals: Record<string, string> = {};

const owner = (method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> => node.owner(method, path, body);

/** A library request as the team's owner member: the node signs it (as the UI does), we send it. */
const asOwnerMember = (method: string, path: string, body?: unknown): Promise<any> => node.asTeamOwner(TEAM_ID, method, path, body);

/** A team member that keeps its own key (as an agent would), signing its own requests. */
async function addMember(alias: string) {
  const key = testKey();
  const added = await owner('POST', `/v1/node/teams/${encodeURIComponent(TEAM_ID)}/members`, { did_key: key.didKey, alias });
  const privateKey = privateKeyFromSeed(key.seed);
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers = buildTeamHeaders({
      method,
      path,
      body: text,
      aud: node.info.library_url,
      teamId: TEAM_ID,
      certificateB64: added.certificate_b64,
      didKey: key.didKey,
      sign: (bytes) => signBytes(privateKey, bytes),
    });
    const response = await fetch(`${node.info.library_url}${path}`, {
      method,
      headers: { ...headers, ...(text === undefined ? {} : { 'content-type': 'application/json' }) },
      body: text,
    });
    const answer = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${answer}`);
    return JSON.parse(answer);
  };
}

async function publish(ref: string, version: string, name: string, summary: string, profiles: ProfileSpec[], tags: string[]): Promise<void> {
  const payload = blueprintPayload({ ref, version, name, summary, profiles });
  await asOwnerMember('POST', '/v1/blueprints/import', payload);
  await asOwnerMember('PUT', `/v1/blueprints/${ref}/tags`, { tags });
}

const shot = (name: string): Promise<void> => saveShot(page, name);

const modal = () => page.locator('dialog[open]');
const shelfRow = (ref: string) => page.getByTestId('shelf-list').locator(`[data-ref="${ref}"]`);
const blueprintCard = (ref: string) => page.getByTestId('blueprint-list').locator(`[data-ref="${ref}"]`);
const proposalRow = (summary: string) => page.getByTestId('proposal-list').getByRole('option').filter({ hasText: summary });
const shelfBadge = () => page.getByTestId('nav-shelf').getByTestId('unread-badge');

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-shelf',
    sink: consoleErrors,
    timeout: WAIT,
    // An identity to bind a profile to (a project without a namespace is enough).
    prepare: async (started) => {
      const project = await started.owner('POST', '/v1/node/projects', { slug: 'support', name: 'Support' });
      aliceAgentId = (await started.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'alice' })).agent_id;
    },
  });
  ({ node, browser, page } = rig);
}, 90_000);

afterAll(() => stopRig(rig));

/** The samples a fresh node publishes into its catalog (server/surfaces/library/catalog/blueprint-samples/). */
const SAMPLE_BLUEPRINTS = 3;

describe('Shelf view (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('teaches what a team is and creates one', async () => {
    await page.getByTestId('nav-shelf').click();
    const noTeam = page.getByTestId('no-team');
    await noTeam.waitFor({ timeout: WAIT });
    expect(await noTeam.textContent()).toContain('A team is a group of people and agents');
    await shot('shelf-no-team');
    await page.getByLabel('Team name').fill(TEAM.name);
    await page.getByLabel('Domain').fill(TEAM.domain);
    expect(await noTeam.textContent()).toContain(TEAM_ID);
    await page.getByRole('button', { name: 'Create team' }).click();

    // An empty shelf offers the catalog, where the node's shipped sample blueprints already wait.
    await page.getByTestId('shelf-empty').waitFor({ timeout: WAIT });
    await expect.poll(() => page.getByTestId('blueprint').count(), { timeout: WAIT }).toBe(SAMPLE_BLUEPRINTS);
    expect(await blueprintCard('svc-node.code-review').textContent()).toContain('Code review desk');
    expect(await page.getByTestId('team-name').textContent()).toContain(TEAM.name);
    expect((await owner('GET', '/v1/node/teams')).teams.map((t: any) => t.team_id)).toEqual([TEAM_ID]);
    await shot('shelf-empty');
  });

  it('browses the public catalog and filters it by tag', async () => {
    await publish('support.team', '1.0.0', 'Support desk', 'Agents that answer a support inbox.', [TRIAGER_V1, WRITER], ['support', 'email']);
    await publish('research.team', '1.0.0', 'Research crew', 'Agents that read and summarise.', [{ ref: 'reader', name: 'Reader' }], ['research']);
    await page.getByTestId('shelf-refresh').click();
    await expect.poll(() => page.getByTestId('blueprint').count(), { timeout: WAIT }).toBe(SAMPLE_BLUEPRINTS + 2);
    expect(await page.getByTestId('tag-filter').getByRole('button').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('email'), expect.stringContaining('research'), expect.stringContaining('support')]),
    );

    await blueprintCard('support.team')
      .getByRole('button', { name: /Support desk/ })
      .click();
    await blueprintCard('support.team').locator('[data-profile="writer"]').waitFor({ timeout: WAIT });
    expect(await blueprintCard('support.team').getByTestId('import-button').count()).toBe(2);
    await shot('shelf-catalog');

    await page.getByTestId('tag-filter').locator('[data-tag="research"]').click();
    await expect.poll(() => page.getByTestId('blueprint').count(), { timeout: WAIT }).toBe(1);
    expect(await page.getByTestId('blueprint').getAttribute('data-ref')).toBe('research.team');
    await page.getByTestId('tag-filter').locator('[data-tag="research"]').click();
    await page.getByTestId('tag-filter').locator('[data-tag="support"]').click();
    await expect.poll(() => page.getByTestId('blueprint').getAttribute('data-ref'), { timeout: WAIT }).toBe('support.team');
    expect(await page.getByTestId('blueprint').count()).toBe(1);
    expect(await page.getByTestId('tag-filter').locator('[data-tag="support"]').getAttribute('aria-pressed')).toBe('true');
  });

  it('imports profiles, which appear on the shelf', async () => {
    const card = blueprintCard('support.team');
    await card.locator('[data-profile="triager"]').getByTestId('import-button').click();
    await shelfRow('triager').waitFor({ timeout: WAIT });
    await card.locator('[data-profile="triager"]').getByText('On your shelf').waitFor({ timeout: WAIT });
    await card.locator('[data-profile="writer"]').getByTestId('import-button').click();
    await shelfRow('writer').waitFor({ timeout: WAIT });
    expect(await shelfRow('triager').textContent()).toContain('v0.1.0');
    expect(await shelfRow('triager').getByTestId('update-available').count()).toBe(0);
  });

  it('flags a newer version of the source blueprint', async () => {
    await publish(
      'support.team',
      '1.1.0',
      'Support desk',
      'Agents that answer a support inbox.',
      [
        {
          ...TRIAGER_V1,
          mission: 'Sort incoming support requests by urgency and product, then route them.',
          instructions: '# Triage\n\nUpstream rewrote these.\n',
        },
        WRITER,
      ],
      ['support', 'email'],
    );
    // Live: the catalog's nudge re-reads the shelf's markers, no Refresh.
    await shelfRow('triager').getByTestId('update-available').waitFor({ timeout: WAIT });
    await shelfRow('triager').click();
    const pane = page.getByTestId('profile-pane');
    await pane.getByTestId('update-banner').waitFor({ timeout: WAIT });
    expect(await pane.getByTestId('update-banner').textContent()).toContain('support.team has version 1.1.0');
    expect(await pane.getByTestId('profile-version').textContent()).toBe('v0.1.0');
    expect(await pane.getByTestId('source-pin').textContent()).toContain('support.team v1.0.0');
    expect(await pane.getByTestId('file-content').textContent()).toContain('Read each request once.');
    await shot('shelf-light');
  });

  it('edits the profile as a new version', async () => {
    await page.getByTestId('edit-version').click();
    const editor = page.getByTestId('version-editor');
    await editor.waitFor({ timeout: WAIT });
    expect(await page.getByTestId('new-version').inputValue()).toBe('0.1.1');
    await editor.locator('[data-path="instructions.md"] .file-button').click();
    await page.getByTestId('file-editor').fill(LOCAL_INSTRUCTIONS);
    await shot('shelf-edit');
    await page.getByTestId('save-version').click();
    await expect.poll(() => page.getByTestId('profile-version').textContent(), { timeout: WAIT }).toBe('v0.1.1');
    expect(await page.getByTestId('profile-note').textContent()).toContain('Saved as version 0.1.1');
    expect(await page.getByTestId('file-content').textContent()).toContain('Escalate anything about billing.');
    // A success note does not stay: it fades on its own (or at ×).
    await page.getByTestId('profile-note').getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => page.getByTestId('profile-note').count(), { timeout: WAIT }).toBe(0);

    await page.getByTestId('tab-versions').click();
    const versions = page.getByTestId('version-list').getByRole('option');
    await expect.poll(() => versions.count(), { timeout: WAIT }).toBe(2);
    expect(await versions.first().textContent()).toContain('Edited');
    expect(await versions.last().textContent()).toContain('Imported');
  });

  it("checks the version as it is typed, with the node's rules", async () => {
    await page.getByTestId('edit-version').click();
    await page.getByTestId('new-version').fill('0.0.9');
    // Refused before anything is sent, in the node's words; the button names no version.
    expect(await page.locator('#new-version-error').textContent()).toContain('must be newer than the latest version 0.1.1');
    expect(await page.getByTestId('save-version').isDisabled()).toBe(true);
    expect(await page.getByTestId('save-version').textContent()).toBe('Save version');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('profile-pane').getByTestId('tab-files').waitFor({ timeout: WAIT });
  });

  it('updates from source, listing the part taken and the local edit kept', async () => {
    await page.getByTestId('update-from-source').click();
    await modal().getByTestId('update-form').waitFor({ timeout: WAIT });
    expect(await modal().getByLabel('New version of this profile').inputValue()).toBe('0.1.2');
    await expect.poll(() => modal().getByLabel('Source version').inputValue(), { timeout: WAIT }).toBe('1.1.0');
    await modal().getByTestId('run-update').click();
    const result = modal().getByTestId('update-result');
    await result.waitFor({ timeout: WAIT });
    expect(await modal().getByRole('heading', { level: 2 }).textContent()).toBe('Updated to v0.1.2');
    expect(await result.getByTestId('updated-parts').locator('li').allTextContents()).toEqual([expect.stringContaining('mission')]);
    expect(await result.getByTestId('updated-parts').textContent()).toContain('profile.yaml field');
    expect(await result.getByTestId('preserved-parts').locator('li').allTextContents()).toEqual([expect.stringContaining('instructions.md')]);
    await shot('shelf-update-result');
    await modal().getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => modal().count()).toBe(0);

    await expect.poll(() => page.getByTestId('profile-version').textContent(), { timeout: WAIT }).toBe('v0.1.2');
    expect(await page.getByTestId('profile-pane').textContent()).toContain('by urgency and product, then route them');
    await page.getByTestId('tab-files').click();
    expect(await page.getByTestId('file-content').textContent()).toContain('Escalate anything about billing.');
    await expect.poll(() => shelfRow('triager').getByTestId('update-available').count(), { timeout: WAIT }).toBe(0);
  });

  it("reviews a member's proposal side by side and approves it", async () => {
    const member = await addMember('coach');
    const current = await member('GET', '/v1/profiles/triager?include=files');
    const bases = current.proposal_asset_digests as Record<string, string>;
    const propose = async (summary: string, assets: unknown[], rationale?: string) =>
      (await member('POST', '/v1/proposals', { target: 'profile', profile_ref: 'triager', summary, rationale, content: { schema: CHANGESET_SCHEMA, assets } }))
        .proposal_id as string;
    proposals['sharpen'] = await propose(
      'Sharpen the mission',
      [
        {
          path: 'profile.yaml#mission',
          content: 'Sort every support request within five minutes and route it.',
          base_asset_digest: bases['profile.yaml#mission'],
        },
        {
          path: 'instructions.md',
          content_utf8: `${LOCAL_INSTRUCTIONS}Reply to the customer that the request was received.\n`,
          base_asset_digest: bases['instructions.md'],
        },
      ],
      'Customers kept asking whether their request had arrived.',
    );
    proposals['stale'] = await propose('Shorter mission', [
      { path: 'profile.yaml#mission', content: 'Sort requests.', base_asset_digest: bases['profile.yaml#mission'] },
    ]);
    proposals['note'] = await propose('Add a style note', [{ path: 'notes/style.md', content_utf8: 'Be brief.\n' }]);

    // Live: proposals an agent submits through the API appear without Refresh.
    await expect.poll(() => shelfBadge().textContent(), { timeout: WAIT }).toBe('3');
    await expect.poll(() => shelfRow('triager').locator('.waiting').textContent(), { timeout: WAIT }).toBe('3');
    await page.getByTestId('tab-proposals').click();
    await expect.poll(() => page.getByTestId('proposal-list').getByRole('option').count(), { timeout: WAIT }).toBe(3);
    await proposalRow('Sharpen the mission').click();

    const review = page.getByTestId('proposal-review');
    await review.waitFor({ timeout: WAIT });
    expect(await review.textContent()).toContain('Customers kept asking');
    expect(await review.getByTestId('proposal-asset').count()).toBe(2);
    const mission = review.locator('[data-path="profile.yaml#mission"]');
    expect(await mission.locator('td.del[data-side="old"]').textContent()).toContain('by urgency and product');
    expect(await mission.locator('td.add[data-side="new"]').textContent()).toBe('Sort every support request within five minutes and route it.');
    const instructions = review.locator('[data-path="instructions.md"]');
    expect(await instructions.locator('td.add[data-side="new"]').allTextContents()).toEqual(['Reply to the customer that the request was received.']);
    expect(await review.getByTestId('stale-asset').count()).toBe(0);
    await shot('shelf-proposal-diff');

    await review.getByTestId('approve').click();
    await expect.poll(() => review.getByTestId('proposal-outcome').textContent(), { timeout: WAIT }).toContain('version 0.1.3 was minted');
    // Decided through this app: by the identity the person acts as (alice, the only one), never by
    // the owner member's alias nor a bare "you" that would not say which identity decided.
    await expect.poll(() => review.getByTestId('proposal-decision').textContent(), { timeout: WAIT }).toMatch(/^\s*Approved by alice /);
    expect(await review.getByTestId('proposal-decision').locator('span').first().getAttribute('title')).toBe('In this app as alice');
    await expect.poll(() => page.getByTestId('profile-version').textContent(), { timeout: WAIT }).toBe('v0.1.3');
    await page.getByTestId('tab-versions').click();
    const newest = page.getByTestId('version-list').getByRole('option').first();
    await expect.poll(() => newest.getAttribute('data-version'), { timeout: WAIT }).toBe('0.1.3');
    expect(await newest.textContent()).toContain('Proposal');
  });

  it('shows why the node refused a stale proposal, and that it was rejected', async () => {
    await page.getByTestId('tab-proposals').click();
    await proposalRow('Shorter mission').click();
    const review = page.getByTestId('proposal-review');
    await review.getByTestId('stale-asset').waitFor({ timeout: WAIT });
    await review.getByTestId('approve').click();
    const alert = review.getByRole('alert');
    await alert.waitFor({ timeout: WAIT });
    expect(await alert.textContent()).toContain('stale');
    await review.getByTestId('recheck-rejected').waitFor({ timeout: WAIT });
    expect(await review.getByTestId('recheck-rejected').textContent()).toContain('rejected it');
    expect(await review.getByText(/recheck rejected proposal/).count()).toBeGreaterThan(0);
    await expect.poll(() => review.getByTestId('proposal-status').textContent(), { timeout: WAIT }).toBe('Rejected');
    expect(await review.getByTestId('proposal-decision').textContent()).toContain('Rejected by the approval recheck');
    expect(await page.getByTestId('profile-version').textContent()).toBe('v0.1.3');
    await shot('shelf-proposal-stale');
  });

  it('rejects a proposal', async () => {
    await page.keyboard.press('Escape');
    await proposalRow('Add a style note').click();
    const review = page.getByTestId('proposal-review');
    expect(await review.locator('[data-path="notes/style.md"]').textContent()).toContain('new');
    await review.getByTestId('reject').click();
    await expect.poll(() => review.getByTestId('proposal-outcome').textContent(), { timeout: WAIT }).toContain('Rejected');
    await expect.poll(() => review.getByTestId('proposal-decision').textContent(), { timeout: WAIT }).toMatch(/^\s*Rejected by alice /);
    await expect.poll(() => shelfBadge().count(), { timeout: WAIT }).toBe(0);
    await page.getByRole('button', { name: 'All proposals' }).click();
    expect(await page.getByTestId('proposal-list').locator('[data-status="open"]').count()).toBe(0);
    const member = await addMember('auditor');
    const decided = await member('GET', '/v1/proposals?profile_ref=triager');
    expect(Object.fromEntries(decided.map((p: any) => [p.proposal_id, p.status]))).toEqual({
      [proposals['sharpen']!]: 'approved',
      [proposals['stale']!]: 'rejected',
      [proposals['note']!]: 'rejected',
    });
    // The node recorded which identity decided, for every decision the app made.
    expect(new Set(decided.map((p: any) => p.decided_by_acting_as?.agent_id))).toEqual(new Set([aliceAgentId]));
  });

  it('binds the profile to an identity', async () => {
    await page.keyboard.press('b');
    await modal().getByLabel('Identity').waitFor({ timeout: WAIT });
    await modal().getByLabel('Identity').selectOption(aliceAgentId);
    expect(await modal().getByLabel('Version').inputValue()).toBe('0.1.3');
    await modal().getByTestId('bind-submit').click();
    // A confirmation in place, not another dialog to dismiss.
    await expect.poll(() => modal().count(), { timeout: WAIT }).toBe(0);
    expect(await page.getByTestId('profile-note').textContent()).toContain('alice now wears triager v0.1.3.');
    expect(await page.getByTestId('profile-note').getAttribute('role')).toBe('status');
    await expect.poll(() => page.getByTestId('worn-by').textContent(), { timeout: WAIT }).toContain('alice (v0.1.3)');
    await shot('shelf-bound');
    const bindings = await asOwnerMember('GET', '/v1/profile-bindings');
    expect(bindings.bindings).toEqual([expect.objectContaining({ agent_id: aliceAgentId, profile_ref: 'triager', profile_version: '0.1.3' })]);
  });

  it("materializes the bound identity's home for claude-code", async () => {
    await page.getByTestId('materialize').click();
    const dialog = modal();
    await dialog.getByTestId('home-tree').waitFor({ timeout: WAIT });
    expect(await dialog.getByTestId('materialize-subject').locator('option:checked').textContent()).toContain('alice');
    expect(await dialog.getByTestId('materialize-runtime').inputValue()).toBe('claude-code');
    const tree = dialog.getByTestId('home-tree');
    await tree.locator('[data-path="AGENTS.md"]').waitFor({ timeout: WAIT });
    const claude = tree.locator('[data-path="CLAUDE.md"]');
    expect(await claude.getAttribute('data-kind')).toBe('symlink');
    expect(await claude.getByTestId('symlink-target').textContent()).toBe('→ AGENTS.md');
    expect(await tree.locator('[data-path=".svc/profile/ref.json"]').count()).toBe(1);
    const preview = dialog.getByTestId('home-preview');
    expect(await preview.textContent()).toContain('# Triager');
    expect(await preview.textContent()).toContain('Profile triager v0.1.3');
    expect(await preview.textContent()).toContain('Escalate anything about billing.');
    await dialog.getByRole('button', { name: 'Copy file' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toContain('Profile triager v0.1.3');
    await shot('shelf-materialize');

    await claude.click();
    expect(await dialog.getByTestId('symlink-preview').textContent()).toContain('AGENTS.md');
    // Another runtime: the plain layout, no links.
    await dialog.getByTestId('materialize-runtime').selectOption('codex');
    await expect.poll(() => tree.locator('[data-kind="symlink"]').count(), { timeout: WAIT }).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => modal().count()).toBe(0);
  });

  it('shows a team created with `svc-node team create` at once, and picks between teams', async () => {
    const made = await runCli(['team', 'create', 'research', '--domain', TEAM.domain, '--data', node.dataDir, '--json']);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).team_id).toBe(`research:${TEAM.domain}`);
    // No reload, no Refresh: the owner feed's teams_changed brings the picker.
    const picker = page.getByTestId('team-picker');
    await picker.waitFor({ timeout: WAIT });
    await expect
      .poll(() => picker.locator('option').allTextContents(), { timeout: WAIT })
      .toEqual([expect.stringContaining('agents'), expect.stringContaining('research')]);
    await picker.selectOption(`research:${TEAM.domain}`);
    await page.getByTestId('shelf-empty').waitFor({ timeout: WAIT });
    await picker.selectOption(TEAM_ID);
    await shelfRow('triager').waitFor({ timeout: WAIT });
  });

  it('navigates the shelf by keyboard, with the shortcuts in tooltips', async () => {
    // In id order (the node's paging key): triager, then writer.
    const list = page.getByTestId('shelf-list');
    expect(await list.locator('[data-ref]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-ref')))).toEqual(['triager', 'writer']);
    expect(await shelfRow('writer').getAttribute('title')).toContain('open (Enter)');
    expect(await list.getAttribute('title')).toContain('j/k to move, Enter to open');
    expect(await page.getByTestId('edit-version').getAttribute('title')).toContain('(E)');
    await list.focus();
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('profile-pane').locator('h1').textContent(), { timeout: WAIT }).toBe('Reply writer');
    expect(await list.getByRole('option', { selected: true }).locator('[data-ref]').getAttribute('data-ref')).toBe('writer');
    // Esc from the profile comes back to the list, where k and Enter open the other one.
    await page.getByTestId('profile-pane').locator('h1').click();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate('document.activeElement?.dataset?.testid')).toBe('shelf-list');
    await page.keyboard.press('k');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('profile-pane').locator('h1').textContent(), { timeout: WAIT }).toBe('Triager');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('profile-pane').locator('h1').textContent(), { timeout: WAIT }).toBe('Reply writer');
  });

  it('deletes a profile after saying what goes with it', async () => {
    await page.getByTestId('delete-profile').click();
    const dialog = modal().getByTestId('delete-dialog');
    await dialog.waitFor({ timeout: WAIT });
    expect(await dialog.textContent()).toContain('writer and its 1 version are deleted; this cannot be undone.');
    await dialog.getByTestId('confirm-delete').click();
    await expect.poll(() => shelfRow('writer').count(), { timeout: WAIT }).toBe(0);
    await expect.poll(() => page.getByTestId('profile-pane').locator('h1').textContent(), { timeout: WAIT }).toBe('Triager');
  });

  it('fits 1440, 1200 and 900 px wide windows in light and dark', async () => {
    await page.getByTestId('tab-files').click();
    for (const width of [1440, 1200, 900]) {
      await page.setViewportSize({ width, height: 860 });
      for (const scheme of ['light', 'dark'] as const) {
        await emulateColorScheme(page, scheme);
        await page.getByTestId('file-content').waitFor({ timeout: WAIT });
        expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
        // The actions stay inside the pane.
        const pane = (await page.getByTestId('profile-pane').boundingBox())!;
        const publish = (await page.getByTestId('publish').boundingBox())!;
        expect(publish.x + publish.width).toBeLessThanOrEqual(pane.x + pane.width);
        await shot(`shelf-${width}-${scheme}`);
      }
      // The catalog at the same width. Below 1000 px the view shows one pane: back to the list first.
      if (width < 1000) await page.getByTestId('pane-back').click();
      await page.getByTestId('catalog-entry').click();
      await page.getByTestId('blueprint-list').waitFor({ timeout: WAIT });
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
      await shot(`shelf-catalog-${width}-dark`);
      if (width < 1000) {
        await page.getByTestId('pane-back').click();
        // The list alone, then the profile alone: one pane at a time.
        expect(await page.getByTestId('blueprint-list').isVisible()).toBe(false);
        await shot(`shelf-list-${width}-dark`);
      }
      await shelfRow('triager').click();
      if (width < 1000) expect(await page.getByTestId('catalog-entry').isVisible()).toBe(false);
      await page.getByTestId('tab-files').click();
    }
    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1280, height: 820 });
  });

  it('renders in dark mode and in a 1024x700 window', async () => {
    await page.getByTestId('tab-proposals').click();
    await proposalRow('Sharpen the mission').click();
    await page.getByTestId('proposal-review').waitFor({ timeout: WAIT });
    await emulateColorScheme(page, 'dark');
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(24, 25, 28)');
    await shot('shelf-dark');

    await emulateColorScheme(page, 'light');
    await page.setViewportSize({ width: 1024, height: 700 });
    // At 1024 px the sidebar keeps its icons only, which leaves the review room for side by side
    // (and below 1000 px the profile has the window to itself); narrower still, the review falls
    // back to a unified diff. Nothing overflows sideways either way.
    await page.locator('[data-testid="diff"].split').first().waitFor({ timeout: WAIT });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await shot('shelf-proposal-1024x700');
    await page.setViewportSize({ width: 680, height: 700 });
    await page.locator('[data-testid="diff"].unified').first().waitFor({ timeout: WAIT });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await shot('shelf-proposal-680x700');
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByRole('button', { name: 'All proposals' }).click();
    await page.getByTestId('tab-files').click();
    await page.getByTestId('file-content').waitFor({ timeout: WAIT });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await shot('shelf-1024x700');
    await page.getByTestId('materialize').click();
    await modal().getByTestId('home-tree').waitFor({ timeout: WAIT });
    await shot('shelf-materialize-1024x700');
    await page.keyboard.press('Escape');
    await page.getByTestId('catalog-entry').click();
    await page.getByTestId('blueprint-list').waitFor({ timeout: WAIT });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await shot('shelf-catalog-1024x700');
  });

  it('logged no errors in the browser console', () => {
    // 4xx answers the test provoked on purpose (the stale approval, the old version) show up as failed loads.
    const unexpected = unexpectedConsoleErrors(consoleErrors);
    expect(unexpected).toEqual([]);
  });

  it('stops cleanly on SIGTERM', async () => {
    await browser.close();
    expect(await node.stop()).toBe(0);
  });
});
