import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeAgentWorkspace, type JoinedMembership } from './agent-workspace.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-node-aw-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (name: string): unknown => parse(readFileSync(join(dir, name), 'utf8'));
const joined = (overrides: Partial<JoinedMembership> = {}): JoinedMembership => ({
  teamId: 'crew:acme.test',
  alias: 'scout',
  certPath: 'team-certs/crew__acme.test.pem',
  joinedAt: '2026-11-27T10:00:00Z',
  workspaceId: 'ws-1',
  coreUrl: 'http://127.0.0.1:7420',
  didKey: 'did:key:z6MkA',
  didAw: null,
  address: null,
  ...overrides,
});

describe('writeAgentWorkspace', () => {
  it("writes upstream's teams.yaml and workspace.yaml; no identity.yaml for an ephemeral member", () => {
    const files = writeAgentWorkspace(dir, joined());
    expect(files).toEqual([join(dir, 'teams.yaml'), join(dir, 'workspace.yaml')]);
    const membership = { team_id: 'crew:acme.test', alias: 'scout', cert_path: 'team-certs/crew__acme.test.pem', joined_at: '2026-11-27T10:00:00Z' };
    expect(read('teams.yaml')).toEqual({ active_team: 'crew:acme.test', memberships: [membership] });
    expect(read('workspace.yaml')).toEqual({ aweb_url: 'http://127.0.0.1:7420', memberships: [{ ...membership, workspace_id: 'ws-1' }] });
    expect(existsSync(join(dir, 'identity.yaml'))).toBe(false);
  });

  it('keeps other teams and fields, replaces this team, makes it active', () => {
    writeFileSync(
      join(dir, 'teams.yaml'),
      'active_team: old:x.test\nmemberships:\n  - team_id: old:x.test\n    alias: a\n  - team_id: crew:acme.test\n    alias: stale\n',
    );
    writeFileSync(join(dir, 'workspace.yaml'), 'aweb_url: http://elsewhere\nhuman_name: Ada\nmemberships:\n  - team_id: old:x.test\n    alias: a\n');
    writeAgentWorkspace(dir, joined());
    expect(read('teams.yaml')).toMatchObject({
      active_team: 'crew:acme.test',
      memberships: [
        { team_id: 'old:x.test', alias: 'a' },
        { team_id: 'crew:acme.test', alias: 'scout' },
      ],
    });
    expect(read('workspace.yaml')).toMatchObject({
      aweb_url: 'http://127.0.0.1:7420',
      human_name: 'Ada',
      memberships: [{ team_id: 'old:x.test' }, { team_id: 'crew:acme.test', workspace_id: 'ws-1' }],
    });
  });

  it('writes identity.yaml for a persistent member, pointing its registry at this node', () => {
    writeAgentWorkspace(dir, joined({ didAw: 'did:svc:abc', address: 'acme.test/scout' }));
    expect(read('identity.yaml')).toEqual({
      did: 'did:key:z6MkA',
      stable_id: 'did:svc:abc',
      address: 'acme.test/scout',
      custody: 'self',
      lifetime: 'persistent',
      registry_url: 'http://127.0.0.1:7420',
      created_at: '2026-11-27T10:00:00Z',
    });
  });
});
