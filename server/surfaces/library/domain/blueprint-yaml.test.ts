import { describe, expect, it } from 'vitest';
import { validationIssues } from '../../../../test/support/expect.ts';
import { buildBlueprintFiles, readBlueprintPayload } from './blueprint-yaml.ts';
import { profileDigest } from './digest.ts';
import { checkPayloadFiles, payloadFile, type PayloadFile } from './payload.ts';

const profileFiles = (id: string, extra: Record<string, string> = {}): PayloadFile[] =>
  checkPayloadFiles(
    [
      { path: 'profile.yaml', content_utf8: `id: ${id}\nversion: 0.1.0\nname: The ${id}\nmission: Be a ${id}.\n` },
      { path: 'instructions.md', content_utf8: `# ${id}\n` },
      ...Object.entries(extra).map(([path, content_utf8]) => ({ path, content_utf8 })),
    ],
    [],
  );

const BLUEPRINT_YAML = `id: acme.team
version: 1.0.0
name: Acme team
summary: Builders
profiles:
  - id: reviewer
    default_count: 1
    runtime_hints: [claude-code]
  - id: coder
    min: 1
expected_apps: [mail]
first_mission_examples: [Ship it]
runtime_hints: [any]
`;

function payload(blueprintYaml = BLUEPRINT_YAML, extra: { path: string; content_utf8: string }[] = []): PayloadFile[] {
  const files = [
    { path: 'blueprint.yaml', content_utf8: blueprintYaml },
    { path: 'README.md', content_utf8: '# Acme\n' },
    ...profileFiles('coder', { 'skills/impl/SKILL.md': 'impl' }).map((f) => ({ path: `profiles/coder/${f.path}`, content_utf8: f.content_utf8 })),
    ...profileFiles('reviewer').map((f) => ({ path: `profiles/reviewer/${f.path}`, content_utf8: f.content_utf8 })),
    ...extra,
  ];
  return checkPayloadFiles(files, []);
}

describe('readBlueprintPayload', () => {
  it('reads the manifest and returns profiles in blueprint.yaml order with profile-relative files', () => {
    const { manifest, profiles } = readBlueprintPayload(payload());
    expect(manifest).toEqual({
      blueprint_ref: 'acme.team',
      version: '1.0.0',
      name: 'Acme team',
      summary: 'Builders',
      description: null,
      recommendations: [
        { id: 'reviewer', default_count: 1, runtime_hints: ['claude-code'] },
        { id: 'coder', min: 1 },
      ],
      runtime_hints: ['any'],
      expected_apps: ['mail'],
      first_mission_examples: ['Ship it'],
    });
    expect(profiles.map((p) => p.profile_ref)).toEqual(['reviewer', 'coder']);
    expect(profiles[1]?.files.map((f) => f.path)).toEqual(['instructions.md', 'profile.yaml', 'skills/impl/SKILL.md']);
    expect(profiles[1]?.manifest.mission).toBe('Be a coder.');
  });

  it('keeps profile entries byte-identical, so digests equal the standalone profile', () => {
    const { profiles } = readBlueprintPayload(payload());
    expect(profiles[1]?.files).toEqual(profileFiles('coder', { 'skills/impl/SKILL.md': 'impl' }));
    expect(profileDigest(profiles[1]!.files)).toBe(profileDigest(profileFiles('coder', { 'skills/impl/SKILL.md': 'impl' })));
  });

  it('requires blueprint.yaml at the root', () => {
    const files = payload().filter((f) => f.path !== 'blueprint.yaml');
    expect(validationIssues(() => readBlueprintPayload(files))).toEqual([
      { loc: ['body', 'files', 'blueprint.yaml'], msg: 'blueprint.yaml is required at the root of the payload', type: 'missing' },
    ]);
  });

  it('requires id, version and name, and refuses a bare numeric version', () => {
    const issues = validationIssues(() => readBlueprintPayload(payload('version: 1.0\nprofiles: [{id: coder}, {id: reviewer}]\n')));
    expect(issues.map((i) => i.loc.at(-1))).toEqual(['id', 'version', 'name']);
    expect(issues[1]?.msg).toMatch(/quote it/);
  });

  it('refuses bad profiles[] entries: not a mapping, no id, repeated id, empty list', () => {
    const issues = validationIssues(() =>
      readBlueprintPayload(payload('id: a\nversion: "1"\nname: A\nprofiles: [coder, {min: 1}, {id: coder}, {id: coder}, {id: reviewer}]\n')),
    );
    expect(issues.map((i) => [i.loc.slice(2), i.type])).toEqual([
      [['blueprint.yaml', 'profiles', 0], 'dict_type'],
      [['blueprint.yaml', 'profiles', 1, 'id'], 'missing'],
      [['blueprint.yaml', 'profiles', 3, 'id'], 'value_error'],
    ]);
    const none = validationIssues(() =>
      readBlueprintPayload(checkPayloadFiles([{ path: 'blueprint.yaml', content_utf8: 'id: a\nversion: "1"\nname: A\n' }], [])),
    );
    expect(none.map((i) => i.msg)).toEqual(['profiles must list at least one profile']);
  });

  it('requires profiles/<id>/profile.yaml for every listed profile', () => {
    const files = payload().filter((f) => f.path !== 'profiles/coder/profile.yaml');
    expect(validationIssues(() => readBlueprintPayload(files))).toEqual([
      { loc: ['body', 'files', 'profiles/coder', 'profile.yaml'], msg: 'profiles/coder/profile.yaml is required for listed profile coder', type: 'missing' },
    ]);
  });

  it('requires each profile.yaml id to equal its directory', () => {
    const files = payload().map((f) => (f.path === 'profiles/coder/profile.yaml' ? payloadFile(f.path, 'id: writer\nversion: "1"\n') : f));
    expect(validationIssues(() => readBlueprintPayload(files))).toEqual([
      { loc: ['body', 'files', 'profiles/coder', 'profile.yaml', 'id'], msg: 'id "writer" must equal its directory name "coder"', type: 'value_error' },
    ]);
  });

  it('reports an invalid profile.yaml under its directory', () => {
    const files = payload().map((f) => (f.path === 'profiles/coder/profile.yaml' ? payloadFile(f.path, 'id: coder\nversion: 2.0\n') : f));
    const issues = validationIssues(() => readBlueprintPayload(files));
    expect(issues.map((i) => i.loc)).toEqual([['body', 'files', 'profiles/coder', 'profile.yaml', 'version']]);
  });

  it('refuses a profile directory that blueprint.yaml does not list, and loose files under profiles/', () => {
    const issues = validationIssues(() =>
      readBlueprintPayload(
        payload(undefined, [
          { path: 'profiles/ghost/profile.yaml', content_utf8: 'id: ghost\nversion: "1"\n' },
          { path: 'profiles/loose.md', content_utf8: 'x' },
        ]),
      ),
    );
    expect(issues.map((i) => i.loc.slice(2))).toEqual([['profiles/loose.md'], ['profiles/ghost']]);
    expect(issues[1]?.msg).toBe('profiles/ghost/ is not listed in blueprint.yaml profiles[]');
  });
});

describe('buildBlueprintFiles', () => {
  const coder = { profile_ref: 'coder', files: profileFiles('coder', { 'skills/impl/SKILL.md': 'impl' }) };

  it('writes blueprint.yaml, README.md and profiles/<ref>/..., and round-trips through readBlueprintPayload', () => {
    const files = buildBlueprintFiles({
      blueprint_ref: 'acme.solo',
      version: '0.1.0',
      name: 'Solo',
      summary: 'One coder',
      description: null,
      readme: '# Solo\n',
      first_mission_examples: ['Fix the bug'],
      profiles: [coder],
    });
    expect(files.map((f) => f.path)).toEqual([
      'README.md',
      'blueprint.yaml',
      'profiles/coder/instructions.md',
      'profiles/coder/profile.yaml',
      'profiles/coder/skills/impl/SKILL.md',
    ]);
    expect(files[1]?.content_utf8).toBe(
      'id: acme.solo\nversion: 0.1.0\nname: Solo\nsummary: One coder\nprofiles:\n  - id: coder\nfirst_mission_examples:\n  - Fix the bug\n',
    );
    const { manifest, profiles } = readBlueprintPayload(files);
    expect(manifest).toMatchObject({
      blueprint_ref: 'acme.solo',
      version: '0.1.0',
      name: 'Solo',
      summary: 'One coder',
      description: null,
      first_mission_examples: ['Fix the bug'],
    });
    expect(profiles[0]?.files).toEqual(coder.files);
  });

  it('keeps a given recommendation verbatim, gives others {id}, drops recommendations of absent profiles', () => {
    const reviewer = { profile_ref: 'reviewer', files: profileFiles('reviewer') };
    const files = buildBlueprintFiles({
      blueprint_ref: 'acme.team',
      version: '2.0.0',
      name: 'Acme',
      profiles: [reviewer, coder],
      recommendations: [{ id: 'reviewer', default_count: 2 }, { id: 'gone' }, 'junk'],
    });
    const { manifest, profiles } = readBlueprintPayload(files);
    expect(manifest.recommendations).toEqual([{ id: 'reviewer', default_count: 2 }, { id: 'coder' }]);
    expect(profiles.map((p) => p.profile_ref)).toEqual(['reviewer', 'coder']);
    expect(files.some((f) => f.path === 'README.md')).toBe(false);
    expect(manifest.summary).toBeNull();
  });

  it('a version string that looks like a number stays a string', () => {
    const files = buildBlueprintFiles({ blueprint_ref: 'a', version: '1.0', name: 'A', profiles: [coder] });
    expect(readBlueprintPayload(files).manifest.version).toBe('1.0');
  });
});
