/**
 * The Shelf's Publish dialog says each problem once, next to the field it concerns, driven in
 * Debian's Chromium against a real headless node: an id or tags the node would refuse, a missing
 * name, and the node's own refusal of an id that is taken, each under its field and not again at
 * the foot of the form; editing the field clears it. Screenshots light and dark.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileFiles } from '../support/library.ts';
import { emulateColorScheme, unexpectedConsoleErrors } from './browser.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const DOMAIN = 'publish-errors-e2e.test';
const TEAM_ID = `crew:${DOMAIN}`;
const WAIT = 15_000;

let rig: AppRig | undefined;
let page: Page;
const consoleErrors: string[] = [];

const shot = (name: string): Promise<void> => saveShot(page, name);
const form = () => page.locator('dialog[open]').getByTestId('publish-form');

/** How many times `text` is written in the dialog. */
async function timesShown(text: string): Promise<number> {
  const all = (await form().textContent()) ?? '';
  return all.split(text).length - 1;
}

/** A field's problem, right under its control (above the field's hint), by the field's id. */
const fieldError = (id: string): Locator => form().locator(`#${id}-error`);

/** The form's error note at its foot, for what concerns no one field. */
const formAlert = (): Locator => form().getByRole('alert');

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-shelf',
    sink: consoleErrors,
    timeout: WAIT,
    prepare: async (node) => {
      await node.owner('POST', '/v1/node/teams', { name: 'crew', domain: DOMAIN });
      for (const ref of ['writer', 'keeper']) {
        await node.asTeamOwner(TEAM_ID, 'POST', '/v1/profiles', { files: profileFiles({ ref, name: `Profile ${ref}`, mission: 'Helps.' }) });
      }
      // A blueprint the team already published: its id is taken.
      await node.asTeamOwner(TEAM_ID, 'POST', '/v1/profiles/keeper/publish', {
        blueprint_version: '1.0.0',
        profile_version: '0.1.0',
        new_blueprint: { blueprint_ref: 'taken.team', name: 'Taken' },
      });
    },
  });
  ({ page } = rig);
  await page.getByTestId('nav-shelf').click();
  await page.getByTestId('shelf-list').getByText('Profile writer').click();
  await page.getByTestId('profile-pane').getByRole('heading', { name: 'Profile writer' }).waitFor({ timeout: WAIT });
  await page.getByTestId('publish').click();
  await form().waitFor({ timeout: WAIT });
}, 90_000);

afterAll(() => stopRig(rig));

describe('Publish says each problem once, where it is (headless node, Chromium)', { timeout: 40_000 }, () => {
  it('an id the node would refuse: under the id, once, also after Publish is pressed', async () => {
    await form().getByLabel('Blueprint name').fill('Writers');
    await form().getByTestId('publish-ref').fill('Writers.Team');
    const problem = '"Writers.Team" cannot be an id (perhaps writers.team)';
    expect(await fieldError('publish-ref').textContent()).toContain(problem);
    // The hint stays under the problem, and a screen reader reads both with the input.
    expect(await form().locator('#publish-ref-hint').textContent()).toContain('it names the blueprint for good');
    expect((await form().getByTestId('publish-ref').getAttribute('aria-describedby'))?.split(' ')).toEqual(['publish-ref-error', 'publish-ref-hint']);
    await form().getByTestId('publish-submit').click();
    expect(await timesShown(problem)).toBe(1);
    expect(await fieldError('publish-ref').textContent()).toContain(problem);
    expect(await formAlert().count()).toBe(0);
    await shot('publish-error-ref');
    await form().getByTestId('publish-ref').fill('writers.team');
    expect(await timesShown(problem)).toBe(0);
  });

  it('tags the node would refuse: under the tags, once', async () => {
    await form().getByTestId('publish-ref').fill('writers.team');
    await form().getByTestId('publish-tags').fill('docs, c++');
    const problem = 'Tag "c++" may only use a-z, 0-9, ".", "_" and "-"';
    expect(await fieldError('publish-tags').textContent()).toContain(problem);
    await form().getByTestId('publish-submit').click();
    expect(await timesShown(problem)).toBe(1);
    expect(await formAlert().count()).toBe(0);
    await form().getByTestId('publish-tags').fill('docs');
    expect(await timesShown(problem)).toBe(0);
  });

  it('a missing name: under the name once Publish is pressed, with the keyboard there', async () => {
    await form().getByLabel('Blueprint name').fill('');
    await form().getByTestId('publish-submit').click();
    const problem = 'give the blueprint a name';
    expect(await fieldError('publish-name').textContent()).toContain(problem);
    expect(await timesShown(problem)).toBe(1);
    expect(await formAlert().count()).toBe(0);
    expect(await page.evaluate('document.activeElement?.id')).toBe('publish-name');
    await form().getByLabel('Blueprint name').fill('Writers');
    expect(await timesShown(problem)).toBe(0);
  });

  it('the node refuses an id that is taken: its words under the id, once, gone when the id is edited', async () => {
    await form().getByTestId('publish-ref').fill('taken.team');
    await form().getByTestId('publish-submit').click();
    const refusal = 'Blueprint taken.team already exists';
    await expect.poll(() => fieldError('publish-ref').textContent(), { timeout: WAIT }).toContain(refusal);
    expect(await timesShown(refusal)).toBe(1);
    expect(await formAlert().count()).toBe(0);
    expect(await form().getByTestId('publish-ref').getAttribute('aria-invalid')).toBe('true');
    await shot('publish-error-taken');
    await emulateColorScheme(page, 'dark');
    await shot('publish-error-taken-dark');
    await emulateColorScheme(page, 'light');
    await form().getByTestId('publish-ref').fill('writers.team');
    expect(await timesShown(refusal)).toBe(0);
    // Fixed, it publishes.
    await form().getByTestId('publish-submit').click();
    await page.locator('dialog[open]').getByTestId('publish-result').waitFor({ timeout: WAIT });
    await page.keyboard.press('Escape');
  });

  it('logged no errors in the browser console', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
