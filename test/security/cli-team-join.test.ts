/**
 * `svc-node team join <join_url> <code>` and `team connect` against a hostile node: the agent runs
 * the line an owner handed it, and whatever answers at that URL is not trusted. Each attack is a
 * real HTTP server on loopback answering the real CLI process: a certificate whose team id climbs
 * out of the agent's directory, one not signed by its team key, one for another key or alias, a
 * redirect (its target must receive nothing), an answer that never ends or never stops growing,
 * escape sequences in a refusal, and shell words in the retry line. The honest path against a
 * real node still works.
 *
 * The hostile node signs with the test's own Ed25519 and canonical JSON (self-signer.ts), none
 * of the node's code.
 */
import { spawn, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TeamInvite } from '../../contract/node/teams.ts';
import { NODE_BIN, REPO_ROOT, lines, type CliResult } from '../support/cli.ts';
import { expectOneLineFailure, jsonOutput } from '../support/cli-expect.ts';
import { expectOk } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { json, remoteServers, type RemoteServer } from '../support/remote-server.ts';
import { canonical, nowSeconds, selfKey, type SelfKey } from '../support/self-signer.ts';

const servers = remoteServers();
afterEach(() => servers.closeAll());

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'svc-node-hostile-join-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A fresh directory for one agent, inside the test's own folder (so a file written beside it is seen). */
function agentDir(name: string): string {
  const parent = mkdtempSync(join(base, `${name}-`));
  return join(parent, 'agent');
}

interface TimedResult extends CliResult {
  ms: number;
}

/**
 * Runs the CLI as runCli does, but ends it after `limitMs` (a client that never gives up would
 * otherwise outlive the test): a run that had to be ended has code null and signal SIGKILL.
 */
function runCliWithin(args: string[], limitMs = 30_000): Promise<TimedResult> {
  const started = Date.now();
  const child = spawn(NODE_BIN, [join(REPO_ROOT, 'bin/svc-node.js'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

type Fields = Record<string, unknown>;

/** A certificate as upstream's format has it, signed by `signer` over its canonical JSON. */
function certificate(team: SelfKey, memberDidKey: string, fields: Fields = {}, signer: SelfKey = team): Fields {
  const unsigned = {
    version: 1,
    certificate_id: randomUUID(),
    team_id: 'crew:hostile.test',
    team_did_key: team.didKey,
    member_did_key: memberDidKey,
    alias: 'scout',
    lifetime: 'ephemeral',
    issued_at: nowSeconds(),
    ...fields,
  };
  return { ...unsigned, signature: signer.sign(canonical(unsigned)) };
}

/** What a node answers a connect with, for the member of `cert`. */
function connected(cert: Fields): Fields {
  return {
    team_id: cert.team_id,
    alias: cert.alias,
    agent_id: randomUUID(),
    workspace_id: randomUUID(),
    role: 'agent',
    did_key: cert.member_did_key,
    did_aw: null,
    address: null,
    lifetime: 'ephemeral',
    custody: 'self',
    created: true,
  };
}

interface JoinNode {
  /** Answers the join; `didKey` is the key the client presented. */
  join(response: ServerResponse, didKey: string): unknown;
  /** Answers the connect; by default, as a node would for the last certificate in `issued`. */
  connect?(response: ServerResponse): unknown;
  issued?: Fields[];
}

/** A node that answers the join and the connect as `node` says (404 anything else). */
function hostileNode(node: JoinNode): Promise<RemoteServer> {
  return servers.start(async (request, response) => {
    const body = await bodyOf(request);
    if (request.url === '/v1/team/join') return node.join(response, String(body.did_key));
    if (request.url === '/v1/connect') {
      if (node.connect) return node.connect(response);
      return json(response, 200, connected(node.issued!.at(-1)!));
    }
    return json(response, 404, { detail: 'not here' });
  });
}

/** A node that signs a certificate for the presented key with `fields` (and `signer`). */
function signing(team: SelfKey, fields: Fields = {}, signer: SelfKey = team, memberKey?: string): JoinNode {
  const issued: Fields[] = [];
  return {
    issued,
    join(response, didKey) {
      const cert = certificate(team, memberKey ?? didKey, fields, signer);
      issued.push(cert);
      json(response, 201, { certificate: cert, certificate_b64: Buffer.from(JSON.stringify(cert)).toString('base64') });
    },
  };
}

const joinArgs = (server: RemoteServer, dir: string, ...more: string[]): string[] => [
  'team',
  'join',
  `${server.url}/v1/team/join`,
  'svc_join_code',
  '--dir',
  dir,
  ...more,
];

/** Until `response` may be written again, or is gone. */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}

/** Nothing of the certificate was saved in the agent's directory (its key may be: it was made before asking). */
function expectNothingSaved(dir: string): void {
  const certs = join(dir, 'team-certs');
  expect(existsSync(certs) ? readdirSync(certs) : []).toEqual([]);
  for (const file of ['teams.yaml', 'workspace.yaml', 'identity.yaml']) expect(existsSync(join(dir, file)), file).toBe(false);
}

/** Any control character a terminal would act on (the one line break at the end of a line aside). */
// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('svc-node team join against a hostile node', { timeout: 60_000 }, () => {
  it('refuses a team id that would climb out of --dir (or carry shell words), writing nothing anywhere', async () => {
    const team = selfKey();
    // `certificateFile` once made `team-certs/../../owned__x/../anything.pem` of the first: a file beside the agent's directory.
    for (const teamId of ['../../owned:x/../anything', 'crew:x.test/../../anything', 'crew:$(touch pwned).test', 'crew:x.test:y', '..:..']) {
      const dir = agentDir('climb');
      const parent = join(dir, '..');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(parent, 'anything.pem'), 'precious\n');
      const node = await hostileNode(signing(team, { team_id: teamId }));
      const result = await runCliWithin(joinArgs(node, dir));
      expectOneLineFailure(result, /gave a certificate this client does not accept: the team id .* is not one/);
      expect(readFileSync(join(parent, 'anything.pem'), 'utf8'), teamId).toBe('precious\n');
      expect(readdirSync(parent).sort(), teamId).toEqual(['agent', 'anything.pem']);
      expectNothingSaved(dir);
      expect(node.requests, 'it never connected with it').toEqual(['POST /v1/team/join']);
    }
  });

  it('refuses a certificate its team key did not sign, or that was changed after signing', async () => {
    const team = selfKey();
    const cases: JoinNode[] = [
      // Signed by another key than the team key it names.
      signing(team, {}, selfKey()),
      // Signed, then its alias changed.
      {
        join(response, didKey) {
          json(response, 201, { certificate: { ...certificate(team, didKey), alias: 'admin' } });
        },
      },
      // No signature at all; a team key that is no key.
      {
        join(response, didKey) {
          const { signature: _unsigned, ...cert } = certificate(team, didKey);
          json(response, 201, { certificate: cert });
        },
      },
      signing(team, { team_did_key: 'did:key:zNotAKey' }),
    ];
    for (const node of cases) {
      const server = await hostileNode(node);
      const dir = agentDir('unsigned');
      const result = await runCliWithin(joinArgs(server, dir));
      expectOneLineFailure(
        result,
        /gave a certificate this client does not accept: (it is not signed by the team key|it is not a team certificate|its team key)/,
      );
      expectNothingSaved(dir);
      expect(server.requests).toEqual(['POST /v1/team/join']);
    }
  });

  it('refuses a certificate for another key, another alias than invited, or a did:svc it did not ask for', async () => {
    const team = selfKey();
    const someoneElse = selfKey().didKey;
    const cases: [JoinNode, string[], RegExp][] = [
      [signing(team, {}, team, someoneElse), [], /it is for the key did:key:z\w+, not this client's did:key:z/],
      [signing(team, { alias: 'admin' }), ['--alias', 'scout'], /it is for the alias admin, not scout/],
      [signing(team, { member_did_aw: 'did:svc:2Zx' }), [], /it names the did:svc did:svc:2Zx, which this client did not ask for/],
    ];
    for (const [node, flags, message] of cases) {
      const server = await hostileNode(node);
      const dir = agentDir('other');
      expectOneLineFailure(await runCliWithin(joinArgs(server, dir, ...flags)), message);
      expectNothingSaved(dir);
    }
    // The same node, for the alias asked for: taken.
    const server = await hostileNode(signing(team, { alias: 'scout' }));
    const dir = agentDir('same');
    const joined = jsonOutput(await runCliWithin(joinArgs(server, dir, '--alias', 'scout', '--json')));
    expect(joined.certificate).toMatchObject({ team_id: 'crew:hostile.test', alias: 'scout', member_did_key: joined.did_key });
    expect(readdirSync(join(dir, 'team-certs'))).toEqual(['crew__hostile.test.pem']);
  });

  it('never follows a redirect: neither the join code nor the connect reaches where it points', async () => {
    const elsewhere = await servers.start((_request, response) => json(response, 201, {}));
    const redirect = (response: ServerResponse, path: string): void => {
      response.writeHead(307, { location: `${elsewhere.url}${path}` }).end();
    };
    const joining = await hostileNode({ join: (response) => redirect(response, '/v1/team/join') });
    const dir = agentDir('redirect');
    expectOneLineFailure(await runCliWithin(joinArgs(joining, dir)), /answered with a redirect, which is never followed/);
    expectNothingSaved(dir);

    // A node that issues the certificate but redirects the connect (the join's, then `team connect`'s).
    const team = selfKey();
    const connecting = await hostileNode({ ...signing(team), connect: (response) => redirect(response, '/v1/connect') });
    const kept = agentDir('redirect-connect');
    const result = await runCliWithin(joinArgs(connecting, kept));
    expectOneLineFailure(result, /v1\/connect answered with a redirect, which is never followed.*the certificate is kept/);
    const again = await runCliWithin(['team', 'connect', connecting.url, '--dir', kept]);
    expectOneLineFailure(again, /answered with a redirect, which is never followed/);
    expect(connecting.requests).toEqual(['POST /v1/team/join', 'POST /v1/connect', 'POST /v1/connect']);
    expect(existsSync(join(kept, 'workspace.yaml'))).toBe(false);
    expect(elsewhere.connections).toBe(0);
    expect(elsewhere.requests).toEqual([]);
  });

  it('gives up on an answer that never comes or never ends, within its 10 s budget', async () => {
    const silent = await hostileNode({ join: () => undefined });
    const trickling = await hostileNode({
      join(response) {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.write('{"certificate": ');
        const timer = setInterval(() => response.write(' '), 200);
        response.on('close', () => clearInterval(timer));
      },
    });
    const [quiet, slow] = await Promise.all([runCliWithin(joinArgs(silent, agentDir('silent'))), runCliWithin(joinArgs(trickling, agentDir('slow')))]);
    for (const result of [quiet, slow]) {
      expectOneLineFailure(result, /no answer at http:\/\/127\.0\.0\.1:\d+\/v1\/team\/join within 10 s/);
      // The budget plus a process's start and slack; a client without one runs until it is killed at 30 s.
      expect(result.ms).toBeLessThan(20_000);
    }
  });

  it('stops reading an answer larger than 64 KiB, and saves nothing of it', async () => {
    const team = selfKey();
    const node = await hostileNode({
      async join(response, didKey) {
        // A valid certificate, then megabytes more, streamed without a declared length.
        response.writeHead(201, { 'content-type': 'application/json' });
        response.write(`{"certificate": ${JSON.stringify(certificate(team, didKey))}, "padding": "`);
        const chunk = 'x'.repeat(64 * 1024);
        for (let sent = 0; sent < 8 * 1024 * 1024 && !response.destroyed; sent += chunk.length) {
          if (!response.write(chunk)) await drained(response);
        }
        response.end('"}');
      },
    });
    const dir = agentDir('large');
    expectOneLineFailure(await runCliWithin(joinArgs(node, dir)), /the answer at .*\/v1\/team\/join is larger than 64 KiB, so it was not read/);
    expectNothingSaved(dir);
  });

  it("shows a refusal's escape sequences as text, never to the terminal", async () => {
    const detail = 'no\u001b[2J\u001b]0;owned\u0007 \u009b31m \u202egnp.exe\r\nsvc-node: joined';
    const sentence = await hostileNode({ join: (response) => json(response, 403, { detail }) });
    const list = await hostileNode({ join: (response) => json(response, 422, { detail: [{ loc: ['body', 'code\u001b[8m'], msg: 'bad\u001b[0m' }] }) });
    for (const [node, shown] of [
      [sentence, 'join failed (403): no\\x1b[2J\\x1b]0;owned\\x07 \\x9b31m \\u202egnp.exe\\x0d\\x0asvc-node: joined'],
      [list, 'join failed (422): code\\x1b[8m: bad\\x1b[0m'],
    ] as const) {
      const result = await runCliWithin(joinArgs(node, agentDir('escape')));
      expectOneLineFailure(result, /^svc-node: join failed/);
      expect(lines(result.stderr)[0]).toBe(`svc-node: ${shown}`);
      expect(result.stderr.slice(0, -1)).not.toMatch(RAW_CONTROL);
    }
  });

  it('quotes the retry line it prints, so a shell runs it with the very same words', async () => {
    const team = selfKey();
    const node = await hostileNode({ ...signing(team), connect: (response) => json(response, 503, { detail: 'down for a moment' }) });
    // The user's own directory, with every shell word in it.
    const dir = join(mkdtempSync(join(base, 'quote-')), "it's a $(echo INJECTED) `id`; dir & more *");
    const result = await runCliWithin(joinArgs(node, dir));
    expectOneLineFailure(result, /connecting failed \(503\): down for a moment; the certificate is kept: run `svc-node team connect /);
    const command = /run `(.*)` once that is fixed$/.exec(lines(result.stderr)[0]!)?.[1];
    expect(command).toBeDefined();
    // The shell's own reading of the printed line: the words svc-node would receive.
    const words = execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${command!.replace(/^svc-node /, '')}`], { encoding: 'utf8' });
    expect(lines(words)).toEqual(['team', 'connect', node.url, '--dir', dir, '--team', 'crew:hostile.test']);
    expect(readdirSync(join(dir, 'team-certs'))).toEqual(['crew__hostile.test.pem']);
  });

  it('team connect checks a kept certificate again before using it (one an older client saved unchecked)', async () => {
    const team = selfKey();
    const node = await hostileNode(signing(team));
    const dir = agentDir('kept');
    jsonOutput(await runCliWithin(joinArgs(node, dir, '--json')));
    const file = join(dir, 'team-certs', 'crew__hostile.test.pem');
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Fields;
    writeFileSync(file, JSON.stringify({ ...kept, alias: 'admin' }));
    expectOneLineFailure(
      await runCliWithin(['team', 'connect', node.url, '--dir', dir]),
      /crew__hostile\.test\.pem .*does not accept: it is not signed by the team key/,
    );
    writeFileSync(file, JSON.stringify({ ...kept, team_id: '../../x:y/../z' }));
    expectOneLineFailure(await runCliWithin(['team', 'connect', node.url, '--dir', dir]), /does not accept: the team id \.\.\/\.\.\/x:y\/\.\.\/z is not one/);
    expect(node.requests).toEqual(['POST /v1/team/join', 'POST /v1/connect']);
  });

  it("refuses a connect answer that is another member's, or names what it may not, writing no workspace files", async () => {
    const team = selfKey();
    const cases: [(cert: Fields) => Fields, RegExp][] = [
      [(cert) => ({ ...connected(cert), alias: 'admin' }), /the connection of another member \(admin in crew:hostile\.test\)/],
      [(cert) => ({ ...connected(cert), did_key: selfKey().didKey }), /the connection of another member \(scout in crew:hostile\.test\)/],
      [(cert) => ({ ...connected(cert), did_aw: 'did:svc:2Zx' }), /another did:svc \(did:svc:2Zx\)/],
      [(cert) => ({ ...connected(cert), address: '../../x/y' }), /an address that is not one \(\.\.\/\.\.\/x\/y\)/],
      [(cert) => ({ ...connected(cert), custody: 'node' }), /something that is not a connection/],
    ];
    for (const [answer, message] of cases) {
      const node: JoinNode = signing(team);
      const server = await hostileNode({ ...node, connect: (response) => json(response, 200, answer(node.issued!.at(-1)!)) });
      const dir = agentDir('connect');
      expectOneLineFailure(await runCliWithin(joinArgs(server, dir)), new RegExp(`answered the connect with ${message.source}; nothing was written`));
      expect(readdirSync(dir).sort()).toEqual(['signing.key', 'team-certs']);
    }
  });
});

describe('the owner commands against what answers at node.json', { timeout: 60_000 }, () => {
  /** A data dir whose node.json (this process's pid: a running node) names `server`. */
  function dataDirFor(server: RemoteServer): string {
    const dataDir = mkdtempSync(join(base, 'owner-'));
    const urls = { core_url: server.url, library_url: server.url, docs_url: server.url };
    writeFileSync(join(dataDir, 'node.json'), JSON.stringify({ ...urls, data_dir: dataDir, pid: process.pid, owner_token: 'owner-secret' }));
    return dataDir;
  }

  it('never sends the owner token after a redirect, and shows refusals terminal-safe', async () => {
    const elsewhere = await servers.start((_request, response) => json(response, 200, { teams: [] }));
    const redirecting = await servers.start((_request, response) => response.writeHead(307, { location: `${elsewhere.url}/v1/node/teams` }).end());
    expectOneLineFailure(await runCliWithin(['team', 'list', '--data', dataDirFor(redirecting)]), /answered with a redirect, which is never followed/);
    expect(elsewhere.requests).toEqual([]);

    const refusing = await servers.start((_request, response) => json(response, 500, { detail: '\u001b]52;c;cm0gLXJmIH4=\u0007 broke' }));
    const result = await runCliWithin(['team', 'list', '--data', dataDirFor(refusing)]);
    expectOneLineFailure(result, /^svc-node: GET \/v1\/node\/teams failed \(500\): \\x1b\]52;c;cm0gLXJmIH4=\\x07 broke$/);
    expect(result.stderr.slice(0, -1)).not.toMatch(RAW_CONTROL);
  });
});

describe('svc-node team join against a real node', { timeout: 60_000 }, () => {
  let t: TestNode;
  let teamId: string;
  beforeAll(async () => {
    t = await startTestNode();
    return () => t.stop();
  });
  beforeAll(async () => {
    teamId = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'crew', domain: 'real-join.test' }), 201).team_id;
  });
  const invite = async (alias: string) => TeamInvite.parse(expectOk(await t.owner('POST', `/v1/node/teams/${teamId}/invites`, { alias }), 201));

  it("joins with the invite's alias and connects again; a certificate for another alias is refused and not kept", async () => {
    const made = await invite('scout');
    const dir = agentDir('real');
    const joined = jsonOutput(await runCliWithin(['team', 'join', made.join_url, made.code, '--dir', dir, '--alias', 'scout', '--json']));
    expect(joined.certificate).toMatchObject({ team_id: teamId, alias: 'scout', member_did_key: joined.did_key });
    const again = jsonOutput(await runCliWithin(['team', 'connect', t.url, '--dir', dir, '--json']));
    expect(again).toMatchObject({ team_id: teamId, agent_id: joined.agent_id });

    const other = await invite('ranger');
    const elsewhere = agentDir('real-other');
    expectOneLineFailure(
      await runCliWithin(['team', 'join', other.join_url, other.code, '--dir', elsewhere, '--alias', 'scout']),
      /it is for the alias ranger, not scout/,
    );
    expectNothingSaved(elsewhere);
  });
});
