import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { partDigests } from './digest.ts';
import { mergeFromSource } from './merge.ts';
import { payloadFile, sortFiles, type PayloadFile } from './payload.ts';
import { readProfile, writeProfileYaml } from './profile-yaml.ts';

const BASE_FIELDS: Record<string, JsonValue> = {
  id: 'coder',
  version: '0.1.0',
  name: 'Coder',
  scope: 'local',
  mission: 'Ship changes.',
  accepted_work: ['implementation'],
  instructions: 'instructions.md',
  approval_required: ['deploys'],
  skills: [{ path: 'skills/impl/SKILL.md', kind: 'skill' }],
  artifacts: [{ path: 'artifacts/checklist.md', kind: 'artifact' }],
};
const BASE_FILES: Record<string, string> = {
  'instructions.md': 'Work carefully.\n',
  'skills/impl/SKILL.md': 'implement',
  'artifacts/checklist.md': '- [ ] tests\n',
};

function profile(fields: Record<string, JsonValue | undefined> = {}, files: Record<string, string | null> = {}): PayloadFile[] {
  const doc = Object.fromEntries(Object.entries({ ...BASE_FIELDS, ...fields }).filter(([, v]) => v !== undefined)) as Record<string, JsonValue>;
  const contents = { ...BASE_FILES, ...files };
  return sortFiles([
    payloadFile('profile.yaml', writeProfileYaml(doc)),
    ...Object.entries(contents).flatMap(([path, text]) => (text === null ? [] : [payloadFile(path, text)])),
  ]);
}

const base = profile();
const baselines = partDigests(base);
const merge = (ours: PayloadFile[], theirs: PayloadFile[], targetVersion = '0.2.0') => mergeFromSource({ ours, theirs, baselines, targetVersion });
const content = (files: PayloadFile[], path: string) => files.find((f) => f.path === path)?.content_utf8;
const doc = (files: PayloadFile[]) => readProfile(files).document;

describe('mergeFromSource', () => {
  it('takes an un-evolved field and keeps an evolved file (the A6 example)', () => {
    const ours = profile({}, { 'instructions.md': 'Local lesson learned.\n' });
    const theirs = profile({ version: '0.2.0', mission: 'Ship reviewed changes.' }, { 'instructions.md': 'Upstream rewrite.\n' });
    const result = merge(ours, theirs);
    expect(result.updated_parts).toEqual(['field:mission']);
    expect(result.preserved_parts).toEqual(['file:instructions.md']);
    expect(content(result.files, 'instructions.md')).toBe('Local lesson learned.\n');
    const merged = doc(result.files);
    expect(merged).toMatchObject({ id: 'coder', version: '0.2.0', mission: 'Ship reviewed changes.', name: 'Coder', scope: 'local' });
    expect(Object.keys(merged)).toEqual(Object.keys(doc(ours)));
  });

  it('adds a new upstream file and lists it with the kind upstream declared', () => {
    const theirs = profile(
      {
        skills: [
          { path: 'skills/impl/SKILL.md', kind: 'skill' },
          { path: 'skills/triage/SKILL.md', kind: 'workflow' },
        ],
      },
      { 'skills/triage/SKILL.md': 'triage' },
    );
    const result = merge(profile(), theirs);
    expect(result.updated_parts).toEqual(['file:skills/triage/SKILL.md']);
    expect(content(result.files, 'skills/triage/SKILL.md')).toBe('triage');
    expect(doc(result.files).skills).toEqual([
      { path: 'skills/impl/SKILL.md', kind: 'skill' },
      { path: 'skills/triage/SKILL.md', kind: 'workflow' },
    ]);
  });

  it('lists a multi-file skill once, by its SKILL.md', () => {
    const result = merge(profile(), profile({}, { 'skills/triage/SKILL.md': 'triage', 'skills/triage/reference.md': 'ref' }));
    expect(result.updated_parts).toEqual(['file:skills/triage/SKILL.md', 'file:skills/triage/reference.md']);
    expect(doc(result.files).skills).toEqual([
      { path: 'skills/impl/SKILL.md', kind: 'skill' },
      { path: 'skills/triage/SKILL.md', kind: 'skill' },
    ]);
  });

  it('carries the kind from ours before theirs', () => {
    const ours = profile({ skills: [{ path: 'skills/impl/SKILL.md', kind: 'core' }] });
    const theirs = profile({ mission: 'New.', skills: [{ path: 'skills/impl/SKILL.md', kind: 'skill' }] });
    expect(doc(merge(ours, theirs).files).skills).toEqual([{ path: 'skills/impl/SKILL.md', kind: 'core' }]);
  });

  it('removes a file upstream deleted when ours never changed it, and unlists it', () => {
    const result = merge(profile(), profile({ artifacts: [] }, { 'artifacts/checklist.md': null }));
    expect(result.updated_parts).toEqual(['file:artifacts/checklist.md']);
    expect(result.files.map((f) => f.path)).not.toContain('artifacts/checklist.md');
    expect(doc(result.files).artifacts).toEqual([]);
  });

  it('preserves a local deletion, whether or not upstream changed the file', () => {
    const ours = profile({ artifacts: [] }, { 'artifacts/checklist.md': null });
    const unchangedUpstream = merge(ours, profile({ mission: 'New.' }));
    expect(unchangedUpstream).toMatchObject({ updated_parts: ['field:mission'], preserved_parts: [] });
    expect(unchangedUpstream.files.map((f) => f.path)).not.toContain('artifacts/checklist.md');

    const changedUpstream = merge(ours, profile({ mission: 'New.' }, { 'artifacts/checklist.md': '- [ ] lint\n' }));
    expect(changedUpstream).toMatchObject({ updated_parts: ['field:mission'], preserved_parts: ['file:artifacts/checklist.md'] });
    expect(changedUpstream.files.map((f) => f.path)).not.toContain('artifacts/checklist.md');
  });

  it('removes a field upstream dropped when ours never changed it', () => {
    const result = merge(profile(), profile({ approval_required: undefined }));
    expect(result.updated_parts).toEqual(['field:approval_required']);
    expect(Object.hasOwn(doc(result.files), 'approval_required')).toBe(false);
  });

  it('keeps name and instructions ours, and ignores a change both sides made identically', () => {
    const ours = profile({ accepted_work: ['implementation', 'reviews'] });
    const theirs = profile({ name: 'Upstream name', instructions: 'other.md', mission: 'New.', accepted_work: ['implementation', 'reviews'] });
    const result = merge(ours, theirs);
    expect(result.updated_parts).toEqual(['field:mission']);
    expect(result.preserved_parts).toEqual([]);
    expect(doc(result.files)).toMatchObject({ name: 'Coder', instructions: 'instructions.md', accepted_work: ['implementation', 'reviews'] });
  });

  it('keeps ours for a part the baselines do not know', () => {
    const { 'field:mission': _dropped, ...partial } = baselines;
    const result = mergeFromSource({
      ours: profile({ mission: 'Mine.' }),
      theirs: profile({ mission: 'Theirs.' }),
      baselines: partial,
      targetVersion: '0.2.0',
    });
    expect(result).toMatchObject({ updated_parts: [], preserved_parts: ['field:mission'] });
  });

  it('is a no-op returning ours unchanged when upstream did not change', () => {
    const ours = profile({ mission: 'Evolved locally.' }, { 'instructions.md': 'Mine.\n' });
    expect(merge(ours, base)).toEqual({ files: ours, updated_parts: [], preserved_parts: [] });
  });

  it('is a no-op when every upstream change is to a part ours evolved too', () => {
    const ours = profile({ mission: 'Mine.' });
    const result = merge(ours, profile({ mission: 'Theirs.' }));
    expect(result).toEqual({ files: ours, updated_parts: [], preserved_parts: ['field:mission'] });
  });

  it('refuses a target version that cannot be written (422)', () => {
    expect(() => merge(profile(), profile({ mission: 'New.' }), 'not a version')).toThrow(/version/);
  });
});
