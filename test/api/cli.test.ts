/**
 * The `svc-node` command (DESIGN §4): `serve` prints one ready line and writes node.json; the
 * owner commands talk to the node on `--data DIR` and fail in one line when none runs there;
 * SIGTERM stops cleanly; one node per data dir.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lines, READY_PREFIX, runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { expectOneLineFailure, jsonOutput } from '../support/cli-expect.ts';
import { API_KEY } from '../support/identities.ts';
import { didKeyHeaders, testKey } from '../support/keys.ts';

const READY_KEYS = ['core_url', 'data_dir', 'docs_url', 'library_url', 'pid', 'public_url', 'ui_url'];

let dataDir: string;
let serve: ServeProcess;
let coreUrl: string;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-node-cli-'));
}

async function api(method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${coreUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  dataDir = tempDir();
  serve = await startServe(['--data', dataDir, '--port', '0']);
  coreUrl = serve.ready.core_url as string;
});
afterAll(async () => {
  await serve.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('svc-node serve', { timeout: 60_000 }, () => {
  it('prints one ready line with exactly the contract keys', async () => {
    const readyLines = lines(serve.output().stdout).filter((line) => line.startsWith(READY_PREFIX));
    expect(readyLines).toHaveLength(1);
    const ready = serve.ready;
    expect(Object.keys(ready).sort()).toEqual(READY_KEYS);
    expect(ready.core_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.core_url).not.toMatch(/:0$/);
    expect(ready.library_url).toBe(ready.core_url);
    expect(ready.docs_url).toBe(ready.core_url);
    expect(ready.ui_url).toMatch(new RegExp(`^${String(ready.core_url)}/ui/#code=.+`));
    expect(ready.public_url).toBeNull();
    expect(ready.data_dir).toBe(dataDir);
    expect(ready.pid).toBe(serve.child.pid);
    // The node answers there.
    const listed = await api('GET', `/v1/namespaces?controller_did=${encodeURIComponent('did:key:z6MkNobody')}`);
    expect(listed).toEqual({ status: 200, body: { namespaces: [] } });
  });

  it('writes node.json (mode 0600): the ready object plus the owner token', async () => {
    const file = join(dataDir, 'node.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const content = JSON.parse(readFileSync(file, 'utf8'));
    const { owner_token, ...rest } = content;
    expect(rest).toEqual(serve.ready);
    expect(owner_token).toMatch(/^svc_ot_[0-9a-f]{64}$/);
    expect((await api('GET', '/v1/node/info', owner_token)).status).toBe(200);
    expect(await api('GET', '/v1/node/info', `${owner_token}x`)).toMatchObject({ status: 401, body: { code: 'SVC_ERR_OWNER_TOKEN_REQUIRED' } });
  });

  it('refuses a second serve on the same data dir with a clear message', async () => {
    const second = await runCli(['serve', '--data', dataDir, '--port', '0']);
    expect(second.code).not.toBe(0);
    expect(second.stdout).not.toContain(READY_PREFIX);
    expect(second.stderr).toMatch(new RegExp(`another svc-node \\(pid ${serve.child.pid}\\) is running on ${dataDir}`));
    // The running node is untouched: node.json still names it and it still answers.
    expect(JSON.parse(readFileSync(join(dataDir, 'node.json'), 'utf8')).pid).toBe(serve.child.pid);
    expect((await api('GET', '/v1/namespaces/none.test')).status).toBe(404);
  });

  it('names the fix when the port is taken', async () => {
    const other = mkdtempSync(join(tmpdir(), 'svc-node-cli-port-'));
    try {
      const port = new URL(String(serve.ready.core_url)).port;
      const clash = await runCli(['serve', '--data', other, '--port', port]);
      expect(clash.code).toBe(1);
      expect(clash.stdout).not.toContain(READY_PREFIX);
      expect(clash.stderr).toMatch(/EADDRINUSE.*--port 0 for any free port/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('owner commands', { timeout: 60_000 }, () => {
  it('project create --json prints {project_id, slug, api_key, namespace}; the key creates identities', async () => {
    const project = jsonOutput(await runCli(['project', 'create', 'demo', '--data', dataDir, '--json']));
    expect(Object.keys(project).sort()).toEqual(['api_key', 'namespace', 'project_id', 'slug']);
    expect(project).toMatchObject({ slug: 'demo', namespace: null });
    expect(project.api_key).toMatch(API_KEY);

    const created = await api('POST', '/v1/workspaces/init', project.api_key, { alias: 'from-cli' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ project_id: project.project_id, alias: 'from-cli' });
    // A project-authority key does nothing else.
    expect(await api('GET', '/v1/agents/me/log', project.api_key)).toMatchObject({ status: 403, body: { code: 'SVC_ERR_API_KEY_WRONG_KIND' } });
  });

  it('fails in one line when the owner API refuses (duplicate project)', async () => {
    expectOneLineFailure(await runCli(['project', 'create', 'demo', '--data', dataDir, '--json']), /409.*already exists/);
  });

  it('namespace create --json makes a node-controlled namespace a project can own', async () => {
    const namespace = jsonOutput(await runCli(['namespace', 'create', 'cli.test', '--data', dataDir, '--json']));
    expect(namespace).toMatchObject({ domain: 'cli.test', verification_status: 'unverified', node_controlled: true });
    expect(namespace.controller_did).toMatch(/^did:key:z6Mk/);
    expect((await api('GET', '/v1/namespaces/cli.test')).body.controller_did).toBe(namespace.controller_did);

    const project = jsonOutput(await runCli(['project', 'create', 'owned', '--namespace', 'cli.test', '--data', dataDir, '--json']));
    expect(project.namespace).toBe('cli.test');
    const identity = await api('POST', '/v1/workspaces/init', project.api_key, { lifetime: 'persistent', name: 'agent' });
    expect(identity.status).toBe(201);
    expect((await api('GET', '/v1/namespaces/cli.test/addresses/agent')).body.did_key).toBe(identity.body.did_key);

    expectOneLineFailure(await runCli(['namespace', 'create', 'not a domain', '--data', dataDir, '--json']), /422/);
  });

  it('namespace create again for a namespace the node holds says so and changes nothing', async () => {
    const first = jsonOutput(await runCli(['namespace', 'create', 'again.cli.test', '--data', dataDir, '--json']));
    const second = await runCli(['namespace', 'create', 'Again.CLI.test.', '--data', dataDir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('again.cli.test is already on this node, unchanged');
    expect(second.stdout).toContain(first.controller_did);
    expect(second.stdout).not.toMatch(/another controller/);
    expect((await api('GET', '/v1/namespaces/again.cli.test')).body.controller_did).toBe(first.controller_did);
  });

  it('prints a refusal with several problems as one line per problem, never as JSON', async () => {
    const one = await runCli(['project', 'create', 'Bad Name', '--data', dataDir]);
    expectOneLineFailure(one, /422\): slug: use 1-64 letters, digits, "\.", "-" or "_"/);
    const several = await runCli(['project', 'create', 'Bad Name', '--namespace', 'not a domain', '--data', dataDir]);
    expect(several.code).toBe(1);
    expect(several.stdout).toBe('');
    const err = lines(several.stderr);
    expect(err).toEqual([
      'svc-node: POST /v1/node/projects failed (422):',
      '  slug: use 1-64 letters, digits, ".", "-" or "_", starting with a letter or digit',
      '  namespace: enter a domain name such as example.com: letters, digits and hyphens, with dots between the parts',
    ]);
    expect(several.stderr).not.toMatch(/[[{]"/);
    // A team name with a space: refused in one line that says what a name may be.
    const team = await runCli(['team', 'create', 'Bad Name', '--domain', 'teams.cli.test', '--data', dataDir]);
    expectOneLineFailure(
      team,
      /^svc-node: POST \/v1\/node\/teams failed \(422\): name: use 1-64 letters, digits, "-" or "_", starting with a letter or digit \(no spaces or dots\)$/,
    );
  });

  it('namespace create --controller consents to a namespace an outside key controls', async () => {
    const controller = testKey();
    const args = ['namespace', 'create', 'outside.cli.test', '--controller', controller.didKey, '--data', dataDir, '--json'];
    const namespace = jsonOutput(await runCli(args));
    expect(namespace).toMatchObject({ domain: 'outside.cli.test', controller_did: controller.didKey, authority: 'owner', node_controlled: false });
    // The outside key, not the node, assigns its addresses.
    const assign = await fetch(`${coreUrl}/v1/namespaces/outside.cli.test/addresses`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...didKeyHeaders(controller, { domain: 'outside.cli.test', name: 'desk', operation: 'register_address' }),
      },
      body: JSON.stringify({ name: 'desk', did_key: controller.didKey }),
    });
    expect(assign.status).toBe(201);
    expectOneLineFailure(await runCli(['namespace', 'create', 'bad.cli.test', '--controller', 'did:key:zNope', '--data', dataDir, '--json']), /422/);
  });

  it('ui --json prints a fresh one-time UI link', async () => {
    const { ui_url } = jsonOutput(await runCli(['ui', '--data', dataDir, '--json']));
    expect(ui_url).toMatch(new RegExp(`^${coreUrl}/ui/#code=.+`));
    expect(ui_url).not.toBe(serve.ready.ui_url);
    const code = new URL(ui_url).hash.slice('#code='.length);
    const owner = JSON.parse(readFileSync(join(dataDir, 'node.json'), 'utf8')).owner_token;
    // The code buys a browser session of its own, never the owner token.
    const signedIn = await api('POST', '/v1/node/session', undefined, { code });
    expect(signedIn).toMatchObject({ status: 200, body: { session_token: expect.stringMatching(/^svc_os_[0-9a-f]{64}$/), session: { current: true } } });
    expect(JSON.stringify(signedIn.body)).not.toContain(owner);
    expect(await api('POST', '/v1/node/session', undefined, { code })).toMatchObject({ status: 401, body: { code: 'SVC_ERR_UI_LINK_INVALID' } });
  });

  it('fails in one line on a data dir where no node runs', async () => {
    const empty = tempDir();
    try {
      for (const args of [['project', 'create', 'x', '--json'], ['namespace', 'create', 'x.test', '--json'], ['ui']]) {
        expectOneLineFailure(await runCli([...args, '--data', empty]), /no svc-node is running on/);
      }
      // A node.json left by a process that has exited.
      const deadPid = 2 ** 22 + 12345; // above Linux's pid_max: never a live process
      writeFileSync(join(empty, 'node.json'), JSON.stringify({ core_url: 'http://127.0.0.1:9', pid: deadPid, owner_token: 'svc_ot_x' }));
      expectOneLineFailure(await runCli(['project', 'create', 'x', '--data', empty, '--json']), /has exited/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('refuses an unknown command and bad options in one line', async () => {
    const unknown = await runCli(['frobnicate', '--data', dataDir]);
    expect(unknown.code).not.toBe(0);
    expect(lines(unknown.stderr)[0]).toMatch(/unknown command "frobnicate"/);
    const unused = join(tmpdir(), `svc-node-cli-unused-${process.pid}`);
    expectOneLineFailure(await runCli(['serve', '--data', unused, '--port', 'abc']), /--port must be a port number/);
    expect(existsSync(unused)).toBe(false);
    expectOneLineFailure(await runCli(['project', 'create', 'x', '--bogus', '--data', dataDir]), /bogus/);
  });
});

describe('shutdown', { timeout: 60_000 }, () => {
  it('stops on SIGTERM with exit code 0, removes node.json, and the data dir serves again', async () => {
    const dir = tempDir();
    try {
      const first = await startServe(['--data', dir, '--port', '0']);
      const project = jsonOutput(await runCli(['project', 'create', 'kept', '--data', dir, '--json']));
      expect(project.slug).toBe('kept');
      const result = await first.stop('SIGTERM');
      expect(result).toMatchObject({ code: 0, signal: null });
      expect(lines(result.stdout).filter((l) => l.startsWith(READY_PREFIX))).toHaveLength(1);
      expect(lines(result.stdout)).toHaveLength(1);
      expect(existsSync(join(dir, 'node.json'))).toBe(false);
      expect(existsSync(join(dir, 'node.lock'))).toBe(false);
      expectOneLineFailure(await runCli(['ui', '--data', dir]), /no svc-node is running/);

      // The data survives a restart; SIGINT stops cleanly too.
      const second = await startServe(['--data', dir, '--port', '0']);
      expectOneLineFailure(await runCli(['project', 'create', 'kept', '--data', dir, '--json']), /409/);
      expect(await second.stop('SIGINT')).toMatchObject({ code: 0, signal: null });
      expect(existsSync(join(dir, 'node.json'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
