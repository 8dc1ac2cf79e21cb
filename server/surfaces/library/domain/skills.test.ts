import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../errors.ts';
import { materializeHome } from './materialize.ts';
import { checkPayloadFiles, contentSha256 } from './payload.ts';
import { readProfile } from './profile-yaml.ts';
import { registerSkills, undeclaredSkills } from './skills.ts';

const files = (entries: Record<string, string>) =>
  checkPayloadFiles(
    Object.entries(entries).map(([path, content_utf8]) => ({ path, content_utf8 })),
    [],
  );
const manifestText = (result: { files: { path: string; content_utf8: string }[] }) => result.files.find((f) => f.path === 'profile.yaml')?.content_utf8;

describe('registerSkills', () => {
  it('appends an entry for each undeclared skills/<n>/SKILL.md, keeping comments, order and the other fields', () => {
    const text = '# Our reviewer\nid: reviewer   # never changes\nversion: 0.2.0\nname: Reviewer\n';
    const result = registerSkills(files({ 'profile.yaml': text, 'skills/b/SKILL.md': '# B\n', 'skills/a/SKILL.md': '# A\n', 'skills/a/ref.md': 'r' }));
    expect(result.registered).toEqual(['skills/a/SKILL.md', 'skills/b/SKILL.md']);
    expect(manifestText(result)).toBe(`${text}skills:\n  - path: skills/a/SKILL.md\n    kind: skill\n  - path: skills/b/SKILL.md\n    kind: skill\n`);
    const manifest = result.files.find((f) => f.path === 'profile.yaml');
    expect(manifest?.sha256).toBe(contentSha256(manifest?.content_utf8 ?? ''));
    expect(result.files.map((f) => f.path)).toEqual(['profile.yaml', 'skills/a/SKILL.md', 'skills/a/ref.md', 'skills/b/SKILL.md']);
  });

  it('adds to a block list, a flow list or a null skills key', () => {
    const block = registerSkills(
      files({
        'profile.yaml': 'id: p\nversion: 1.0.0\nskills:\n  - path: skills/old/SKILL.md\n    kind: playbook\n',
        'skills/old/SKILL.md': 'o',
        'skills/new/SKILL.md': 'n',
      }),
    );
    expect(manifestText(block)).toBe(
      'id: p\nversion: 1.0.0\nskills:\n  - path: skills/old/SKILL.md\n    kind: playbook\n  - path: skills/new/SKILL.md\n    kind: skill\n',
    );
    const flow = registerSkills(files({ 'profile.yaml': 'id: p\nversion: 1.0.0\nskills: []\n', 'skills/new/SKILL.md': 'n' }));
    expect(readProfile(flow.files).manifest.skills).toEqual([{ path: 'skills/new/SKILL.md', kind: 'skill' }]);
    const empty = registerSkills(files({ 'profile.yaml': 'id: p\nversion: 1.0.0\nskills:\n', 'skills/new/SKILL.md': 'n' }));
    expect(readProfile(empty.files).manifest.skills).toEqual([{ path: 'skills/new/SKILL.md', kind: 'skill' }]);
  });

  it('counts a skill as declared when any entry names its directory', () => {
    const input = files({
      'profile.yaml': 'id: p\nversion: 1.0.0\nskills:\n  - {path: skills/x/guide.md}\n',
      'skills/x/SKILL.md': 'x',
      'skills/x/guide.md': 'g',
    });
    expect(undeclaredSkills(input)).toEqual([]);
    const result = registerSkills(input);
    expect(result.registered).toEqual([]);
    expect(result.files).toEqual(input);
  });

  it('leaves what is not a skill directory alone: files beside skills/, deeper SKILL.md files, other folders', () => {
    const input = files({ 'profile.yaml': 'id: p\nversion: 1.0.0\n', 'skills/SKILL.md': 's', 'skills/a/deep/SKILL.md': 'd', 'notes/x/SKILL.md': 'n' });
    expect(registerSkills(input)).toEqual({ files: input, registered: [] });
  });

  it('makes materialize link the skill for claude-code', () => {
    const { files: declared } = registerSkills(files({ 'profile.yaml': 'id: p\nversion: 1.0.0\n', 'skills/triage/SKILL.md': '# Triage\n' }));
    const home = materializeHome({
      files: declared,
      profile_ref: 'p',
      profile_version: '1.0.0',
      profile_digest: `sha256:${'a'.repeat(64)}`,
      source: null,
      runtime_kind: 'claude-code',
      target: 'local',
      library_url: 'http://127.0.0.1:1',
    });
    expect(home.home_files).toContainEqual({ path: '.claude/skills/triage', kind: 'symlink', target: '../../skills/triage' });
  });

  it('refuses (422, at the given location) a profile.yaml that does not read', () => {
    try {
      registerSkills(files({ 'profile.yaml': 'id: p\nversion: 1.0.0\nskills: 3\n', 'skills/a/SKILL.md': 'a' }), ['body', 'files']);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).statusCode).toBe(422);
      expect(JSON.stringify((error as ServiceError).detail)).toContain('"loc":["body","files","profile.yaml","skills"]');
    }
  });
});
