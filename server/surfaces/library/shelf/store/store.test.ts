/**
 * The shelf's store modules on a real encrypted database (the shipped migrations): what each
 * mapper decodes, and the queries whose answer is not obvious from their SQL (latest by seq,
 * paging, first-write-wins).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { T0, files, openScratchDatabase, shelve, SOURCED } from '../../../../../test/support/library-store.ts';
import type { Db } from '../../../../context.ts';
import { registerLibraryTeam } from './library-teams.ts';
import {
  deleteShelfProfile,
  detachShelfProfiles,
  findShelfProfile,
  insertShelfProfile,
  NO_SOURCE,
  partBaselinesOf,
  pinsOf,
  repinShelfProfile,
  shelfProfilesWithLatest,
  shelfProfileTags,
} from './shelf-profiles.ts';
import { findShelfVersion, latestShelfVersion, shelfVersionFiles, shelfVersionHistory, shelfVersionNumbers } from './shelf-versions.ts';

let db: Db;
let close: () => void;

beforeEach(() => ({ db, close } = openScratchDatabase()));
afterEach(() => close());

describe('library teams', () => {
  it('registers once, then fills in only the fields still missing, keeping the first registration time', () => {
    expect(registerLibraryTeam(db, { team_id: 't', owner: null, display_name: null, registered_at: T0 })).toEqual({
      team_id: 't',
      owner: null,
      display_name: null,
      registered_at: T0,
    });
    registerLibraryTeam(db, { team_id: 't', owner: 'alice', display_name: null, registered_at: 'later' });
    expect(registerLibraryTeam(db, { team_id: 't', owner: 'mallory', display_name: 'Team T', registered_at: 'later' })).toEqual({
      team_id: 't',
      owner: 'alice',
      display_name: 'Team T',
      registered_at: T0,
    });
  });
});

describe('shelf profiles and versions', () => {
  it('reads the latest version by seq, one by number, files apart, and both listings', () => {
    shelve(db, 't', 'p', ['0.1.0', '0.2.0']);
    const latest = latestShelfVersion(db, 't', 'p');
    expect(latest).toEqual({ seq: expect.any(Number), version: '0.2.0', digest: 'sv-p-0.2.0', origin: 'version', created_at: T0 });
    expect(findShelfVersion(db, 't', 'p', '0.1.0')?.digest).toBe('sv-p-0.1.0');
    expect(findShelfVersion(db, 'other', 'p', '0.1.0')).toBeUndefined();
    expect(shelfVersionFiles(db, latest!.seq)).toEqual(files('p@0.2.0'));
    expect(shelfVersionNumbers(db, 't', 'p')).toEqual(['0.1.0', '0.2.0']);
    expect(shelfVersionHistory(db, 't', 'p').map((v) => v.version)).toEqual(['0.2.0', '0.1.0']);
  });

  it('decodes tags, pins and baselines, and re-pins to a newer source', () => {
    insertShelfProfile(db, { team_id: 't', profile_ref: 'p', tags: ['a', 'b'], pins: SOURCED, part_baselines: { 'file:x': 'd1' }, created_at: T0 });
    const row = findShelfProfile(db, 't', 'p')!;
    expect(shelfProfileTags(row)).toEqual(['a', 'b']);
    expect(pinsOf(row)).toEqual(SOURCED);
    expect(partBaselinesOf(row)).toEqual({ 'file:x': 'd1' });
    repinShelfProfile(db, 't', 'p', {
      blueprint_version: '2.0.0',
      blueprint_digest: 'bd',
      profile_version: '0.2.0',
      profile_digest: 'pd',
      part_baselines: { 'file:x': 'd2' },
    });
    const repinned = findShelfProfile(db, 't', 'p')!;
    expect(pinsOf(repinned)).toEqual({
      ...SOURCED,
      source_blueprint_version: '2.0.0',
      source_blueprint_digest: 'bd',
      source_profile_version: '0.2.0',
      source_profile_digest: 'pd',
    });
    expect(partBaselinesOf(repinned)).toEqual({ 'file:x': 'd2' });
    shelve(db, 't', 'q', ['0.1.0']);
    expect(partBaselinesOf(findShelfProfile(db, 't', 'q')!)).toBeNull();
  });

  it('pages the team’s profiles in ref order, each with its latest version and no files', () => {
    for (const ref of ['c', 'a', 'b']) shelve(db, 't', ref, ['0.1.0', '0.3.0']);
    shelve(db, 'other', 'a0', ['0.1.0']);
    const all = shelfProfilesWithLatest(db, 't', {});
    expect(all.map(({ profile, version }) => [profile.profile_ref, version.version])).toEqual([
      ['a', '0.3.0'],
      ['b', '0.3.0'],
      ['c', '0.3.0'],
    ]);
    expect(Object.keys(all[0]!.profile)).not.toContain('v_seq');
    expect(all[0]!.version).toEqual({ seq: expect.any(Number), version: '0.3.0', digest: 'sv-a-0.3.0', origin: 'version', created_at: T0 });
    expect(shelfProfilesWithLatest(db, 't', { after: 'a', limit: 1 }).map(({ profile }) => profile.profile_ref)).toEqual(['b']);
    expect(shelfProfilesWithLatest(db, 't', { after: 'c' })).toEqual([]);
  });

  it('detaches the profiles of every team that track a blueprint, and deletes with every version', () => {
    shelve(db, 't1', 'p', ['0.1.0'], SOURCED);
    shelve(db, 't2', 'p', ['0.1.0'], SOURCED);
    shelve(db, 't2', 'own', ['0.1.0']);
    expect(detachShelfProfiles(db, 'bp')).toBe(2);
    expect(pinsOf(findShelfProfile(db, 't1', 'p')!)).toEqual(NO_SOURCE);
    deleteShelfProfile(db, 't2', 'p');
    expect(findShelfProfile(db, 't2', 'p')).toBeUndefined();
    expect(latestShelfVersion(db, 't2', 'p')).toBeUndefined();
    expect(findShelfProfile(db, 't1', 'p')).toBeDefined();
  });
});
