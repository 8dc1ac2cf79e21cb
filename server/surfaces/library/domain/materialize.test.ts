import { describe, expect, it } from 'vitest';
import type { HomeFile } from '../../../../contract/library/materialize.ts';
import { materializeHome, type MaterializeInput } from './materialize.ts';
import { checkPayloadFiles, type PayloadFile } from './payload.ts';

const PROFILE_YAML = `id: coder
version: 0.3.0
name: Coder
mission: Ship small, reviewed changes.
accepted_work:
  - implementation
  - {kind: review}
instructions: instructions.md
expected_apps: [mail, tasks]
approval_required: [deploys]
memory_policy:
  mode: reviewed-learning
  proposal_target: library
event_subscriptions:
  - {app: tasks, event: task.assigned}
skills:
  - {path: skills/implement/SKILL.md, kind: skill}
  - {path: skills/review/SKILL.md, kind: skill}
artifacts:
  - {path: artifacts/checklist.md, kind: artifact}
`;

const FILES: PayloadFile[] = checkPayloadFiles(
  [
    { path: 'profile.yaml', content_utf8: PROFILE_YAML },
    { path: 'instructions.md', content_utf8: 'Run the tests first.\n\n' },
    { path: 'skills/implement/SKILL.md', content_utf8: '# Implement\n' },
    { path: 'skills/implement/reference.md', content_utf8: 'ref' },
    { path: 'skills/review/SKILL.md', content_utf8: '# Review\n' },
    { path: 'artifacts/checklist.md', content_utf8: '- [ ] tests\n' },
    { path: 'artifacts/undeclared.md', content_utf8: 'not listed' },
  ],
  [],
);

const SOURCE = { blueprint_ref: 'acme.team', blueprint_version: '1.2.0', blueprint_digest: `sha256:${'b'.repeat(64)}` };

function input(overrides: Partial<MaterializeInput> = {}): MaterializeInput {
  return {
    files: FILES,
    profile_ref: 'coder',
    profile_version: '0.3.0',
    profile_digest: `sha256:${'a'.repeat(64)}`,
    source: SOURCE,
    runtime_kind: 'claude-code',
    target: 'local',
    library_url: 'http://127.0.0.1:4100',
    ...overrides,
  };
}

const byPath = (files: HomeFile[], path: string) => files.find((f) => f.path === path);
const textOf = (files: HomeFile[], path: string) => {
  const f = byPath(files, path);
  if (f?.kind !== 'file') throw new Error(`${path} is not a file`);
  return f.content_utf8;
};

const PROFILE_COPY = FILES.map((f) => `.svc/profile/${f.path}`);

describe('materializeHome', () => {
  it('lays out a claude-code home: AGENTS.md, CLAUDE.md, skill directory symlinks, resources, .svc/profile', () => {
    const { home_files, managed_set } = materializeHome(input());
    expect(home_files.map((f) => f.path)).toEqual([
      '.claude/skills/implement',
      '.claude/skills/review',
      ...PROFILE_COPY.slice(0, 4),
      '.svc/profile/ref.json',
      ...PROFILE_COPY.slice(4),
      'AGENTS.md',
      'CLAUDE.md',
      'artifacts/checklist.md',
      'skills/implement/SKILL.md',
      'skills/implement/reference.md',
      'skills/review/SKILL.md',
    ]);
    expect(byPath(home_files, 'CLAUDE.md')).toEqual({ path: 'CLAUDE.md', kind: 'symlink', target: 'AGENTS.md' });
    expect(byPath(home_files, '.claude/skills/implement')).toEqual({ path: '.claude/skills/implement', kind: 'symlink', target: '../../skills/implement' });
    expect(textOf(home_files, 'skills/implement/reference.md')).toBe('ref');
    expect(textOf(home_files, '.svc/profile/profile.yaml')).toBe(PROFILE_YAML);
    expect(managed_set).toEqual(home_files.map((f) => f.path));
  });

  it('treats an empty runtime_kind as claude-code', () => {
    const { home_files } = materializeHome(input({ runtime_kind: '' }));
    expect(byPath(home_files, 'CLAUDE.md')?.kind).toBe('symlink');
  });

  it('gives other runtimes the plain layout, without CLAUDE.md or .claude/', () => {
    const { home_files, managed_set } = materializeHome(input({ runtime_kind: 'codex' }));
    expect(home_files.map((f) => f.path)).toEqual([
      ...PROFILE_COPY.slice(0, 4),
      '.svc/profile/ref.json',
      ...PROFILE_COPY.slice(4),
      'AGENTS.md',
      'artifacts/checklist.md',
      'skills/implement/SKILL.md',
      'skills/implement/reference.md',
      'skills/review/SKILL.md',
    ]);
    expect(home_files.every((f) => f.kind === 'file')).toBe(true);
    expect(managed_set).toEqual(home_files.map((f) => f.path));
    expect(JSON.parse(textOf(home_files, '.svc/profile/ref.json')).runtime_kind).toBe('codex');
  });

  it('composes AGENTS.md in the fixed section order', () => {
    const agents = textOf(materializeHome(input()).home_files, 'AGENTS.md');
    expect(agents).toBe(
      [
        '# Coder',
        '',
        '> Profile coder v0.3.0 · blueprint acme.team v1.2.0',
        '',
        '## Mission',
        '',
        'Ship small, reviewed changes.',
        '',
        '## Work you take on',
        '',
        '- implementation',
        '- {"kind":"review"}',
        '',
        '## Instructions',
        '',
        'Run the tests first.',
        '',
        '## Apps you use',
        '',
        '- mail',
        '- tasks',
        '',
        '## Actions requiring human approval',
        '',
        '- deploys',
        '',
        '## Memory and learning',
        '',
        'Mode: reviewed-learning',
        'Proposal target: library',
        '',
        'Your full profile is kept under .svc/profile/. To change how you work, propose a change to it through the library; library reviews it and mints a new profile version.',
        '',
        '## Skills',
        '',
        'These skills are installed where your runtime discovers them:',
        '',
        '- implement',
        '- review',
        '',
      ].join('\n'),
    );
  });

  it('shows the title once: instructions opening with their own title nest under "## Instructions"', () => {
    const files = FILES.map(({ path, content_utf8 }) => ({
      path,
      content_utf8: path === 'instructions.md' ? '# Coder\n\n## Before you start\n\nRun the tests first.\n' : content_utf8,
    }));
    const agents = textOf(materializeHome(input({ files: checkPayloadFiles(files, []) })).home_files, 'AGENTS.md');
    expect(agents.match(/^# Coder$/gm)).toHaveLength(1);
    expect(agents).toContain('## Instructions\n\n### Before you start\n\nRun the tests first.\n\n## Apps you use');
  });

  it('omits empty sections and marks a profile created on the shelf', () => {
    const bare = checkPayloadFiles([{ path: 'profile.yaml', content_utf8: 'id: solo\nversion: "1"\n' }], []);
    const { home_files } = materializeHome(input({ files: bare, profile_ref: 'solo', profile_version: '1', source: null }));
    expect(textOf(home_files, 'AGENTS.md')).toBe('# solo\n\n> Profile solo v1 · created\n');
    expect(home_files.map((f) => f.path)).toEqual(['.svc/profile/profile.yaml', '.svc/profile/ref.json', 'AGENTS.md', 'CLAUDE.md']);
  });

  it('writes ref.json as pretty JSON with sorted keys, the pins and the managed set', () => {
    const { home_files, managed_set } = materializeHome(input({ target: 'custodial-mcp' }));
    const text = textOf(home_files, '.svc/profile/ref.json');
    const ref = JSON.parse(text);
    expect(ref).toEqual({
      library_url: 'http://127.0.0.1:4100',
      managed_set,
      profile_digest: `sha256:${'a'.repeat(64)}`,
      profile_ref: 'coder',
      profile_version: '0.3.0',
      runtime_kind: 'claude-code',
      source_blueprint_digest: SOURCE.blueprint_digest,
      source_blueprint_ref: 'acme.team',
      source_blueprint_version: '1.2.0',
      target: 'custodial-mcp',
    });
    expect(Object.keys(ref)).toEqual([...Object.keys(ref)].sort());
    expect(text).toBe(`${JSON.stringify(ref, null, 2)}\n`);
    expect(ref.managed_set).toContain('.svc/profile/ref.json');
  });

  it('leaves the source pins out of ref.json for a profile created on the shelf', () => {
    const ref = JSON.parse(textOf(materializeHome(input({ source: null })).home_files, '.svc/profile/ref.json'));
    expect(Object.keys(ref).filter((k) => k.startsWith('source_'))).toEqual([]);
  });

  it('skips declared files that are missing or would land on generated entries', () => {
    const files = checkPayloadFiles(
      [
        { path: 'profile.yaml', content_utf8: 'id: p\nversion: "1"\nartifacts: [{path: AGENTS.md}, {path: gone.md}, {path: ref.json}]\n' },
        { path: 'AGENTS.md', content_utf8: 'hijack' },
        { path: 'ref.json', content_utf8: '{}' },
      ],
      [],
    );
    const { home_files } = materializeHome(input({ files, profile_ref: 'p', profile_version: '1', source: null }));
    expect(textOf(home_files, 'AGENTS.md')).toMatch(/^# p\n/);
    expect(home_files.map((f) => f.path)).toEqual([
      '.svc/profile/AGENTS.md',
      '.svc/profile/profile.yaml',
      '.svc/profile/ref.json',
      'AGENTS.md',
      'CLAUDE.md',
      'ref.json',
    ]);
    expect(JSON.parse(textOf(home_files, '.svc/profile/ref.json')).profile_ref).toBe('p');
  });

  it('is deterministic', () => {
    expect(materializeHome(input())).toEqual(materializeHome(input({ files: [...FILES].reverse() })));
  });
});
