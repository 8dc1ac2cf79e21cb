/**
 * Mail between nodes, as the owner sees it, driven in Debian's Chromium against a real headless
 * node: Settings → Peers checks its fields by the node's own rules next to each (an empty "Add
 * peer" says what is missing; a URL that is not an http(s) origin is refused before sending), shows
 * what only the node can refuse in its words until the form changes, lists a good peer and removes
 * it after a confirmation that says what changes; Settings → Tunnel shows the node's SSH public
 * key, refuses an incomplete form field by field, saves settings (Start becomes possible),
 * starts against an SSH host that is not there (never "Up") and stops. Mail: an identity with an
 * address writes to elsewhere.test/bob, a domain no node is known for; the outbox says the mail
 * is queued for another node, and "Sent to other nodes" lists it as queued with the node's last
 * error. Screenshots (light, dark, 1024x700) go to test/e2e/screenshots/.
 */
import { createServer } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unexpectedConsoleErrors } from './browser.ts';
import type { HeadlessNode } from './headless-node.ts';
import { openAppOnNode, shot as saveShot, stopRig, type AppRig } from './steps.ts';

const DOMAIN = 'e2e-fed.test';
const ALICE = `${DOMAIN}/alice`;
const REMOTE = 'elsewhere.test/bob';
const SUBJECT = 'Hello from another node';
const WAIT = 15_000;

let rig: AppRig | undefined;
let node: HeadlessNode;
let page: Page;
const consoleErrors: string[] = [];

const shot = (name: string): Promise<void> => saveShot(page, name);

/** A local TCP port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const modal = () => page.locator('dialog[open]');
const peerRow = (domain: string) => page.getByTestId('peer-row').and(page.locator(`[data-domain="${domain}"]`));
const tunnel = () => page.getByTestId('tunnel-panel');
const tunnelState = () => tunnel().getByTestId('tunnel-state').textContent();

beforeAll(async () => {
  rig = await openAppOnNode({
    section: 'nav-settings',
    sink: consoleErrors,
    timeout: WAIT,
    // An identity with an address (mail to another node is signed by its address): a namespace,
    // a project bound to it, a persistent identity.
    prepare: async (started) => {
      await started.owner('POST', '/v1/node/namespaces', { domain: DOMAIN });
      const project = await started.owner('POST', '/v1/node/projects', { slug: 'fed', name: 'Federation', namespace: DOMAIN });
      await started.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'alice' });
    },
  });
  ({ node, page } = rig);
}, 90_000);

afterAll(() => stopRig(rig));

describe('Peers, tunnel and mail to other nodes (headless node, Chromium)', { timeout: 60_000 }, () => {
  it('Peers: fields checked by the node’s rules, the node’s words for the rest; a good peer is listed', async () => {
    await page.getByTestId('nav-settings').click();
    const panel = page.getByTestId('peers-panel');
    await panel.waitFor({ timeout: WAIT });
    // The three surfaces share one listener: its URL once, with what answers there.
    const urls = page.getByTestId('node-url');
    expect(await urls.count()).toBe(1);
    expect(await urls.textContent()).toMatch(new RegExp(`^${node.info.core_url}Mail, chat`));
    expect(await page.getByRole('region', { name: 'Addresses' }).textContent()).toContain('the library and documents');
    await page.getByRole('region', { name: 'Addresses' }).scrollIntoViewIfNeeded();
    await shot('settings-addresses');
    expect(await panel.textContent()).toContain('the node that answers for a domain, when DNS does not say');
    await panel.getByTestId('peers-empty').waitFor({ timeout: WAIT });

    // "Add peer" with nothing typed says what is missing, next to each field.
    await panel.getByTestId('peer-add').click();
    const fieldErrors = panel.getByTestId('field-error');
    await expect
      .poll(() => fieldErrors.allTextContents(), { timeout: WAIT })
      .toEqual(['Domain: enter a domain, for example example.com', 'Node URL: enter the node’s URL, for example https://node.example.com']);
    // Checked by the node's own rules before sending; each problem goes as soon as it is fixed.
    await panel.getByTestId('peer-domain').fill('acme.test');
    await panel.getByTestId('peer-url').fill('ftp://node.acme.test');
    await panel.getByTestId('peer-url').press('Enter');
    await expect
      .poll(() => fieldErrors.allTextContents())
      .toEqual(['Node URL: enter the node’s http(s) origin, such as https://node.example.com, without a path']);
    expect(await page.getByTestId('peer-row').count()).toBe(0);

    // What only the node can know comes back in its words, and clears once the form changes.
    await panel.getByTestId('peer-domain').fill(DOMAIN);
    await panel.getByTestId('peer-url').fill('https://node.acme.test');
    await panel.getByTestId('peer-add').click();
    const error = panel.getByRole('alert');
    await error.waitFor({ timeout: WAIT });
    expect(await error.textContent()).toContain(`${DOMAIN} is a namespace of this node`);
    await panel.getByTestId('peer-domain').fill('acme.test');
    await expect.poll(() => panel.getByRole('alert').count()).toBe(0);

    await panel.getByTestId('peer-add').click();
    await peerRow('acme.test').waitFor({ timeout: WAIT });
    expect(await peerRow('acme.test').textContent()).toContain('https://node.acme.test');
    expect(await panel.getByRole('alert').count()).toBe(0);
    expect(await panel.getByTestId('peer-domain').inputValue()).toBe('');
    const stored = await node.owner('GET', '/v1/node/peers');
    expect(stored.peers).toMatchObject([{ domain: 'acme.test', url: 'https://node.acme.test' }]);

    // A second one, kept for the screenshot.
    await panel.getByTestId('peer-domain').fill('partner.test');
    await panel.getByTestId('peer-url').fill('https://mail.partner.test:8443');
    await panel.getByTestId('peer-url').press('Enter');
    await peerRow('partner.test').waitFor({ timeout: WAIT });
  });

  it('Peers: the rows take the keyboard: j/k move, Enter puts a peer in the form, Delete asks to remove', async () => {
    const panel = page.getByTestId('peers-panel');
    await peerRow('acme.test').focus();
    await page.keyboard.press('j');
    expect(await page.evaluate('document.activeElement?.dataset.domain')).toBe('partner.test');
    await page.keyboard.press('Enter');
    expect(await panel.getByTestId('peer-domain').inputValue()).toBe('partner.test');
    expect(await panel.getByTestId('peer-url').inputValue()).toBe('https://mail.partner.test:8443');
    await panel.getByTestId('peer-domain').fill('');
    await panel.getByTestId('peer-url').fill('');
    await peerRow('partner.test').focus();
    await page.keyboard.press('k');
    await page.keyboard.press('Delete');
    expect(await peerRow('acme.test').textContent()).toContain('Mail to acme.test will wait until DNS names its node.');
    await peerRow('acme.test').getByRole('button', { name: 'Keep it' }).click();
  });

  it('Peers: removing one says what happens and asks once', async () => {
    const row = peerRow('acme.test');
    await row.getByTestId('peer-remove').click();
    expect(await row.textContent()).toContain('Mail to acme.test will wait until DNS names its node.');
    await row.getByTestId('peer-remove-confirm').click();
    await expect.poll(() => peerRow('acme.test').count(), { timeout: WAIT }).toBe(0);
    const stored = await node.owner('GET', '/v1/node/peers');
    expect(stored.peers.map((p: { domain: string }) => p.domain)).toEqual(['partner.test']);
  });

  it('Tunnel: shows the node’s SSH key; saves settings; start never claims "Up" without a host; stop', async () => {
    const panel = tunnel();
    await panel.waitFor({ timeout: WAIT });
    const key = panel.getByTestId('tunnel-public-key');
    await key.waitFor({ timeout: WAIT });
    expect(await key.textContent()).toMatch(/^ssh-ed25519 AAAA\S+ svc-node\b/);
    expect(await panel.textContent()).toContain('the private key never leaves this node');
    // Never set up: it says so, not "Stopped since" the node's start.
    expect(await tunnelState()).toBe('Not set up');
    expect(await panel.textContent()).not.toMatch(/since/);
    expect(await panel.getByTestId('tunnel-start').isDisabled()).toBe(true);
    expect(await panel.getByTestId('tunnel-port').inputValue()).toBe('22');

    // An incomplete form is refused next to the field, by the node's own rules, before the node is asked.
    await panel.getByTestId('tunnel-host').fill('127.0.0.1');
    await panel.getByTestId('tunnel-username').fill('tunnel user');
    await panel.getByTestId('tunnel-save').click();
    await expect
      .poll(() => panel.getByTestId('field-error').allTextContents(), { timeout: WAIT })
      .toEqual(['User name: use an account name of 1-64 letters, digits, ".", "_" or "-"', 'Remote port: enter a port number']);
    await panel.getByTestId('tunnel-username').fill('tunnel');
    await expect.poll(() => panel.getByTestId('field-error').allTextContents()).toEqual(['Remote port: enter a port number']);

    const port = await closedPort();
    await panel.getByTestId('tunnel-port').fill(String(port));
    await panel.getByTestId('tunnel-remote-port').fill('9000');
    await panel.getByTestId('tunnel-public-url').fill('https://node.e2e-fed.test');
    expect(await panel.textContent()).toContain('authorized_keys for tunnel on your SSH host');
    await panel.getByTestId('tunnel-save').click();
    await expect.poll(() => panel.getByTestId('tunnel-start').isDisabled(), { timeout: WAIT }).toBe(false);
    expect(await panel.getByTestId('tunnel-error').count()).toBe(0);
    expect(await tunnelState()).toBe('Stopped');
    const saved = await node.owner('GET', '/v1/node/tunnel');
    expect(saved.config).toMatchObject({ host: '127.0.0.1', port, username: 'tunnel', remote_port: 9000, public_url: 'https://node.e2e-fed.test' });
    await panel.scrollIntoViewIfNeeded();
    await shot('settings-peers-tunnel');

    // Nothing listens there: the node tries (connecting, reconnecting) or gives up (failed); never up.
    await panel.getByTestId('tunnel-start').click();
    await expect.poll(tunnelState, { timeout: WAIT }).toMatch(/^(Connecting|Reconnecting|Failed)$/);
    const stateNow = await tunnelState();
    if (stateNow !== 'Failed') await expect.poll(tunnelState, { timeout: WAIT }).not.toBe('Up');
    await panel.getByTestId('tunnel-stop').click();
    await expect.poll(tunnelState, { timeout: WAIT }).toBe('Stopped');
    expect((await node.owner('GET', '/v1/node/tunnel')).status.state).toBe('stopped');
  });

  it('Settings in dark mode', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByTestId('peers-panel').scrollIntoViewIfNeeded();
    await shot('settings-peers-tunnel-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('Mail to a domain no node is known for is queued, and listed as such with the node’s last error', async () => {
    await page.getByTestId('nav-mail').click();
    await page.getByTestId('identity-switcher').click();
    await page.getByTestId('identity-switcher-menu').getByRole('option').filter({ hasText: ALICE }).click();
    await page.getByTestId('identity-switcher').filter({ hasText: ALICE }).waitFor({ timeout: WAIT });
    await page.getByTestId('mail-empty').waitFor({ timeout: WAIT });

    await page.getByTestId('compose-button').click();
    const dialog = modal();
    await dialog.getByTestId('compose').waitFor({ timeout: WAIT });
    await dialog.getByLabel('To', { exact: true }).fill(REMOTE);
    await dialog.getByLabel('Subject').fill(SUBJECT);
    await dialog.getByLabel('Message').fill('Hi Bob,\n\nThis one travels to your node.\n\nAlice');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => modal().count()).toBe(0);
    const sent = page.getByTestId('outbox').locator('[data-state="sent"]');
    await sent.waitFor({ timeout: WAIT });
    expect(await sent.textContent()).toContain(`Queued for ${REMOTE} (another node)`);

    await page.getByTestId('folder-outbound').click();
    const row = page.getByTestId('outbound-row').filter({ hasText: SUBJECT });
    await row.waitFor({ timeout: WAIT });
    expect(await row.getAttribute('data-status')).toBe('queued');
    expect(await row.getByTestId('outbound-status').textContent()).toBe('Queued');
    expect(await row.textContent()).toContain(REMOTE);
    // The first attempt finds no node for the domain; the list re-reads every 10 s.
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toContain('no node is known for elsewhere.test');
    expect(await row.getByTestId('outbound-status').getAttribute('title')).toContain('Last error: no node is known for elsewhere.test');
    await row.click();
    const pane = page.getByTestId('outbound-pane');
    await pane.waitFor({ timeout: WAIT });
    expect(await pane.textContent()).toContain('no node is known for elsewhere.test');
    expect(await page.getByTestId('folder-outbound').getAttribute('aria-current')).toBe('page');
    await shot('mail-outbound');

    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByTestId('outbound-row').first().waitFor({ timeout: WAIT });
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await shot('mail-outbound-1024x700');
    await page.setViewportSize({ width: 1280, height: 820 });
  });

  it('Peers: a peer that does not answer shows what waits for it and why, and retries on request', async () => {
    const port = await closedPort();
    await node.owner('POST', '/v1/node/peers', { domain: 'elsewhere.test', url: `http://127.0.0.1:${port}` });
    await page.getByTestId('nav-settings').click();
    const queue = peerRow('elsewhere.test').getByTestId('peer-queue');
    // The panel reads the table when it opens; the try that fails comes moments after the peer is added.
    await expect
      .poll(
        async () => {
          if ((await queue.count()) > 0 && (await queue.textContent())?.includes('(unreachable)')) return true;
          await page.getByTestId('nav-mail').click();
          await page.getByTestId('nav-settings').click();
          return false;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    // The mail is sealed as it leaves: the first thing its node is asked for is the recipient's key.
    expect(await queue.textContent()).toMatch(/^\s*1 waiting, the oldest sent .+: could not find elsewhere\.test\/\S+ encryption key: .*\(unreachable\)/);
    await queue.getByTestId('peer-retry').click();
    await expect.poll(() => queue.getByTestId('peer-retry').textContent(), { timeout: WAIT }).toContain('Retry now');
    expect((await node.owner('GET', '/v1/node/peers')).peers.find((p: { domain: string }) => p.domain === 'elsewhere.test').queue).toMatchObject({ queued: 1 });
    await peerRow('elsewhere.test').scrollIntoViewIfNeeded();
    await shot('settings-peer-queue');
  });

  it('left no unexpected console errors', () => {
    expect(unexpectedConsoleErrors(consoleErrors)).toEqual([]);
  });
});
