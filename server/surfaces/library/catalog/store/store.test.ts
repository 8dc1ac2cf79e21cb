/**
 * The catalog's store modules on a real encrypted database (the shipped migrations): what each
 * mapper decodes, and the queries whose answer is not obvious from their SQL (latest by seq,
 * joins, cascades).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { T0, files, openScratchDatabase } from '../../../../../test/support/library-store.ts';
import type { Db } from '../../../../context.ts';
import {
  blueprintProfileFiles,
  blueprintProfilesAt,
  findBlueprintProfile,
  insertBlueprintProfiles,
  latestBlueprintProfileDigest,
} from './blueprint-profiles.ts';
import {
  blueprintVersionFiles,
  blueprintVersionHistory,
  blueprintVersionNumbers,
  findCatalogVersion,
  insertBlueprintVersion,
  latestBlueprintVersionNumber,
  latestCatalogVersion,
  latestCatalogVersions,
  toBlueprintSummary,
} from './blueprint-versions.ts';
import { blueprintOwner, deleteBlueprint, insertBlueprint, setBlueprintTags } from './blueprints.ts';
import { registerLibraryTeam } from '../../shelf/store/library-teams.ts';

let db: Db;
let close: () => void;

beforeEach(() => ({ db, close } = openScratchDatabase()));
afterEach(() => close());

/** A blueprint version with one profile per ref; returns its seq. */
function publish(ref: string, version: string, profiles: string[] = ['planner'], owner = 'team:a'): number {
  if (blueprintOwner(db, ref) === undefined) insertBlueprint(db, { blueprint_ref: ref, owner_team: owner, created_at: T0 });
  const seq = insertBlueprintVersion(db, {
    blueprint_ref: ref,
    version,
    digest: `bp-${ref}-${version}`,
    name: `The ${ref}`,
    summary: null,
    description: 'A blueprint',
    recommendations: [{ id: 'planner', runtime_hints: ['fast'] }],
    runtime_hints: [],
    expected_apps: ['mail'],
    first_mission_examples: ['Plan'],
    files: files(`${ref}@${version}`),
    created_at: T0,
  });
  insertBlueprintProfiles(
    db,
    seq,
    profiles.map((p) => ({ profile_ref: p, version, digest: `pr-${p}-${version}`, files: files(`${p}@${version}`) })),
  );
  return seq;
}

describe('blueprints and their versions', () => {
  it('reads the latest version of each blueprint, newest first, with tags and the owner name decoded', () => {
    publish('a', '1.0.0');
    publish('b', '1.0.0', ['planner'], 'team:b');
    publish('a', '2.0.0');
    setBlueprintTags(db, 'a', ['ops', 'ai']);
    registerLibraryTeam(db, { team_id: 'team:a', owner: null, display_name: 'Team A', registered_at: T0 });

    const latest = latestCatalogVersions(db);
    expect(latest.map((row) => [row.blueprint_ref, row.version, row.display_name])).toEqual([
      ['a', '2.0.0', 'Team A'],
      ['b', '1.0.0', null],
    ]);
    expect(toBlueprintSummary(latest[0]!)).toEqual({
      blueprint_ref: 'a',
      version: '2.0.0',
      digest: 'bp-a-2.0.0',
      tags: ['ops', 'ai'],
      name: 'The a',
      summary: null,
      description: 'A blueprint',
      recommendations: [{ id: 'planner', runtime_hints: ['fast'] }],
      runtime_hints: [],
      expected_apps: ['mail'],
      first_mission_examples: ['Plan'],
      owner: 'team:a',
      display_name: 'Team A',
      published_at: T0,
    });
    // Catalog rows leave the payload out; it is read by seq.
    expect(latest[0]).not.toHaveProperty('files');
    expect(blueprintVersionFiles(db, latest[0]!.seq)).toEqual(files('a@2.0.0'));
  });

  it('finds one version or the latest, lists versions both ways, and knows an unknown ref', () => {
    const first = publish('a', '1.0.0');
    publish('a', '1.1.0');
    expect(latestCatalogVersion(db, 'a')?.version).toBe('1.1.0');
    expect(findCatalogVersion(db, 'a', '1.0.0')?.seq).toBe(first);
    expect(findCatalogVersion(db, 'a', '9.0.0')).toBeUndefined();
    expect(latestBlueprintVersionNumber(db, 'a')).toBe('1.1.0');
    expect(latestBlueprintVersionNumber(db, 'nope')).toBeNull();
    expect(blueprintVersionNumbers(db, 'a')).toEqual(['1.0.0', '1.1.0']);
    expect(blueprintVersionHistory(db, 'a')).toEqual([
      { version: '1.1.0', digest: 'bp-a-1.1.0', published_at: T0 },
      { version: '1.0.0', digest: 'bp-a-1.0.0', published_at: T0 },
    ]);
    expect(blueprintOwner(db, 'a')).toBe('team:a');
    expect(blueprintOwner(db, 'nope')).toBeUndefined();
  });

  it('deletes a blueprint with every version and profile', () => {
    const seq = publish('a', '1.0.0');
    deleteBlueprint(db, 'a');
    expect(latestBlueprintVersionNumber(db, 'a')).toBeNull();
    expect(blueprintProfilesAt(db, seq)).toEqual([]);
  });
});

describe('blueprint profiles', () => {
  it('lists a version’s profiles by ref, keeping their blueprint.yaml position, files decoded', () => {
    const seq = publish('a', '1.0.0', ['reviewer', 'builder']);
    const rows = blueprintProfilesAt(db, seq);
    expect(rows.map((row) => [row.profile_ref, row.position])).toEqual([
      ['builder', 1],
      ['reviewer', 0],
    ]);
    expect(blueprintProfileFiles(findBlueprintProfile(db, seq, 'builder')!)).toEqual(files('builder@1.0.0'));
    expect(findBlueprintProfile(db, seq, 'nope')).toBeUndefined();
  });

  it('gives a profile’s digest in the latest version only, null once that version lacks it', () => {
    publish('a', '1.0.0', ['planner', 'builder']);
    publish('a', '2.0.0', ['planner']);
    expect(latestBlueprintProfileDigest(db, 'a', 'planner')).toBe('pr-planner-2.0.0');
    expect(latestBlueprintProfileDigest(db, 'a', 'builder')).toBeNull();
    expect(latestBlueprintProfileDigest(db, 'nope', 'planner')).toBeNull();
  });
});
