/**
 * Onboarding an agent that keeps its own key: the owner's `svc-node team invite` makes
 * a one-time join code and prints the one line the agent runs; the agent's `svc-node team join`
 * generates its key on its side, signs the code with it and gets its certificate from
 * POST /v1/team/join. The refusals are checked over HTTP with the test's own signing (node:crypto
 * and a canonical JSON of its own, not the node's code).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { InviteCancelled, InviteList, IssuedCertificate, TeamInvite } from '../../contract/node/teams.ts';
import { REPO_ROOT, runCli, startServe, lines, type CliResult, type ServeProcess } from '../support/cli.ts';
import { expectOneLineFailure, jsonOutput } from '../support/cli-expect.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createNodeNamespace } from '../support/identities.ts';
import { requestJson, startTestNode, type TestNode } from '../support/node.ts';
import { canonical, genesisEntry, selfKey, selfKeyFromSeed, type SelfKey } from '../support/self-signer.ts';
import { signRequest } from '../support/upstream-client.ts';

let dataDir: string;
let agentDir: string;
/** The folder the agent works in: the join line writes its .aw/ here. */
let agentHome: string;
let serve: ServeProcess;
const cli = (...args: string[]): Promise<CliResult> => runCli([...args, '--data', dataDir]);

/** The join body, signed independently (the test's own canonical JSON), naming a did:svc when given. */
function joinBody(key: SelfKey, code: string, timestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), identity: { did_aw?: string } = {}) {
  const fields = { type: 'svc.team.join', code, did_key: key.didKey, timestamp, ...identity };
  const signature = key.sign(canonical(fields)).replace(/\+/g, '-').replace(/\//g, '_');
  return { code, did_key: key.didKey, ...identity, timestamp, signature };
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-node-cli-invite-'));
  agentDir = mkdtempSync(join(tmpdir(), 'svc-node-agent-'));
  agentHome = mkdtempSync(join(tmpdir(), 'svc-node-agent-home-'));
  return () => {
    for (const dir of [dataDir, agentDir, agentHome]) rmSync(dir, { recursive: true, force: true });
  };
});
beforeAll(async () => {
  serve = await startServe(['--data', dataDir, '--port', '0']);
  return () => serve.stop();
});

describe('team invite and team join', { timeout: 60_000 }, () => {
  it('prints a one-time code and the one line the agent runs; the agent joins with a key made on its side', async () => {
    const teamId = jsonOutput(await cli('team', 'create', 'crew', '--domain', 'invite.test', '--json')).team_id;
    const made = jsonOutput(await cli('team', 'invite', teamId, '--alias', 'scout', '--json'));
    const invite = TeamInvite.parse(made);
    expect(invite).toMatchObject({ team_id: teamId, alias: 'scout', lifetime: 'ephemeral' });
    expect(invite.code).toMatch(/^svc_join_[0-9a-f]{48}$/);
    // This node's own svc-node: its pinned Node and its bin, absolute, so the line runs in any folder.
    expect(invite.cli).toEqual([join(REPO_ROOT, 'node_modules', 'node', 'bin', 'node'), join(REPO_ROOT, 'bin', 'svc-node.js')]);
    expect(made.command).toBe(`${invite.cli!.join(' ')} team join ${invite.join_url} ${invite.code} --alias scout`);
    // The text form says what the agent does and offers the owner's alternative.
    const text = await cli('team', 'invite', teamId, '--alias', 'other');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/\/bin\/svc-node\.js team join http\S+\/v1\/team\/join svc_join_[0-9a-f]+ --alias other\n/);
    expect(text.stdout).toContain('nothing to install');
    expect(text.stdout).toContain('On another machine: clone this repository there and run npm install in it');
    expect(text.stdout).toContain('never sent');
    expect(text.stdout).toContain(`svc-node team add-member ${teamId} --did-key <did:key> --alias other`);

    // The agent: the line as printed, run by a shell in a folder of its own, with a PATH that has
    // no svc-node and only the system's Node (whatever its version): it writes .aw/ there.
    const ran = spawnSync('/bin/sh', ['-c', `${made.command} --json`], {
      cwd: agentHome,
      env: { PATH: '/usr/bin:/bin', HOME: agentHome },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(ran.status, ran.stderr).toBe(0);
    const joined = JSON.parse(ran.stdout.trim());
    expect(joined.certificate_path).toBe(join(agentHome, '.aw', 'team-certs', 'crew__invite.test.pem'));
    cpSync(join(agentHome, '.aw'), agentDir, { recursive: true });
    const issued = IssuedCertificate.parse({ certificate: joined.certificate, certificate_b64: joined.certificate_b64 });
    expect(issued.certificate).toMatchObject({ team_id: teamId, alias: 'scout', lifetime: 'ephemeral', member_did_key: joined.did_key });
    const keyFile = join(agentDir, 'signing.key');
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^-----BEGIN ED25519 PRIVATE KEY-----\n[A-Za-z0-9+/=]+\n-----END ED25519 PRIVATE KEY-----\n$/);
    expect(statSync(keyFile).mode & 0o077).toBe(0);
    expect(JSON.parse(readFileSync(join(agentDir, 'team-certs', 'crew__invite.test.pem'), 'utf8'))).toEqual(issued.certificate);
    // The member list shows it; the code works once.
    const members = jsonOutput(await cli('team', 'members', teamId, '--json')).members;
    expect(members.find((m: { alias: string }) => m.alias === 'scout').member_did_key).toBe(joined.did_key);
    const again = await runCli(['team', 'join', invite.join_url, invite.code, '--dir', agentDir]);
    expectOneLineFailure(again, /join failed \(403\): Join code already used/);
    // `team join` connected, and left upstream's workspace files for the agent's own tools.
    const coreUrl = serve.ready.core_url as string;
    expect(joined).toMatchObject({ agent_id: expect.any(String), workspace_id: expect.any(String) });
    const certFile = 'team-certs/crew__invite.test.pem';
    const membership = { team_id: teamId, alias: 'scout', cert_path: certFile, joined_at: issued.certificate.issued_at };
    expect(parseYaml(readFileSync(join(agentDir, 'teams.yaml'), 'utf8'))).toEqual({ active_team: teamId, memberships: [membership] });
    expect(parseYaml(readFileSync(join(agentDir, 'workspace.yaml'), 'utf8'))).toEqual({
      aweb_url: coreUrl,
      memberships: [{ ...membership, workspace_id: joined.workspace_id }],
    });
    // An ephemeral member has no persistent identity file (upstream reads one as persistent).
    expect(existsSync(join(agentDir, 'identity.yaml'))).toBe(false);

    // A join whose connect failed is finished with `team connect` from what it left: the same workspace, the files again.
    rmSync(join(agentDir, 'workspace.yaml'));
    const unreachable = await runCli(['team', 'connect', 'http://127.0.0.1:9', '--dir', agentDir]);
    expectOneLineFailure(
      unreachable,
      /no answer at http:\/\/127\.0\.0\.1:9\/v1\/connect.*certificate is kept: run `svc-node team connect http:\/\/127\.0\.0\.1:9 --dir /,
    );
    const reconnected = jsonOutput(await runCli(['team', 'connect', coreUrl, '--dir', agentDir, '--json']));
    expect(reconnected).toMatchObject({ team_id: teamId, agent_id: joined.agent_id, workspace_id: joined.workspace_id });
    expect(parseYaml(readFileSync(join(agentDir, 'workspace.yaml'), 'utf8'))).toMatchObject({ aweb_url: coreUrl });
    expectOneLineFailure(await runCli(['team', 'connect', coreUrl, '--dir', join(agentDir, 'nowhere')]), /no key at .*nowhere\/signing\.key: join first/);
    expectOneLineFailure(await runCli(['team', 'connect', coreUrl, '--dir', agentDir, '--team', 'other:x.test']), /no certificate for other:x\.test/);

    // Presence in the text listing: the owner member never connected; scout connected, offline until a sign of life.
    const listing = await cli('team', 'members', teamId);
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout).toMatch(/ owner \(owner\) +persistent +not connected /);
    expect(listing.stdout).toMatch(/ scout +ephemeral +offline, last seen \d{4}-/);
    // The agent's client signs with the key `team join` left on its machine: a heartbeat, and it is online.
    const seed = Buffer.from(readFileSync(keyFile, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64');
    const scout = {
      key: selfKeyFromSeed(seed),
      teamId,
      alias: 'scout',
      certificateId: issued.certificate.certificate_id,
      certificateB64: issued.certificate_b64,
    };
    expect(scout.key.didKey).toBe(joined.did_key);
    expectOk(await requestJson(coreUrl, 'POST', '/v1/agents/heartbeat', { headers: signRequest(scout, 'POST', '/v1/agents/heartbeat', '') }));
    expect((await cli('team', 'members', teamId)).stdout).toMatch(/ scout +ephemeral +online /);

    // The other invite is pending (never its code), until the owner cancels it; then it works no more.
    const pending = InviteList.parse(jsonOutput(await cli('team', 'invites', teamId, '--json')));
    expect(pending.invites.map((i) => i.alias)).toEqual(['other']);
    expect(JSON.stringify(pending)).not.toContain('svc_join_');
    const otherId = pending.invites[0]!.invite_id;
    expect((await cli('team', 'invites', teamId)).stdout).toMatch(new RegExp(`^${otherId}  other  ephemeral  until `));
    const cancelled = await cli('team', 'cancel-invite', teamId, otherId);
    expect(cancelled.stdout).toMatch(new RegExp(`^cancelled invite ${otherId} at `));
    expect((await cli('team', 'invites', teamId)).stdout.trim()).toBe('no pending invites');
    const otherCode = /svc_join_[0-9a-f]{48}/.exec(text.stdout)![0];
    expectOneLineFailure(await runCli(['team', 'join', invite.join_url, otherCode, '--dir', agentDir]), /join failed \(403\): Join code cancelled/);
    expectOneLineFailure(await cli('team', 'cancel-invite', teamId), /usage: svc-node team cancel-invite/);
    expectOneLineFailure(await cli('team', 'invite', teamId), /usage: svc-node team invite/);
    expect(lines((await cli('--help')).stdout).join('\n')).toContain('team invite <team_id>');
  });
});

describe('POST /v1/team/join', () => {
  let t: TestNode;
  let offsetMs = 0;
  let teamId: string;
  beforeAll(async () => {
    t = await startTestNode({ clock: { now: () => new Date(Date.now() + offsetMs) } });
    return () => t.stop();
  });
  beforeAll(async () => {
    teamId = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'crew', domain: 'join.test' }), 201).team_id;
  });
  const invite = async (alias: string, extra: Record<string, unknown> = {}) =>
    TeamInvite.parse(expectOk(await t.owner('POST', `/v1/node/teams/${teamId}/invites`, { alias, ...extra }), 201));
  const join = (body: unknown) => requestJson(t.url, 'POST', '/v1/team/join', { body });

  it('issues a certificate for the presented key, once; refuses an unsigned, stale, wrong-key, unknown or expired code', async () => {
    const made = await invite('ada', { lifetime: 'persistent' });
    const key = selfKey();
    // Signed by another key than the one presented.
    const other = selfKey();
    expectRefusal(await join({ ...joinBody(other, made.code), did_key: key.didKey }), 401, /does not verify/, 'SVC_ERR_SIGNATURE_INVALID');
    expectRefusal(await join(joinBody(key, made.code, '2020-01-01T00:00:00Z')), 401, undefined, 'SVC_ERR_TIMESTAMP_INVALID');
    expectRefusal(await join(joinBody(key, 'svc_join_nope')), 403, /Unknown join code/, 'SVC_ERR_TEAM_INVITE_INVALID');
    const issued = IssuedCertificate.parse(expectOk(await join(joinBody(key, made.code)), 201));
    expect(issued.certificate).toMatchObject({ team_id: teamId, alias: 'ada', lifetime: 'persistent', member_did_key: key.didKey });
    expectRefusal(await join(joinBody(selfKey(), made.code)), 403, /already used/, 'SVC_ERR_TEAM_INVITE_INVALID');
    // The certificate works: the agent connects with it, signing with the key it kept.
    const member = { key, teamId, alias: 'ada', certificateId: issued.certificate.certificate_id, certificateB64: issued.certificate_b64 };
    const raw = JSON.stringify({ hostname: 'laptop' });
    const headers = signRequest(member, 'POST', '/v1/connect', raw, { aud: t.url });
    const connected = expectOk(await requestJson(t.url, 'POST', '/v1/connect', { headers, raw }));
    expect(connected).toMatchObject({ alias: 'ada', did_key: key.didKey, custody: 'self' });

    const late = await invite('bea', { expires_in_seconds: 60 });
    offsetMs = 61_000;
    try {
      const stamp = new Date(Date.now() + offsetMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
      expectRefusal(await join(joinBody(selfKey(), late.code, stamp)), 403, /expired/, 'SVC_ERR_TEAM_INVITE_INVALID');
    } finally {
      offsetMs = 0;
    }
    expectRefusal(await t.owner('POST', `/v1/node/teams/${teamId}/invites`, { alias: 'bad alias' }), 422, undefined, 'SVC_ERR_VALIDATION');
    expectRefusal(await t.owner('POST', '/v1/node/teams/none:x.test/invites', { alias: 'x' }), 404, undefined, 'SVC_ERR_TEAM_NOT_FOUND');
  });

  it('lists pending invites (not used, cancelled or expired) and cancels one once; a redeemed one is a 409', async () => {
    const listed = async () => InviteList.parse(expectOk(await t.owner('GET', `/v1/node/teams/${teamId}/invites`))).invites;
    const keep = await invite('kim');
    const drop = await invite('lou');
    const used = await invite('max');
    expectOk(await join(joinBody(selfKey(), used.code)), 201);
    const pending = await listed();
    expect(pending.map((i) => i.alias)).toEqual(expect.arrayContaining(['kim', 'lou']));
    expect(pending.map((i) => i.alias)).not.toContain('max');
    expect(pending.find((i) => i.alias === 'kim')).toEqual({
      invite_id: keep.invite_id,
      team_id: teamId,
      alias: 'kim',
      lifetime: 'ephemeral',
      address: null,
      created_at: expect.any(String),
      expires_at: keep.expires_at,
    });

    const cancelled = InviteCancelled.parse(expectOk(await t.owner('DELETE', `/v1/node/teams/${teamId}/invites/${drop.invite_id}`)));
    expect(cancelled).toEqual({ cancelled: true, invite_id: drop.invite_id, cancelled_at: expect.any(String) });
    // Cancelling again answers the same; the code no longer works; the list no longer shows it.
    expect(expectOk(await t.owner('DELETE', `/v1/node/teams/${teamId}/invites/${drop.invite_id}`))).toEqual(cancelled);
    expectRefusal(await join(joinBody(selfKey(), drop.code)), 403, /cancelled/, 'SVC_ERR_TEAM_INVITE_INVALID');
    expect((await listed()).map((i) => i.alias)).not.toContain('lou');

    expectRefusal(await t.owner('DELETE', `/v1/node/teams/${teamId}/invites/${used.invite_id}`), 409, /redeemed/, 'SVC_ERR_TEAM_INVITE_USED');
    expectRefusal(await t.owner('DELETE', `/v1/node/teams/${teamId}/invites/nope`), 404, undefined, 'SVC_ERR_TEAM_INVITE_NOT_FOUND');
    expectRefusal(await t.owner('GET', '/v1/node/teams/none:x.test/invites'), 404, undefined, 'SVC_ERR_TEAM_NOT_FOUND');
    // Another team's invite is not this team's.
    const otherTeam = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'other', domain: 'join.test' }), 201).team_id;
    expectRefusal(await t.owner('DELETE', `/v1/node/teams/${otherTeam}/invites/${keep.invite_id}`), 404, undefined, 'SVC_ERR_TEAM_INVITE_NOT_FOUND');
    expect((await listed()).map((i) => i.invite_id)).toContain(keep.invite_id);
  });

  it("joins a persistent agent with its own did:svc and the address the invite names; refuses a did:svc that is not the agent's", async () => {
    const domain = 'persist.join.test';
    await createNodeNamespace(t, domain);
    const key = selfKey();
    const genesis = genesisEntry(key);
    expectOk(await t.request('POST', '/v1/did', { body: { ...genesis.payload, proof: genesis.signature } }));
    const didAw = key.didSvc;
    const address = `${domain}/pat`;

    expectRefusal(
      await t.owner('POST', `/v1/node/teams/${teamId}/invites`, { alias: 'pat', address }),
      422,
      /only a persistent member has an address/,
      'SVC_ERR_VALIDATION',
    );
    expectRefusal(
      await t.owner('POST', `/v1/node/teams/${teamId}/invites`, { alias: 'pat', lifetime: 'persistent', address: 'no-slash' }),
      422,
      /<domain>\/<name>/,
      'SVC_ERR_VALIDATION',
    );
    const ephemeral = await invite('pat-e');
    expectRefusal(await join(joinBody(key, ephemeral.code, undefined, { did_aw: didAw })), 422, /only a persistent invite/, 'SVC_ERR_VALIDATION');
    const made = await invite('pat', { lifetime: 'persistent', address });
    expect(made.address).toBe(address);
    expect(InviteList.parse(expectOk(await t.owner('GET', `/v1/node/teams/${teamId}/invites`))).invites.find((i) => i.alias === 'pat')?.address).toBe(address);
    // Someone else's did:svc; and what is named is signed: added after signing, the signature fails.
    expectRefusal(await join(joinBody(key, made.code, undefined, { did_aw: selfKey().didSvc })), 403, /does not name/, 'SVC_ERR_TEAM_JOIN_IDENTITY_MISMATCH');
    expectRefusal(await join({ ...joinBody(key, made.code), did_aw: didAw }), 401, /does not verify/, 'SVC_ERR_SIGNATURE_INVALID');
    const issued = IssuedCertificate.parse(expectOk(await join(joinBody(key, made.code, undefined, { did_aw: didAw })), 201));
    expect(issued.certificate).toMatchObject({
      alias: 'pat',
      lifetime: 'persistent',
      member_did_key: key.didKey,
      member_did_aw: didAw,
      member_address: address,
    });
    // It connects as a persistent identity with that did:svc, and the node assigns it the address.
    const member = { key, teamId, alias: 'pat', certificateId: issued.certificate.certificate_id, certificateB64: issued.certificate_b64 };
    const raw = JSON.stringify({ hostname: 'pat-laptop' });
    const connected = expectOk(
      await requestJson(t.url, 'POST', '/v1/connect', { headers: signRequest(member, 'POST', '/v1/connect', raw, { aud: t.url }), raw }),
    );
    expect(connected).toMatchObject({ did_key: key.didKey, did_aw: didAw, address, lifetime: 'persistent', custody: 'self', created: true });

    // A did:svc that is already an identity of this node cannot join as a second one.
    const again = await invite('pat-2', { lifetime: 'persistent' });
    expectRefusal(await join(joinBody(key, again.code, undefined, { did_aw: didAw })), 409, /already the identity pat/, 'SVC_ERR_TEAM_AGENT_CONFLICT');
  });
});
