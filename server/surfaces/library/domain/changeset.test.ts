import { describe, expect, it } from 'vitest';
import { ServiceError, type ValidationIssue } from '../../../errors.ts';
import { applyChangeset, parseChangeset, type ChangeAsset } from './changeset.ts';
import { CHANGESET_SCHEMA, proposalAssetDigests } from './digest.ts';
import { contentSha256, payloadFile, sortFiles, type PayloadFile } from './payload.ts';
import { readProfile } from './profile-yaml.ts';

const FILES: PayloadFile[] = sortFiles([
  payloadFile(
    'profile.yaml',
    'id: coder\nversion: 0.1.0\nname: Coder\nmission: Ship changes.\ninstructions: instructions.md\nskills:\n  - path: skills/impl/SKILL.md\n    kind: skill\n',
  ),
  payloadFile('instructions.md', 'Work carefully.\n'),
  payloadFile('skills/impl/SKILL.md', 'implement'),
  payloadFile('notes.md', 'notes'),
]);
const BASES = proposalAssetDigests(FILES);
const OPTIONS = { profileRef: 'coder', version: '0.1.1' };
const OTHER_DIGEST = `sha256:${'0'.repeat(64)}`;

const changeset = (...assets: unknown[]) => ({ schema: CHANGESET_SCHEMA, assets });
const apply = (...assets: ChangeAsset[]) => applyChangeset(FILES, parseChangeset(changeset(...assets)), OPTIONS);

function failure(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

function issuesOf(content: unknown): ValidationIssue[] {
  const err = failure(() => parseChangeset(content));
  expect(err.statusCode).toBe(422);
  expect(err.code).toBe('SVC_ERR_VALIDATION');
  if (typeof err.detail === 'string') throw new Error(`expected a list of issues, got "${err.detail}"`);
  return err.detail;
}

/** The single issue one bad asset produces: [loc after the asset index, msg]. */
function assetIssue(asset: unknown): [(string | number)[], string] {
  const issues = issuesOf(changeset(asset));
  expect(issues).toHaveLength(1);
  expect(issues[0]?.loc.slice(0, 4)).toEqual(['body', 'content', 'assets', 0]);
  return [issues[0]!.loc.slice(4), issues[0]!.msg];
}

function conflictOf(fn: () => unknown): string {
  const err = failure(fn);
  expect(err.statusCode).toBe(409);
  return err.detail as string;
}

describe('parseChangeset', () => {
  it('returns the assets with only the keys they use', () => {
    const parsed = parseChangeset(
      changeset(
        { path: 'profile.yaml#mission', content: 'New', base_asset_digest: BASES['profile.yaml#mission'] },
        { path: 'notes.md', delete: true, base_asset_digest: BASES['notes.md'] },
        { path: 'new.md', content_utf8: 'x', delete: false },
        { path: 'profile.yaml#memory_policy', content: null },
      ),
    );
    expect(parsed).toEqual({
      schema: CHANGESET_SCHEMA,
      assets: [
        { path: 'profile.yaml#mission', content: 'New', base_asset_digest: BASES['profile.yaml#mission'] },
        { path: 'notes.md', delete: true, base_asset_digest: BASES['notes.md'] },
        { path: 'new.md', content_utf8: 'x' },
        { path: 'profile.yaml#memory_policy', content: null },
      ],
    });
  });

  it('requires an object with the schema literal and only schema and assets', () => {
    expect(issuesOf('text')).toEqual([{ loc: ['body', 'content'], msg: 'content must be a changeset object {schema, assets}', type: 'dict_type' }]);
    expect(issuesOf([changeset()])[0]?.loc).toEqual(['body', 'content']);
    const issues = issuesOf({ schema: 'aweb.library.profile-asset-changeset.v1', assets: [{ path: 'a.md', content_utf8: 'x' }], note: 1 });
    expect(issues.map((i) => i.loc)).toEqual([
      ['body', 'content', 'note'],
      ['body', 'content', 'schema'],
    ]);
  });

  it('requires a non-empty assets list of at most 200', () => {
    expect(issuesOf(changeset())[0]).toEqual({ loc: ['body', 'content', 'assets'], msg: 'assets must be a non-empty list', type: 'value_error' });
    expect(issuesOf({ schema: CHANGESET_SCHEMA })[0]?.loc).toEqual(['body', 'content', 'assets']);
    const many = Array.from({ length: 201 }, (_, i) => ({ path: `f${i}.md`, content_utf8: 'x' }));
    expect(issuesOf(changeset(...many))[0]?.msg).toBe('at most 200 assets per changeset (got 201)');
    expect(parseChangeset(changeset(...many.slice(0, 200))).assets).toHaveLength(200);
  });

  it.each([
    ['not an object', 'x', [], /must be an object/],
    ['an unknown key', { path: 'a.md', content_utf8: 'x', mode: 'w' }, ['mode'], /unknown field mode/],
    ['no path', { content_utf8: 'x' }, ['path'], /non-empty string/],
    ['an empty path', { path: '', content_utf8: 'x' }, ['path'], /non-empty string/],
    ['a non-string path', { path: 3, content_utf8: 'x' }, ['path'], /non-empty string/],
    ['bare profile.yaml', { path: 'profile.yaml', content_utf8: 'id: x' }, ['path'], /profile\.yaml#<field>/],
    ['profile.yaml#id', { path: 'profile.yaml#id', content: 'other' }, ['path'], /"id" is not a profile\.yaml field asset/],
    ['profile.yaml#version', { path: 'profile.yaml#version', content: '9' }, ['path'], /"version" is not/],
    ['an unknown field', { path: 'profile.yaml#scope', content: 'x' }, ['path'], /"scope" is not/],
    ['a .. segment', { path: '../escape.md', content_utf8: 'x' }, ['path'], /"\.\."/],
    ['an absolute path', { path: '/etc/x', content_utf8: 'x' }, ['path'], /relative/],
    ['a secret file', { path: '.env', content_utf8: 'x' }, ['path'], /secrets/],
    ['a file without content_utf8', { path: 'a.md' }, ['content_utf8'], /needs content_utf8/],
    ['a file with content', { path: 'a.md', content_utf8: 'x', content: 'x' }, ['content'], /takes content_utf8/],
    ['a non-string content_utf8', { path: 'a.md', content_utf8: 5 }, ['content_utf8'], /must be a string/],
    ['content_utf8 with U+2028', { path: 'a.md', content_utf8: 'a\u2028b' }, ['content_utf8'], /U\+2028/],
    ['a field without content', { path: 'profile.yaml#mission' }, ['content'], /needs content/],
    ['a field with content_utf8', { path: 'profile.yaml#mission', content: 'a', content_utf8: 'a' }, ['content_utf8'], /takes content/],
    ['a field with a float', { path: 'profile.yaml#memory_policy', content: { ratio: 0.5 } }, ['content', 'ratio'], /whole/],
    ['a non-boolean delete', { path: 'a.md', content_utf8: 'x', delete: 'yes' }, ['delete'], /true or false/],
    ['delete with content_utf8', { path: 'a.md', delete: true, content_utf8: 'x' }, ['delete'], /cannot be combined/],
    ['delete with content', { path: 'profile.yaml#mission', delete: true, content: 'x' }, ['delete'], /cannot be combined/],
    ['a malformed base', { path: 'a.md', content_utf8: 'x', base_asset_digest: 'sha256:ABC' }, ['base_asset_digest'], /64 lowercase hex/],
    ['a non-string base', { path: 'a.md', content_utf8: 'x', base_asset_digest: 1 }, ['base_asset_digest'], /64 lowercase hex/],
  ])('refuses an asset with %s (422)', (_, asset, loc, msg) => {
    const [at, text] = assetIssue(asset);
    expect(at).toEqual(loc);
    expect(text).toMatch(msg);
  });
});

describe('applyChangeset: stale rules (409)', () => {
  it('refuses deleting an asset that does not exist', () => {
    expect(conflictOf(() => apply({ path: 'ghost.md', delete: true }))).toBe('ghost.md cannot be deleted: it does not exist');
    expect(conflictOf(() => apply({ path: 'profile.yaml#approval_required', delete: true }))).toMatch(
      /profile\.yaml#approval_required cannot be deleted: it does not exist/,
    );
  });

  it('refuses a base for an asset that does not exist', () => {
    expect(conflictOf(() => apply({ path: 'ghost.md', content_utf8: 'x', base_asset_digest: OTHER_DIGEST }))).toBe('ghost.md is stale; it does not exist');
    expect(conflictOf(() => apply({ path: 'profile.yaml#accepted_work', content: ['x'], base_asset_digest: OTHER_DIGEST }))).toMatch(
      /stale; it does not exist/,
    );
  });

  it('refuses creating an asset that already exists', () => {
    expect(conflictOf(() => apply({ path: 'notes.md', content_utf8: 'x' }))).toMatch(/^notes\.md already exists/);
    expect(conflictOf(() => apply({ path: 'profile.yaml#mission', content: 'x' }))).toMatch(/^profile\.yaml#mission already exists/);
  });

  it('refuses a base that is not the current digest', () => {
    expect(conflictOf(() => apply({ path: 'notes.md', content_utf8: 'x', base_asset_digest: OTHER_DIGEST }))).toBe(
      `notes.md is stale: its current digest is ${BASES['notes.md']}`,
    );
    // A file's sha256 is not the base of a field: fields have their own digest.
    const fileDigestAsBase = { path: 'profile.yaml#mission', content: 'x', base_asset_digest: BASES['profile.yaml'] };
    expect(conflictOf(() => apply(fileDigestAsBase))).toMatch(/profile\.yaml#mission is stale/);
    expect(failure(() => apply(fileDigestAsBase)).code).toBe('SVC_ERR_PROPOSAL_BASE_STALE');
  });

  it('names every stale asset in one 409', () => {
    const detail = conflictOf(() => apply({ path: 'notes.md', content_utf8: 'x' }, { path: 'ghost.md', delete: true }));
    expect(detail).toMatch(/notes\.md already exists.*; ghost\.md cannot be deleted/);
    expect(failure(() => apply({ path: 'notes.md', content_utf8: 'x' }, { path: 'ghost.md', delete: true })).code).toBe('SVC_ERR_PROPOSAL_BASE_STALE');
  });

  it('accepts creating without a base, and changing or deleting with the current base', () => {
    const out = apply(
      { path: 'todo.md', content_utf8: 'todo' },
      { path: 'profile.yaml#expected_apps', content: ['mail'] },
      { path: 'notes.md', delete: true, base_asset_digest: BASES['notes.md'] },
      { path: 'instructions.md', content_utf8: 'Better.\n', base_asset_digest: BASES['instructions.md'] },
      { path: 'profile.yaml#mission', delete: true, base_asset_digest: BASES['profile.yaml#mission'] },
    );
    expect(out.map((f) => f.path)).toEqual(['instructions.md', 'profile.yaml', 'skills/impl/SKILL.md', 'todo.md']);
    const { document } = readProfile(out);
    expect(document.expected_apps).toEqual(['mail']);
    expect(Object.hasOwn(document, 'mission')).toBe(false);
  });
});

describe('applyChangeset: collisions (409)', () => {
  it('refuses two assets with the same path', () => {
    const detail = conflictOf(() =>
      apply(
        { path: 'todo.md', content_utf8: 'a' },
        { path: 'todo.md', content_utf8: 'b' },
        { path: 'profile.yaml#mission', content: 'x', base_asset_digest: BASES['profile.yaml#mission'] },
      ),
    );
    expect(detail).toBe('Colliding changes: todo.md is changed more than once');
    expect(conflictOf(() => apply({ path: 'profile.yaml#name', delete: true }, { path: 'profile.yaml#name', content: 'N' }))).toMatch(
      /profile\.yaml#name is changed more than once/,
    );
  });

  it('checks collisions before bases', () => {
    expect(conflictOf(() => apply({ path: 'notes.md', content_utf8: 'a' }, { path: 'notes.md', content_utf8: 'b' }))).toMatch(/^Colliding changes/);
    expect(failure(() => apply({ path: 'notes.md', content_utf8: 'a' }, { path: 'notes.md', content_utf8: 'b' })).code).toBe(
      'SVC_ERR_PROPOSAL_CHANGES_COLLIDE',
    );
  });

  it('refuses deleting the file profile.yaml#instructions names', () => {
    expect(conflictOf(() => apply({ path: 'instructions.md', delete: true, base_asset_digest: BASES['instructions.md'] }))).toBe(
      'Colliding changes: instructions.md cannot be deleted: profile.yaml#instructions names it',
    );
  });

  it('judges instructions by the resulting field: moving it frees the old file, naming a deleted one collides', () => {
    const moved = apply(
      { path: 'profile.yaml#instructions', content: 'notes.md', base_asset_digest: BASES['profile.yaml#instructions'] },
      { path: 'instructions.md', delete: true, base_asset_digest: BASES['instructions.md'] },
    );
    expect(readProfile(moved).manifest.instructions).toBe('notes.md');
    expect(moved.map((f) => f.path)).not.toContain('instructions.md');
    expect(
      conflictOf(() =>
        apply(
          { path: 'profile.yaml#instructions', content: 'notes.md', base_asset_digest: BASES['profile.yaml#instructions'] },
          { path: 'notes.md', delete: true, base_asset_digest: BASES['notes.md'] },
        ),
      ),
    ).toMatch(/notes\.md cannot be deleted: profile\.yaml#instructions names it/);
  });

  it('refuses a skills or artifacts entry whose file will not exist', () => {
    const newEntry = { path: 'profile.yaml#artifacts', content: [{ path: 'artifacts/plan.md', kind: 'artifact' }] };
    expect(conflictOf(() => apply(newEntry))).toBe('Colliding changes: profile.yaml#artifacts lists artifacts/plan.md, which will not exist');
    const deleteListed = { path: 'skills/impl/SKILL.md', delete: true, base_asset_digest: BASES['skills/impl/SKILL.md'] };
    expect(conflictOf(() => apply(deleteListed))).toBe('Colliding changes: profile.yaml#skills lists skills/impl/SKILL.md, which will not exist');
  });

  it('does not blame a changeset for an entry that already dangled', () => {
    const dangling = FILES.filter((f) => f.path !== 'skills/impl/SKILL.md');
    const out = applyChangeset(dangling, parseChangeset(changeset({ path: 'todo.md', content_utf8: 'x' })), OPTIONS);
    expect(out.map((f) => f.path)).toContain('todo.md');
  });
});

describe('applyChangeset: result', () => {
  it('creates a skill atomically: its SKILL.md plus the profile.yaml#skills entry', () => {
    const out = apply(
      { path: 'skills/triage/SKILL.md', content_utf8: '# Triage\n' },
      {
        path: 'profile.yaml#skills',
        content: [
          { path: 'skills/impl/SKILL.md', kind: 'skill' },
          { path: 'skills/triage/SKILL.md', kind: 'skill' },
        ],
        base_asset_digest: BASES['profile.yaml#skills'],
      },
    );
    expect(out.map((f) => f.path)).toEqual(['instructions.md', 'notes.md', 'profile.yaml', 'skills/impl/SKILL.md', 'skills/triage/SKILL.md']);
    expect(out.find((f) => f.path === 'skills/triage/SKILL.md')).toEqual({
      path: 'skills/triage/SKILL.md',
      content_utf8: '# Triage\n',
      sha256: contentSha256('# Triage\n'),
    });
    const { manifest } = readProfile(out);
    expect(manifest.skills.map((s) => s.path)).toEqual(['skills/impl/SKILL.md', 'skills/triage/SKILL.md']);
    expect(manifest).toMatchObject({ id: 'coder', version: '0.1.1', mission: 'Ship changes.' });
  });

  it('accepts a new skill file without a skills entry as a plain file', () => {
    expect(apply({ path: 'skills/triage/SKILL.md', content_utf8: '# Triage\n' }).map((f) => f.path)).toContain('skills/triage/SKILL.md');
  });

  it('sets the minted version, appends new fields, keeps the rest of profile.yaml, and recomputes digests', () => {
    const out = apply({ path: 'profile.yaml#approval_required', content: ['deploys'] });
    const profileYaml = out.find((f) => f.path === 'profile.yaml')!;
    expect(profileYaml.content_utf8).toBe(
      'id: coder\nversion: 0.1.1\nname: Coder\nmission: Ship changes.\ninstructions: instructions.md\nskills:\n  - path: skills/impl/SKILL.md\n    kind: skill\napproval_required:\n  - deploys\n',
    );
    expect(profileYaml.sha256).toBe(contentSha256(profileYaml.content_utf8));
    expect(out.filter((f) => f.path !== 'profile.yaml')).toEqual(FILES.filter((f) => f.path !== 'profile.yaml'));
  });

  it('refuses a result that is no longer a valid profile (422)', () => {
    const err = failure(() => apply({ path: 'profile.yaml#mission', content: ['not', 'a', 'string'], base_asset_digest: BASES['profile.yaml#mission'] }));
    expect(err.statusCode).toBe(422);
    expect(err.code).toBe('SVC_ERR_MANIFEST_INVALID');
    expect((err.detail as ValidationIssue[])[0]?.loc).toEqual(['body', 'content', 'profile.yaml', 'mission']);
  });

  it('refuses a profile whose id is not the proposal profile_ref (422)', () => {
    const err = failure(() =>
      applyChangeset(FILES, parseChangeset(changeset({ path: 'todo.md', content_utf8: 'x' })), { profileRef: 'writer', version: '0.1.1' }),
    );
    expect(err.statusCode).toBe(422);
    expect(err.code).toBe('SVC_ERR_PROPOSAL_ID_OR_VERSION_CHANGED');
    expect(err.detail).toMatch(/must stay writer/);
  });

  it('composes non-overlapping proposals made against the same version', () => {
    const first = parseChangeset(changeset({ path: 'profile.yaml#mission', content: 'A', base_asset_digest: BASES['profile.yaml#mission'] }));
    const second = parseChangeset(changeset({ path: 'instructions.md', content_utf8: 'B\n', base_asset_digest: BASES['instructions.md'] }));
    const v1 = applyChangeset(FILES, first, OPTIONS);
    const v2 = applyChangeset(v1, second, { profileRef: 'coder', version: '0.1.2' });
    expect(readProfile(v2).manifest).toMatchObject({ mission: 'A', version: '0.1.2' });
    expect(v2.find((f) => f.path === 'instructions.md')?.content_utf8).toBe('B\n');
    // ...while the first one, replayed, is now stale.
    expect(conflictOf(() => applyChangeset(v2, first, { profileRef: 'coder', version: '0.1.3' }))).toMatch(/profile\.yaml#mission is stale/);
  });
});
