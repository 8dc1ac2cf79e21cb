/**
 * A fresh node's catalog used to be empty, so "import a blueprint from the catalog" was impossible
 * until someone published one. The node now publishes its shipped samples (a code reviewer, a
 * release captain, a docs editor: server/surfaces/library/catalog/blueprint-samples/) at start, once, under
 * a publisher no team can be, and never over a team's own blueprint. Real nodes, real restarts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectOk } from '../support/expect.ts';
import { blueprintPayload } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, PUBLISHER_SCOPES } from '../support/teams.ts';

const SAMPLES = ['svc-node.code-review', 'svc-node.docs-editor', 'svc-node.release-captain'];
const dirs: string[] = [];
const nodes: TestNode[] = [];

async function start(dataDir: string, options: { sampleBlueprintsDir?: string | null } = {}): Promise<TestNode> {
  const node = await startTestNode({ dataDir, ...options });
  nodes.push(node);
  return node;
}

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-node-samples-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  for (const node of nodes) await node.stop({ keepData: true }).catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const catalog = async (t: TestNode) =>
  expectOk(await t.request('GET', '/v1/blueprints')) as {
    blueprint_ref: string;
    owner: string;
    display_name: string | null;
    version: string;
    tags: string[];
  }[];

describe('sample blueprints on a fresh node', { timeout: 60_000 }, () => {
  it('are in the catalog at first start, published by svc-node, tagged, and import onto a team’s shelf', async () => {
    const t = await start(freshDir());
    const list = await catalog(t);
    expect(list.map((b) => b.blueprint_ref).sort()).toEqual(SAMPLES);
    for (const sample of list) {
      expect(sample).toMatchObject({ owner: 'svc-node', display_name: 'svc-node samples', version: '1.0.0' });
      expect(sample.tags).toContain('sample');
    }
    const reviewer = expectOk(await t.request('GET', '/v1/blueprints/svc-node.code-review'));
    expect(reviewer.profiles).toEqual([expect.objectContaining({ profile_ref: 'code-reviewer', name: 'Code reviewer' })]);

    // What a newcomer does with one: import it to the team's shelf, bind it, materialize the home.
    const team = await addTeamMember(t, { team: 'platform', domain: 'samples.test', scopes: [...PUBLISHER_SCOPES, 'library:approve'] });
    expectOk(
      await team.request('POST', '/v1/shelf/import', { body: { source_blueprint_ref: 'svc-node.release-captain', profile_ref: 'release-captain' } }),
      201,
    );
    const shelf = expectOk(await team.request('GET', '/v1/shelf'));
    const captain = shelf.profiles.find((p: any) => p.profile_ref === 'release-captain');
    expect(captain).toBeDefined();
    expectOk(
      await team.request('POST', '/v1/agents/agent-1/profile-binding', {
        body: { profile_ref: 'release-captain', profile_version: '1.0.0', profile_digest: captain.digest },
      }),
    );
    const home = expectOk(await team.request('POST', '/v1/materialize', { body: { agent_id: 'agent-1', runtime_kind: 'claude-code', target: 'local' } }));
    const paths = home.home_files.map((f: any) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['AGENTS.md', 'skills/cut-release/SKILL.md', 'artifacts/release-checklist.md']));
    const agents: string = home.home_files.find((f: any) => f.path === 'AGENTS.md').content_utf8;
    expect(agents.match(/^# Release captain$/gm)).toHaveLength(1);
  });

  it('are published once: a restart adds no version and keeps the dates', async () => {
    const dataDir = freshDir();
    const first = await start(dataDir);
    const before = expectOk(await first.request('GET', '/v1/blueprints/svc-node.docs-editor'));
    await first.stop({ keepData: true });
    const second = await start(dataDir);
    const after = expectOk(await second.request('GET', '/v1/blueprints/svc-node.docs-editor'));
    expect(after.versions).toEqual(before.versions);
    expect(after.versions).toHaveLength(1);
    expect((await catalog(second)).map((b) => b.blueprint_ref).sort()).toEqual(SAMPLES);
  });

  it('never replace a team’s own blueprint of the same ref', async () => {
    const dataDir = freshDir();
    const first = await start(dataDir, { sampleBlueprintsDir: null });
    expect(await catalog(first)).toEqual([]);
    const team = await addTeamMember(first, { team: 'reviewers', domain: 'own.test', scopes: [...PUBLISHER_SCOPES] });
    const own = blueprintPayload({ ref: 'svc-node.code-review', version: '0.9.0', name: 'Our review desk', profiles: [{ ref: 'our-reviewer' }] });
    expectOk(await team.request('POST', '/v1/blueprints/import', { body: own }), 201);
    await first.stop({ keepData: true });

    const second = await start(dataDir);
    const theirs = expectOk(await second.request('GET', '/v1/blueprints/svc-node.code-review'));
    expect(theirs).toMatchObject({ owner: team.teamId, name: 'Our review desk', version: '0.9.0' });
    expect(theirs.versions).toHaveLength(1);
    // The other samples still arrive.
    expect(
      (await catalog(second))
        .filter((b) => b.owner === 'svc-node')
        .map((b) => b.blueprint_ref)
        .sort(),
    ).toEqual(['svc-node.docs-editor', 'svc-node.release-captain']);
  });
});
