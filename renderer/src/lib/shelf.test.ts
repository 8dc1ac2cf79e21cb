import { describe, expect, it } from 'vitest';
import type { HomeFile, Proposal } from '../api/library.ts';
import {
  assetChange,
  assetField,
  catalogTags,
  changesetAssets,
  deleteConsequence,
  homeTree,
  newFileProblem,
  nextMinorVersion,
  nextPatchVersion,
  ownedBlueprints,
  nextVersionProblem,
  previewTagList,
  tagReadingProblem,
  partLabel,
  refProblem,
  rejectedByRecheck,
  suggestRef,
  shortDigest,
  sortProposals,
  sourceLabel,
  staleReason,
  versionProblem,
} from './shelf.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

describe('versions', () => {
  it('bumps the patch version the way the node does', () => {
    expect(nextPatchVersion('0.1.0')).toBe('0.1.1');
    expect(nextPatchVersion('0.1.13')).toBe('0.1.14');
    expect(nextPatchVersion('1.0.0-rc')).toBe('1.0.0-rc.1');
    expect(nextPatchVersion('2')).toBe('3');
    expect(nextPatchVersion('1.0.99999999999999999999')).toBe('1.0.100000000000000000000');
  });

  it('bumps the minor version for publishing into a blueprint again', () => {
    expect(nextMinorVersion('1.0.0')).toBe('1.1.0');
    expect(nextMinorVersion('1.4.2')).toBe('1.5.0');
    expect(nextMinorVersion('1.9.0')).toBe('1.10.0');
    expect(nextMinorVersion('0.0.7')).toBe('0.1.0');
    expect(nextMinorVersion('2.0.0-rc.1')).toBe('2.1.0');
    expect(nextMinorVersion('1.2.3+build.5')).toBe('1.3.0');
    expect(nextMinorVersion('1.2')).toBe('1.3');
    expect(nextMinorVersion('1.2.3.4')).toBe('1.3.0.0');
    expect(nextMinorVersion('3')).toBe('3.1');
    // No numeric minor: the next patch version, still newer.
    expect(nextMinorVersion('1.x.0')).toBe('1.x.1');
    expect(nextMinorVersion('2024.spring')).toBe('2024.spring.1');
  });

  it('explains a version that cannot be one', () => {
    expect(versionProblem('0.2.0')).toBeNull();
    expect(versionProblem('')).toMatch(/Enter a version/);
    expect(versionProblem('v1')).toMatch(/^"v1" is not a version: .*starting with a digit/);
    expect(versionProblem('banana')).toMatch(/^"banana" is not a version/);
  });

  it('checks a next version as the node does: its shape, then that it is newer than the latest', () => {
    expect(nextVersionProblem('0.2.0', '0.1.1')).toBeNull();
    expect(nextVersionProblem(' 0.1.10 ', '0.1.9')).toBeNull();
    expect(nextVersionProblem('banana', '0.1.1')).toMatch(/^"banana" is not a version/);
    expect(nextVersionProblem('0.0.9', '0.1.1')).toBe('Version 0.0.9 must be newer than the latest version 0.1.1.');
    expect(nextVersionProblem('0.1.1', '0.1.1')).toBe('Version 0.1.1 must be newer than the latest version 0.1.1.');
    expect(nextVersionProblem('0.0.1', null)).toBeNull();
  });
});

describe('words', () => {
  it('names merge parts', () => {
    expect(partLabel('field:mission')).toEqual({ name: 'mission', kind: 'profile.yaml field' });
    expect(partLabel('file:skills/x/SKILL.md')).toEqual({ name: 'skills/x/SKILL.md', kind: 'file' });
  });

  it('names the source pin', () => {
    expect(sourceLabel({ source_blueprint_ref: 'support.team', source_blueprint_version: '1.0.0' })).toBe('support.team v1.0.0');
    expect(sourceLabel({ source_blueprint_ref: null, source_blueprint_version: null })).toBeNull();
  });

  it('shortens digests', () => {
    expect(shortDigest(D1)).toBe('sha256:11111111…1111');
    expect(shortDigest('other')).toBe('other');
  });
});

describe('deleteConsequence', () => {
  it('says what goes with the profile, leaving out what it does not have', () => {
    expect(deleteConsequence('writer', { versions: 1, bindings: 0, proposals: 0 })).toBe('writer and its 1 version are deleted; this cannot be undone.');
    expect(deleteConsequence('triager', { versions: 4, bindings: 1, proposals: 3 })).toBe(
      'triager and its 4 versions, 1 binding and 3 proposals are deleted; this cannot be undone.',
    );
    expect(deleteConsequence('x', { versions: 2, bindings: 0, proposals: 1 })).toBe('x and its 2 versions and 1 proposal are deleted; this cannot be undone.');
  });
});

describe('refs', () => {
  it('checks an id the way the node does, suggesting the lower-case form', () => {
    expect(refProblem('code-reviewer', 'code-reviewer')).toBeNull();
    expect(refProblem('support.team_2', 'x')).toBeNull();
    expect(refProblem(' ', 'code-reviewer')).toBe('Enter an id, for example code-reviewer.');
    expect(refProblem('Reviewer', 'x')).toMatch(/^"Reviewer" cannot be an id \(perhaps reviewer\): use lower-case letters/);
    expect(refProblem('code reviewer', 'x')).toMatch(/^"code reviewer" cannot be an id: /);
    expect(refProblem('-lead', 'x')).toMatch(/starting with a letter or digit/);
    expect(refProblem('a'.repeat(129), 'x')).toMatch(/at most 128/);
  });

  it('suggests an id from a name', () => {
    expect(suggestRef('Code Reviewer (v2)')).toBe('code-reviewer-v2');
    expect(suggestRef('  Crème brûlée bot ')).toBe('creme-brulee-bot');
    expect(suggestRef('support.desk_2')).toBe('support.desk_2');
    expect(suggestRef('--Lead--')).toBe('lead');
    expect(suggestRef('日本')).toBe('');
    expect(refProblem(suggestRef('x'.repeat(200)), 'x')).toBeNull();
  });
});

describe('tags', () => {
  it('reads a tags field as the node will: commas separate, "Code Review" stays one tag, code-review, as "CI" is ci', () => {
    expect(previewTagList('')).toEqual({ readings: [], tags: [], problem: null });
    const preview = previewTagList(' Support, Email,,support\nops ');
    expect(preview.tags).toEqual(['support', 'email', 'ops']);
    expect(preview.problem).toBeNull();
    expect(preview.readings.map((r) => r.tag)).toEqual(['support', 'email', 'support', 'ops']);
    const spaced = previewTagList('CI, Shipping Tools');
    expect(spaced.tags).toEqual(['ci', 'shipping-tools']);
    expect(spaced.problem).toBeNull();
    const refused = previewTagList('email, C++');
    expect(refused.tags).toEqual(['email']);
    expect(refused.readings.map((r) => r.tag)).toEqual(['email', 'c++']);
    expect(refused.problem).toBe('Tag "c++" may only use a-z, 0-9, ".", "_" and "-"; perhaps c.');
    expect(previewTagList('no/slash').problem).toBe('Tag "no/slash" may only use a-z, 0-9, ".", "_" and "-"; perhaps no-slash.');
    expect(previewTagList(Array.from({ length: 33 }, (_, i) => `t${i}`).join(',')).problem).toBe('At most 32 tags are allowed (got 33).');
  });

  it('words a refused tag without a suggestion when none is close', () => {
    expect(tagReadingProblem({ typed: '✨', tag: '✨', problem: 'tag "✨" may only use a-z, 0-9, ".", "_" and "-"', suggestion: null })).toBe(
      'Tag "✨" may only use a-z, 0-9, ".", "_" and "-".',
    );
    expect(tagReadingProblem({ typed: 'ok', tag: 'ok', problem: null, suggestion: null })).toBeNull();
  });

  it('collects the catalog tags', () => {
    const blueprint = (tags: string[]) => ({ tags }) as never;
    expect(catalogTags([blueprint(['support', 'email']), blueprint(['research', 'support'])])).toEqual(['email', 'research', 'support']);
  });
});

describe('ownedBlueprints', () => {
  it('keeps the blueprints the team owns, by name', () => {
    const blueprint = (blueprint_ref: string, name: string, owner: string) => ({ blueprint_ref, name, owner }) as never;
    const list = [
      blueprint('z.team', 'Alpha', 'agents:acme.test'),
      blueprint('other', 'Beta', 'ops:acme.test'),
      blueprint('a.team', 'Alpha', 'agents:acme.test'),
    ];
    expect(ownedBlueprints(list, 'agents:acme.test').map((b) => (b as { blueprint_ref: string }).blueprint_ref)).toEqual(['a.team', 'z.team']);
    expect(ownedBlueprints(list, null)).toEqual([]);
  });
});

describe('proposal changesets', () => {
  it('reads the assets of a changeset, and nothing else', () => {
    const assets = [{ path: 'profile.yaml#mission', content: 'M.' }];
    expect(changesetAssets({ schema: 'svc.library.profile-asset-changeset.v1', assets })).toEqual(assets);
    expect(changesetAssets({ note: 'remember this' })).toBeNull();
    expect(changesetAssets({ assets: [{ content: 'no path' }] })).toBeNull();
    expect(changesetAssets('text')).toBeNull();
  });

  it('tells field assets from files and what each change does', () => {
    expect(assetField('profile.yaml#mission')).toBe('mission');
    expect(assetField('instructions.md')).toBeNull();
    const digests = { 'instructions.md': D1 };
    expect(assetChange({ path: 'instructions.md', content_utf8: 'x', base_asset_digest: D1 }, digests)).toBe('changed');
    expect(assetChange({ path: 'notes.md', content_utf8: 'x' }, digests)).toBe('added');
    expect(assetChange({ path: 'instructions.md', delete: true, base_asset_digest: D1 }, digests)).toBe('deleted');
  });

  it('spots a base that is no longer current, as the approval recheck will', () => {
    const digests = { 'instructions.md': D1 };
    expect(staleReason({ path: 'instructions.md', content_utf8: 'x', base_asset_digest: D1 }, digests)).toBeNull();
    expect(staleReason({ path: 'instructions.md', content_utf8: 'x', base_asset_digest: D2 }, digests)).toMatch(/changed since/);
    expect(staleReason({ path: 'instructions.md', content_utf8: 'x' }, digests)).toMatch(/created since/);
    expect(staleReason({ path: 'notes.md', content_utf8: 'x' }, digests)).toBeNull();
    expect(staleReason({ path: 'notes.md', content_utf8: 'x', base_asset_digest: D2 }, digests)).toMatch(/removed since/);
    expect(staleReason({ path: 'gone.md', delete: true, base_asset_digest: D2 }, digests)).toMatch(/no longer exists/);
  });

  it('sorts open proposals first, then newest first, and spots a recheck rejection', () => {
    const p = (id: string, status: Proposal['status'], at: string, reason: string | null = null) =>
      ({ proposal_id: id, status, created_at: at, decision_reason: reason }) as Proposal;
    const sorted = sortProposals([p('a', 'approved', '2026-01-03'), p('b', 'open', '2026-01-01'), p('c', 'open', '2026-01-02')]);
    expect(sorted.map((x) => x.proposal_id)).toEqual(['c', 'b', 'a']);
    expect(rejectedByRecheck(p('d', 'rejected', '', 'Rejected by the approval recheck: stale'))).toBe(true);
    expect(rejectedByRecheck(p('e', 'rejected', ''))).toBe(false);
    expect(rejectedByRecheck(undefined)).toBe(false);
  });
});

describe('homeTree', () => {
  it('lists directories before files, each directory before its entries, symlinks marked', () => {
    const files: HomeFile[] = [
      { path: '.claude/skills/triage', kind: 'symlink', target: '../../skills/triage' },
      { path: '.svc/profile/instructions.md', kind: 'file', content_utf8: 'x' },
      { path: '.svc/profile/ref.json', kind: 'file', content_utf8: '{}' },
      { path: 'AGENTS.md', kind: 'file', content_utf8: '# A' },
      { path: 'CLAUDE.md', kind: 'symlink', target: 'AGENTS.md' },
      { path: 'skills/triage/SKILL.md', kind: 'file', content_utf8: '# T' },
    ];
    expect(homeTree(files).map((r) => `${'  '.repeat(r.depth)}${r.name}${r.kind === 'dir' ? '/' : ''}${r.target ? ` -> ${r.target}` : ''}`)).toEqual([
      '.claude/',
      '  skills/',
      '    triage -> ../../skills/triage',
      '.svc/',
      '  profile/',
      '    instructions.md',
      '    ref.json',
      'skills/',
      '  triage/',
      '    SKILL.md',
      'AGENTS.md',
      'CLAUDE.md -> AGENTS.md',
    ]);
    expect(homeTree(files).find((r) => r.name === 'SKILL.md')?.path).toBe('skills/triage/SKILL.md');
  });
});

describe('newFileProblem', () => {
  const paths = ['instructions.md', 'profile.yaml'];

  it('takes a new relative path', () => {
    expect(newFileProblem('skills/review/SKILL.md', paths)).toBeNull();
  });

  it('says what is wrong with an empty, absolute, dotted or taken path', () => {
    expect(newFileProblem('', paths)).toBe('Type a path, for example skills/review/SKILL.md.');
    for (const path of ['/etc/passwd', 'notes//style.md', './x.md', 'skills/../x.md', 'notes/']) {
      expect(newFileProblem(path, paths), path).toBe('Use a relative path without "..", for example notes/style.md.');
    }
    expect(newFileProblem('instructions.md', paths)).toBe('instructions.md is already in this profile.');
  });
});
