/**
 * The steps every browser test starts and ends with, in one place: the UI built when its sources
 * changed, the screenshots folder, a real headless node set up as the test needs, Debian's
 * Chromium, and (for most) the app opened on the node's one-time sign-in link; then everything
 * stopped again. A screenshot is one call.
 *
 *   beforeAll(async () => {
 *     rig = await openAppOnNode({ section: 'nav-mail', sink: consoleErrors, prepare: async (node) => { ... } });
 *     ({ node, page } = rig);
 *   });
 *   afterAll(() => stopRig(rig));
 *
 * A test that opens its own windows takes `startRig()` (a node and Chromium) and browser.ts
 * `openWindow`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ensureUiBuilt, ROOT } from './build-ui.ts';
import { launchChromium, openApp, type TestChromium } from './browser.ts';
import { startHeadlessNode, type HeadlessNode } from './headless-node.ts';
import { selfKey } from '../support/self-signer.ts';

export const SHOTS = join(ROOT, 'test/e2e/screenshots');

/** A real headless node and Chromium, for one test file. */
export interface Rig {
  node: HeadlessNode;
  chrome: TestChromium;
  browser: Browser;
}

/** The UI built, the screenshots folder, a node (`start`, default a fresh one), then Chromium. */
export async function startRig(options: { start?: () => Promise<HeadlessNode> } = {}): Promise<Rig> {
  ensureUiBuilt(); // no-op when the globalSetup already built it
  mkdirSync(SHOTS, { recursive: true });
  const node = await (options.start ?? startHeadlessNode)();
  try {
    const chrome = await launchChromium();
    return { node, chrome, browser: chrome.browser };
  } catch (error) {
    await node.dispose();
    throw error;
  }
}

/** A rig with the app open in a window of its own. */
export type AppRig = Rig & { context: BrowserContext; page: Page };

/**
 * The rig, the node set up as the test needs (`prepare`: identities, teams, mail…), then the app
 * open as a person first sees it (browser.ts `openApp`), once `section` shows. What started is
 * stopped again if a step fails.
 */
export async function openAppOnNode(options: {
  section: string;
  sink: string[];
  timeout?: number;
  start?: () => Promise<HeadlessNode>;
  prepare?: (node: HeadlessNode) => Promise<void>;
}): Promise<AppRig> {
  const rig = await startRig(options);
  try {
    await options.prepare?.(rig.node);
    return { ...rig, ...(await openApp(rig.browser, rig.node, { section: options.section, sink: options.sink, timeout: options.timeout ?? 15_000 })) };
  } catch (error) {
    await stopRig(rig);
    throw error;
  }
}

/** Stops what a test started: the browser with all its windows, then the node (its data dir goes too). */
export async function stopRig(rig: Partial<Rig> | undefined): Promise<void> {
  await rig?.chrome?.close();
  await rig?.node?.dispose();
}

/** The visible window of `page`, as test/e2e/screenshots/<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/**
 * What the team views show once filled: team acme with one document, a member holding its own key
 * (revocable, unlike the owner member), and an invite waiting for another.
 */
export async function seedTeamViews(node: HeadlessNode): Promise<void> {
  const team = await node.owner('POST', '/v1/node/teams', { name: 'acme', domain: 'acme.test' });
  const teamPath = `/v1/node/teams/${encodeURIComponent(team.team_id)}`;
  await node.asTeamOwner(team.team_id, 'POST', '/v1/documents', {
    slug: 'launch-plan',
    title: 'Launch plan',
    body: '# Launch plan\n\nWhat ships first, and why.\n',
  });
  await node.owner('POST', `${teamPath}/members`, { did_key: selfKey().didKey, alias: 'builder', lifetime: 'persistent' });
  await node.owner('POST', `${teamPath}/invites`, { alias: 'scout' });
}

/**
 * Identities to write as: `domain` registered, one project, and an identity per name with its
 * agent id and an API key to send with (what the mail and keyboard views start from).
 */
export async function seedIdentities(
  node: HeadlessNode,
  options: { domain: string; slug: string; names: readonly string[] },
): Promise<{ agents: Record<string, string>; keys: Record<string, string> }> {
  await node.owner('POST', '/v1/node/namespaces', { domain: options.domain });
  const name = options.slug.charAt(0).toUpperCase() + options.slug.slice(1);
  const project = await node.owner('POST', '/v1/node/projects', { slug: options.slug, name, namespace: options.domain });
  const agents: Record<string, string> = {};
  const keys: Record<string, string> = {};
  for (const identity of options.names) {
    const created = await node.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: identity });
    agents[identity] = created.agent_id;
    keys[identity] = (await node.owner('POST', `/v1/node/identities/${created.agent_id}/session-key`)).api_key;
  }
  return { agents, keys };
}

/**
 * Makes `address` the identity `page` acts as, through the identity switcher as a person does, and
 * waits until the switcher names it. It waits first until the switcher offers to switch: before the
 * node's identities have loaded it names none, and a click on it opens Set up instead of the list.
 */
export async function actAs(page: Page, address: string, timeout = 15_000): Promise<void> {
  await page.bringToFront();
  const switcher = page.getByTestId('identity-switcher');
  await page.locator('[data-testid="identity-switcher"][title^="Switch identity"]').waitFor({ timeout });
  if ((await switcher.getAttribute('aria-expanded')) !== 'true') await switcher.click();
  await page.getByTestId('identity-switcher-menu').getByRole('option').filter({ hasText: address }).click({ timeout });
  await switcher.filter({ hasText: address }).waitFor({ timeout });
}
