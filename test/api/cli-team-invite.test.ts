/**
 * Onboarding an agent that keeps its own key (issue 17): the owner's `svc-node team invite` makes
 * a one-time join code and prints the one line the agent runs; the agent's `svc-node team join`
 * generates its key on its side, signs the code with it and gets its certificate from
 * POST /v1/team/join. The refusals are checked over HTTP with the test's own signing (node:crypto
 * and a canonical JSON of its own, not the node's code).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IssuedCertificate, TeamInvite } from '../../contract/node/teams.ts';
import { runCli, startServe, lines, type CliResult, type ServeProcess } from '../support/cli.ts';
import { expectOneLineFailure, jsonOutput } from '../support/cli-expect.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { requestJson, startTestNode, type TestNode } from '../support/node.ts';
import { selfKey, type SelfKey } from '../support/self-signer.ts';
import { signRequest } from '../support/upstream-client.ts';

let dataDir: string;
let agentDir: string;
let serve: ServeProcess;
const cli = (...args: string[]): Promise<CliResult> => runCli([...args, '--data', dataDir]);

/** The join body, signed independently: canonical JSON of flat string fields is sorted keys, no spaces. */
function joinBody(key: SelfKey, code: string, timestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')) {
  const fields: Record<string, string> = { type: 'svc.team.join', code, did_key: key.didKey, timestamp };
  const text = JSON.stringify(Object.fromEntries(Object.keys(fields).sort().map((k) => [k, fields[k]])));
  const signature = key.sign(text).replace(/\+/g, '-').replace(/\//g, '_');
  return { code, did_key: key.didKey, timestamp, signature };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-node-cli-invite-'));
  agentDir = mkdtempSync(join(tmpdir(), 'svc-node-agent-'));
  serve = await startServe(['--data', dataDir, '--port', '0']);
});
afterAll(async () => {
  await serve?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(agentDir, { recursive: true, force: true });
});

describe('team invite and team join', { timeout: 60_000 }, () => {
  it('prints a one-time code and the one line the agent runs; the agent joins with a key made on its side', async () => {
    const teamId = jsonOutput(await cli('team', 'create', 'crew', '--domain', 'invite.test', '--json')).team_id;
    const made = jsonOutput(await cli('team', 'invite', teamId, '--alias', 'scout', '--json'));
    const invite = TeamInvite.parse(made);
    expect(invite).toMatchObject({ team_id: teamId, alias: 'scout', lifetime: 'ephemeral' });
    expect(invite.code).toMatch(/^svc_join_[0-9a-f]{48}$/);
    expect(made.command).toBe(`svc-node team join ${invite.join_url} ${invite.code}`);
    // The text form says what the agent does and offers the owner's alternative.
    const text = await cli('team', 'invite', teamId, '--alias', 'other');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/svc-node team join http\S+\/v1\/team\/join svc_join_/);
    expect(text.stdout).toContain('never sent');
    expect(text.stdout).toContain(`svc-node team add-member ${teamId} --did-key <did:key> --alias other`);

    // The agent's machine: `team join` as printed, with its own directory.
    const joined = jsonOutput(await runCli(['team', 'join', invite.join_url, invite.code, '--dir', agentDir, '--json']));
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
    teamId = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'crew', domain: 'join.test' }), 201).team_id;
  });
  afterAll(async () => {
    await t?.stop();
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
});
