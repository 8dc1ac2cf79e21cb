/**
 * Skills added as files are declared by the node (server/surfaces/library/domain/skills.ts): a
 * profile created, or saved as a new version, with `skills/<n>/SKILL.md` and no `skills:` entry
 * for it gets one in profile.yaml, so materialize links `.claude/skills/<n>` at once. The stored
 * files, their sha256 and the profile digest agree; a profile that declares its skills, and a
 * copy imported from the catalog, are stored byte for byte.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../server/crypto/canonical-json.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { blueprintPayload, file, profileFiles, sha } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, PUBLISHER_SCOPES, type TeamClient } from '../support/teams.ts';

let t: TestNode;
let team: TeamClient;

beforeAll(async () => {
  t = await startTestNode();
  team = await addTeamMember(t, { team: 'skills', domain: 'skills.test', scopes: PUBLISHER_SCOPES });
});
afterAll(async () => {
  await t.stop();
});

const MANIFEST = '# The reviewer, as the team wrote it.\nid: reviewer\nversion: 0.1.0\nname: Reviewer\ninstructions: instructions.md\n';

/** The profile digest recomputed from the files as stored (the node's rule, written out here). */
function digestOf(files: { path: string; content_utf8: string; sha256: string }[]): string {
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const value = { files: sorted.map(({ path, content_utf8, sha256 }) => ({ path, content_utf8, sha256 })), schema: 'svc.blueprint.profile-payload.v1' };
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}

const homePaths = (home: { path: string; kind: string; target?: string }[]) => home.map((h) => (h.kind === 'symlink' ? `${h.path} -> ${h.target}` : h.path));

describe('skills added as files', () => {
  it('declares a skill added in a new version, keeping the rest of profile.yaml, and materialize links it', async () => {
    expectOk(await team.request('POST', '/v1/profiles', { body: { files: [file('profile.yaml', MANIFEST), file('instructions.md', '# Review\n')] } }), 201);
    // Before: a profile without skills has no link.
    const before = expectOk(await team.request('POST', '/v1/materialize', { body: { profile_ref: 'reviewer', runtime_kind: 'claude-code', target: 'local' } }));
    expect(homePaths(before.home_files).filter((p: string) => p.startsWith('.claude/'))).toEqual([]);

    const sent = [
      file('profile.yaml', MANIFEST.replace('0.1.0', '0.2.0')),
      file('instructions.md', '# Review\n'),
      file('skills/diff-reading/SKILL.md', '# Reading diffs\n'),
      file('skills/diff-reading/examples.md', 'one\n'),
    ];
    const saved = expectOk(await team.request('POST', '/v1/profiles/reviewer/versions', { body: { files: sent } }), 201);
    expect(saved.registered_skills).toEqual(['skills/diff-reading/SKILL.md']);

    const stored = expectOk(await team.request('GET', '/v1/profiles/reviewer?include=files'));
    const manifest = stored.files.find((f: any) => f.path === 'profile.yaml');
    // The comment, the order and the other fields stay; the skill is appended.
    expect(manifest.content_utf8).toBe(`${MANIFEST.replace('0.1.0', '0.2.0')}skills:\n  - path: skills/diff-reading/SKILL.md\n    kind: skill\n`);
    expect(manifest.sha256).toBe(sha(manifest.content_utf8));
    expect(stored.digest).toBe(digestOf(stored.files));
    expect(saved.digest).toBe(stored.digest);
    // The other files are stored as they were sent.
    for (const f of sent.filter((s) => s.path !== 'profile.yaml')) expect(stored.files).toContainEqual(f);
    expect(stored.proposal_asset_digests['profile.yaml#skills']).toMatch(/^sha256:/);

    const home = expectOk(await team.request('POST', '/v1/materialize', { body: { profile_ref: 'reviewer', runtime_kind: 'claude-code', target: 'local' } }));
    expect(homePaths(home.home_files)).toEqual(
      expect.arrayContaining(['.claude/skills/diff-reading -> ../../skills/diff-reading', 'skills/diff-reading/SKILL.md', 'skills/diff-reading/examples.md']),
    );
    expect(home.home_files.find((h: any) => h.path === 'AGENTS.md').content_utf8).toContain('## Skills');
  });

  it('declares skills in a profile created with them, next to those it declares already', async () => {
    const files = profileFiles({
      ref: 'pair',
      skills: { planning: '# Plan\n' },
      files: { 'skills/testing/SKILL.md': '# Test\n', 'skills/notes.md': 'not a skill' },
    });
    const created = expectOk(await team.request('POST', '/v1/profiles', { body: { files } }), 201);
    expect(created.registered_skills).toEqual(['skills/testing/SKILL.md']);
    const stored = expectOk(await team.request('GET', '/v1/profiles/pair?include=files'));
    expect(stored.files.find((f: any) => f.path === 'profile.yaml').content_utf8).toMatch(
      /skills:\n {2}- path: skills\/planning\/SKILL.md\n {4}kind: skill\n {2}- path: skills\/testing\/SKILL.md\n {4}kind: skill\n/,
    );
    const home = expectOk(await team.request('POST', '/v1/materialize', { body: { profile_ref: 'pair', runtime_kind: 'claude-code', target: 'local' } }));
    expect(homePaths(home.home_files).filter((p: string) => p.startsWith('.claude/skills/'))).toEqual([
      '.claude/skills/planning -> ../../skills/planning',
      '.claude/skills/testing -> ../../skills/testing',
    ]);
  });

  it('stores a profile that declares its skills byte for byte', async () => {
    const files = profileFiles({ ref: 'tidy', skills: { sorting: '# Sort\n' } });
    const created = expectOk(await team.request('POST', '/v1/profiles', { body: { files } }), 201);
    expect(created.registered_skills).toEqual([]);
    const stored = expectOk(await team.request('GET', '/v1/profiles/tidy?include=files'));
    expect([...stored.files].sort((a: any, b: any) => a.path.localeCompare(b.path))).toEqual([...files].sort((a, b) => a.path.localeCompare(b.path)));
    expect(stored.digest).toBe(digestOf(files));
  });

  it('keeps a copy imported from the catalog byte for byte, so its digest still matches the blueprint', async () => {
    const payload = blueprintPayload({ ref: 'loose.team', profiles: [{ ref: 'loose', files: { 'skills/undeclared/SKILL.md': '# Loose\n' } }] });
    expectOk(await team.request('POST', '/v1/blueprints/import', { body: payload }), 201);
    const source = expectOk(await t.request('GET', '/v1/blueprints/loose.team/profiles/loose'));
    const imported = expectOk(await team.request('POST', '/v1/shelf/import', { body: { source_blueprint_ref: 'loose.team', profile_ref: 'loose' } }), 201);
    expect(imported.digest).toBe(source.digest);
  });

  it('refuses a new version whose profile.yaml does not read, storing nothing', async () => {
    const bad = [file('profile.yaml', 'id: reviewer\nversion: 0.3.0\nskills: nope\n'), file('skills/x/SKILL.md', '# X\n')];
    expectRefusal(
      await team.request('POST', '/v1/profiles/reviewer/versions', { body: { files: bad } }),
      422,
      /skills must be a list/,
      'SVC_ERR_MANIFEST_INVALID',
    );
    expect(expectOk(await team.request('GET', '/v1/profiles/reviewer')).version).toBe('0.2.0');
  });
});
