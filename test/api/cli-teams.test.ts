/**
 * `svc-node team ...` (DESIGN §4, kept exactly): create → {team_id, team_did_key}; add-member →
 * {certificate, certificate_b64} signed by the team key the node holds; revoke; list; members.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyFromDidKey } from '../../server/crypto/did-key.ts';
import { parseCertificateHeader, verifyCertificateSignature } from '../../server/crypto/team-certificate.ts';
import { runCli, startServe, type CliResult, type ServeProcess } from '../support/cli.ts';
import { expectOneLineFailure, jsonOutput } from '../support/cli-expect.ts';
import { testKey } from '../support/keys.ts';

let dataDir: string;
let serve: ServeProcess;

const cli = (...args: string[]): Promise<CliResult> => runCli([...args, '--data', dataDir]);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-node-cli-teams-'));
  serve = await startServe(['--data', dataDir, '--port', '0']);
});
afterAll(async () => {
  await serve.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('team commands', { timeout: 60_000 }, () => {
  let teamId: string;
  let teamDidKey: string;

  it('team create --json prints exactly {team_id, team_did_key}', async () => {
    const created = jsonOutput(await cli('team', 'create', 'backend', '--domain', 'acme.test', '--json'));
    expect(Object.keys(created).sort()).toEqual(['team_did_key', 'team_id']);
    expect(created.team_id).toBe('backend:acme.test');
    expect(publicKeyFromDidKey(created.team_did_key)).not.toBeNull();
    ({ team_id: teamId, team_did_key: teamDidKey } = created);
    expectOneLineFailure(await cli('team', 'create', 'backend', '--domain', 'acme.test', '--json'), /409.*already exists/);
    expectOneLineFailure(await cli('team', 'create', 'backend'), /usage: svc-node team create/);
  });

  it('team add-member --json prints exactly {certificate, certificate_b64}, signed by the team key', async () => {
    const member = testKey();
    const issued = jsonOutput(
      await cli(
        'team',
        'add-member',
        teamId,
        '--did-key',
        member.didKey,
        '--alias',
        'alice',
        '--lifetime',
        'persistent',
        '--did-aw',
        'did:svc:2CiZ88hVF4JuQim8nnSuyeiV2HF2',
        '--address',
        'acme.test/alice',
        '--json',
      ),
    );
    expect(Object.keys(issued).sort()).toEqual(['certificate', 'certificate_b64']);
    expect(issued.certificate).toMatchObject({
      version: 1,
      team_id: teamId,
      team_did_key: teamDidKey,
      member_did_key: member.didKey,
      member_did_aw: 'did:svc:2CiZ88hVF4JuQim8nnSuyeiV2HF2',
      member_address: 'acme.test/alice',
      alias: 'alice',
      lifetime: 'persistent',
    });
    const decoded = parseCertificateHeader(issued.certificate_b64);
    expect(decoded).toEqual(issued.certificate);
    expect(verifyCertificateSignature(decoded!, publicKeyFromDidKey(teamDidKey)!)).toBe(true);
  });

  it('team add-member takes repeatable --scope; an unknown scope fails in one line', async () => {
    const issued = jsonOutput(await cli('team', 'add-member', teamId, '--did-key', testKey().didKey, '--alias', 'reader', '--scope', 'docs:read', '--json'));
    expect(issued.certificate).not.toHaveProperty('member_did_aw');
    expect(issued.certificate).not.toHaveProperty('member_address');
    const both = jsonOutput(
      await cli('team', 'add-member', teamId, '--did-key', testKey().didKey, '--alias', 'writer', '--scope', 'docs:read', '--scope', 'docs:write', '--json'),
    );
    const { members } = jsonOutput(await cli('team', 'members', teamId, '--json'));
    const byAlias = Object.fromEntries(members.map((m: { alias: string; scopes: string[] }) => [m.alias, m.scopes]));
    // alice was issued without --scope: the member default.
    expect(byAlias).toMatchObject({
      reader: ['docs:read'],
      writer: ['docs:read', 'docs:write'],
      alice: ['docs:read', 'docs:write', 'library:read', 'library:write'],
    });
    expect(both.certificate.alias).toBe('writer');
    // Without --json the listing ends with every scope, what it grants and which are the default.
    const text = await cli('team', 'members', teamId);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/\[docs:read,docs:write\]/);
    for (const scope of ['docs:read', 'docs:write', 'library:read', 'library:write'])
      expect(text.stdout).toMatch(new RegExp(`^  ${scope} +\\(default\\) \\S`, 'm'));
    for (const scope of ['library:publish', 'library:approve', 'team:admin']) expect(text.stdout).toMatch(new RegExp(`^  ${scope} +[a-z]`, 'm'));
    expectOneLineFailure(await cli('team', 'add-member', teamId, '--did-key', testKey().didKey, '--alias', 'x', '--scope', 'docs:admin', '--json'), /422/);
    expectOneLineFailure(await cli('team', 'add-member', teamId, '--did-key', testKey().didKey, '--alias', 'alice', '--json'), /409.*Alias already active/);
    expectOneLineFailure(await cli('team', 'add-member', teamId, '--alias', 'x'), /usage: svc-node team add-member/);
  });

  it('team revoke revokes once; team members and team list report it', async () => {
    const issued = jsonOutput(await cli('team', 'add-member', teamId, '--did-key', testKey().didKey, '--alias', 'gone', '--json'));
    const id = issued.certificate.certificate_id as string;
    const revoked = await cli('team', 'revoke', teamId, id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`revoked ${id} at .*; closed 0 editable present link`));
    expectOneLineFailure(await cli('team', 'revoke', teamId, id), /409.*already revoked/);
    const { members } = jsonOutput(await cli('team', 'members', teamId, '--json'));
    expect(members.find((m: { certificate_id: string }) => m.certificate_id === id).revoked_at).not.toBeNull();
    const { teams } = jsonOutput(await cli('team', 'list', '--json'));
    expect(teams.map((t: { team_id: string }) => t.team_id)).toEqual([teamId]);
    expectOneLineFailure(await cli('team', 'members', 'nobody:acme.test', '--json'), /404/);
  });

  it('fails in one line on a data dir where no node runs', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-node-cli-teams-empty-'));
    try {
      for (const args of [
        ['team', 'create', 'x', '--domain', 'acme.test', '--json'],
        ['team', 'list'],
        ['team', 'revoke', 'x:y.test', 'c'],
      ]) {
        expectOneLineFailure(await runCli([...args, '--data', empty]), /no svc-node is running on/);
      }
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
