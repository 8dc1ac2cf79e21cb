import { describe, expect, it } from 'vitest';
import { validationIssues } from '../../../../test/support/expect.ts';
import { payloadFile } from './payload.ts';
import { fieldValue, readProfile, writeProfileYaml } from './profile-yaml.ts';

const profile = (yaml: string) => [payloadFile('profile.yaml', yaml), payloadFile('instructions.md', '# Do it\n')];

const FULL = `id: coder
version: 0.1.0
name: Coder
scope: local
works_on_main: true
mission: >-
  Ship small, reviewed changes.
accepted_work:
  - implementation
  - bug fixes
instructions: docs/instructions.md
runtime_assumptions: [git]
memory_policy:
  mode: reviewed-learning
  proposal_target: library
expected_apps: [mail, tasks]
event_subscriptions:
  - {app: tasks, event: task.assigned}
approval_required: [deploys]
skills:
  - {path: skills/implement/SKILL.md, kind: skill}
  - {path: skills/review/SKILL.md}
artifacts:
  - {path: artifacts/checklist.md, kind: checklist}
`;

describe('readProfile', () => {
  it('reads every field and keeps unknown keys in the document', () => {
    const { manifest, document } = readProfile(profile(FULL));
    expect(manifest).toEqual({
      id: 'coder',
      version: '0.1.0',
      name: 'Coder',
      mission: 'Ship small, reviewed changes.',
      accepted_work: ['implementation', 'bug fixes'],
      runtime_assumptions: ['git'],
      memory_policy: { mode: 'reviewed-learning', proposal_target: 'library' },
      expected_apps: ['mail', 'tasks'],
      event_subscriptions: [{ app: 'tasks', event: 'task.assigned' }],
      approval_required: ['deploys'],
      instructions: 'docs/instructions.md',
      skills: [
        { path: 'skills/implement/SKILL.md', kind: 'skill' },
        { path: 'skills/review/SKILL.md', kind: 'skill' },
      ],
      artifacts: [{ path: 'artifacts/checklist.md', kind: 'checklist' }],
    });
    expect(document.scope).toBe('local');
    expect(document.works_on_main).toBe(true);
    expect(Object.keys(document)[0]).toBe('id');
  });

  it('defaults absent fields: null strings, empty lists, instructions.md', () => {
    const { manifest } = readProfile(profile('id: bare\nversion: "1"\naccepted_work:\n'));
    expect(manifest).toMatchObject({ name: null, mission: null, accepted_work: [], memory_policy: null, skills: [], instructions: 'instructions.md' });
  });

  it('uses YAML 1.2 core: yes/no/on stay strings, dates stay text', () => {
    const { manifest } = readProfile(profile('id: p\nversion: 1.0.0\nname: yes\nmission: 2024-01-02\naccepted_work: [no, on, off]\n'));
    expect(manifest.name).toBe('yes');
    expect(manifest.mission).toBe('2024-01-02');
    expect(manifest.accepted_work).toEqual(['no', 'on', 'off']);
  });

  it('refuses a bare numeric version and says to quote it', () => {
    const issues = validationIssues(() => readProfile(profile('id: p\nversion: 1.0\n'), ['body', 'files']));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.loc).toEqual(['body', 'files', 'profile.yaml', 'version']);
    expect(issues[0]?.msg).toMatch(/quote it/);
    expect(readProfile(profile('id: p\nversion: "1.0"\n')).manifest.version).toBe('1.0');
  });

  it('requires profile.yaml', () => {
    expect(validationIssues(() => readProfile([payloadFile('instructions.md', 'x')], ['body', 'files']))).toEqual([
      { loc: ['body', 'files', 'profile.yaml'], msg: 'profile.yaml is required', type: 'missing' },
    ]);
  });

  it('requires a mapping', () => {
    expect(validationIssues(() => readProfile(profile('- a\n- b\n')))[0]?.msg).toMatch(/mapping/);
    expect(validationIssues(() => readProfile(profile('')))[0]?.msg).toMatch(/mapping/);
  });

  it('refuses YAML errors: syntax, duplicate keys, a second document, unknown tags', () => {
    expect(validationIssues(() => readProfile(profile('id: [unclosed\n')))[0]?.msg).toMatch(/^YAML: /);
    expect(validationIssues(() => readProfile(profile('id: a\nid: b\nversion: "1"\n')))[0]?.msg).toBe('YAML: Map keys must be unique at line 2, column 1');
    expect(validationIssues(() => readProfile(profile('id: a\n---\nid: b\n')))[0]?.msg).toMatch(/multiple documents/);
    expect(validationIssues(() => readProfile(profile('id: a\nversion: "1"\nname: !custom x\n')))[0]?.msg).toMatch(/tag/);
  });

  it('refuses values with no canonical JSON form (floats, binary)', () => {
    const float = validationIssues(() => readProfile(profile('id: a\nversion: "1"\nmemory_policy: {ratio: 0.5}\n')));
    expect(float).toEqual([{ loc: ['profile.yaml', 'memory_policy', 'ratio'], msg: expect.stringMatching(/whole/), type: 'value_error' }]);
    expect(validationIssues(() => readProfile(profile('id: a\nversion: "1"\nx: !!binary aGk=\n')))[0]?.loc).toEqual(['profile.yaml', 'x']);
  });

  it('requires id and version and checks their formats', () => {
    const missing = validationIssues(() => readProfile(profile('name: x\n')));
    expect(missing.map((i) => [i.loc, i.type])).toEqual([
      [['profile.yaml', 'id'], 'missing'],
      [['profile.yaml', 'version'], 'missing'],
    ]);
    const bad = validationIssues(() => readProfile(profile('id: Coder!\nversion: v1\n')));
    expect(bad.map((i) => i.loc)).toEqual([
      ['profile.yaml', 'id'],
      ['profile.yaml', 'version'],
    ]);
    expect(validationIssues(() => readProfile(profile(`id: ${'a'.repeat(129)}\nversion: "1"\n`)))[0]?.loc).toEqual(['profile.yaml', 'id']);
    expect(validationIssues(() => readProfile(profile('id: .hidden\nversion: "1"\n')))[0]?.loc).toEqual(['profile.yaml', 'id']);
  });

  it('checks field types, one issue per wrong field', () => {
    const issues = validationIssues(() =>
      readProfile(
        profile(
          'id: p\nversion: "1"\nname: [a]\nmission: {a: 1}\naccepted_work: text\nmemory_policy: [x]\nexpected_apps: 3\ninstructions: /abs.md\nskills: [plain]\nartifacts: [{kind: x}]\n',
        ),
      ),
    );
    expect(issues.map((i) => i.loc.slice(1))).toEqual([
      ['instructions'],
      ['name'],
      ['mission'],
      ['accepted_work'],
      ['memory_policy'],
      ['expected_apps'],
      ['skills', 0],
      ['artifacts', 0, 'path'],
    ]);
  });

  it('checks skill and artifact paths with the payload path rules', () => {
    const issues = validationIssues(() => readProfile(profile('id: p\nversion: "1"\nskills: [{path: ../escape.md}]\n')));
    expect(issues).toEqual([{ loc: ['profile.yaml', 'skills', 0, 'path'], msg: 'path must not have "." or ".." segments', type: 'value_error' }]);
  });
});

describe('writeProfileYaml', () => {
  it('round-trips through readProfile with key order, types and multi-line text intact', () => {
    const { document } = readProfile(profile(FULL));
    const doc = { ...document, mission: 'line one\nline two\n', version: '1.0', name: 'yes', extra: 'null' };
    const text = writeProfileYaml(doc);
    const again = readProfile(profile(text));
    expect(again.document).toEqual(doc);
    expect(Object.keys(again.document)).toEqual(Object.keys(doc));
    expect(text.startsWith('id: coder\nversion: "1.0"\nname: "yes"\n')).toBe(true);
  });

  it('is deterministic, block style, and does not fold long lines', () => {
    const long = 'word '.repeat(60).trim();
    const doc = { id: 'p', version: '1', mission: long, accepted_work: ['a', 'b'], memory_policy: { mode: 'm' } };
    const text = writeProfileYaml(doc);
    expect(text).toBe(`id: p\nversion: "1"\nmission: ${long}\naccepted_work:\n  - a\n  - b\nmemory_policy:\n  mode: m\n`);
    expect(writeProfileYaml(doc)).toBe(text);
  });

  it('writes a shared object twice instead of with an anchor', () => {
    const shared = { app: 'tasks' };
    expect(writeProfileYaml({ id: 'p', version: '1', a: shared, b: shared })).not.toMatch(/[&*]/);
  });
});

describe('fieldValue', () => {
  it('returns the value of a present field, null included, and undefined when absent', () => {
    const { document } = readProfile(profile('id: p\nversion: "1"\nmission: null\nname: N\n'));
    expect(fieldValue(document, 'name')).toBe('N');
    expect(fieldValue(document, 'mission')).toBeNull();
    expect(fieldValue(document, 'skills')).toBeUndefined();
  });
});
