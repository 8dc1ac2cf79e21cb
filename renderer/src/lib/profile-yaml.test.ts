import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { profileFieldText, profileVersionOf, ProfileYamlError, renderFieldValue, setProfileVersion, starterProfileFiles } from './profile-yaml.ts';

const PROFILE = `# The triager
id: triager
version: 0.1.0
name: Triager
mission: Sort incoming requests.
accepted_work:
  - triage
  - routing
memory_policy:
  mode: reviewed-learning
`;

describe('setProfileVersion', () => {
  it('changes only the version, keeping comments and order', () => {
    const next = setProfileVersion(PROFILE, '0.1.1');
    expect(next).toBe(PROFILE.replace('version: 0.1.0', 'version: 0.1.1'));
    expect(profileVersionOf(next)).toBe('0.1.1');
  });

  it('quotes a version that YAML would read as a number', () => {
    const next = setProfileVersion(PROFILE, '2.0');
    expect(next).toContain('version: "2.0"');
    expect(profileVersionOf(next)).toBe('2.0');
  });

  it('adds a missing version', () => {
    expect(profileVersionOf(setProfileVersion('id: x\n', '1.0.0'))).toBe('1.0.0');
  });

  it('says in words why it cannot', () => {
    expect(() => setProfileVersion('id: [unclosed\n', '1.0.0')).toThrow(ProfileYamlError);
    expect(() => setProfileVersion('id: [unclosed\n', '1.0.0')).toThrow(/profile\.yaml does not parse/);
    expect(() => setProfileVersion('- a\n- b\n', '1.0.0')).toThrow(/mapping/);
  });
});

describe('field text for review', () => {
  it('renders strings as they are and structures as YAML', () => {
    expect(profileFieldText(PROFILE, 'mission')).toBe('Sort incoming requests.\n');
    expect(profileFieldText(PROFILE, 'accepted_work')).toBe('- triage\n- routing\n');
    expect(profileFieldText(PROFILE, 'memory_policy')).toBe('mode: reviewed-learning\n');
    expect(profileFieldText(PROFILE, 'approval_required')).toBeNull();
    expect(profileFieldText('not: [valid', 'mission')).toBeNull();
  });

  it('renders proposed values the same way', () => {
    expect(renderFieldValue('A sharper mission.')).toBe('A sharper mission.\n');
    expect(renderFieldValue(['triage', 'routing'])).toBe('- triage\n- routing\n');
    expect(renderFieldValue(undefined)).toBeNull();
    expect(renderFieldValue(null)).toBe('null\n');
  });
});

describe('starterProfileFiles', () => {
  it('writes profile.yaml (id, version 0.1.0, name, mission, instructions) and a heading for instructions.md', () => {
    const files = starterProfileFiles({ id: ' reviewer ', name: ' Code reviewer ', mission: 'Review every pull request: twice.' });
    expect(files.map((f) => f.path)).toEqual(['profile.yaml', 'instructions.md']);
    expect(files[0]?.content_utf8).toBe(
      'id: reviewer\nversion: 0.1.0\nname: Code reviewer\nmission: "Review every pull request: twice."\ninstructions: instructions.md\n',
    );
    expect(files[1]?.content_utf8).toBe('# Code reviewer\n');
  });

  it('quotes what YAML would read as something else, and leaves out an empty mission', () => {
    const [manifest] = starterProfileFiles({ id: '123', name: 'yes', mission: ' ' });
    expect(parse(manifest?.content_utf8 ?? '')).toEqual({ id: '123', version: '0.1.0', name: 'yes', instructions: 'instructions.md' });
    const [multi] = starterProfileFiles({ id: 'a', name: 'A', mission: 'Line one.\nLine two.' });
    expect(parse(multi?.content_utf8 ?? '').mission).toBe('Line one.\nLine two.');
    expect(profileVersionOf(multi?.content_utf8 ?? '')).toBe('0.1.0');
  });
});
