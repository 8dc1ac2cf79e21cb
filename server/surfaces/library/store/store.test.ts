/**
 * The library's store modules on a real encrypted database (the shipped migrations): what each
 * mapper decodes, and the queries whose answer is not obvious from their SQL (latest by seq,
 * joins, paging, cascades, first-write-wins, filters and their order).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../context.ts';
import { closeDatabase, openDatabase } from '../../../store/database.ts';
import type { PayloadFile } from '../domain/payload.ts';
import { findBinding, listBindings, toBinding, upsertBinding } from './bindings.ts';
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
import { registerLibraryTeam } from './library-teams.ts';
import { decideProposal, findProposal, insertProposal, listProposals, toProposal } from './proposals.ts';
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
import { findShelfVersion, insertShelfVersion, latestShelfVersion, shelfVersionFiles, shelfVersionHistory, shelfVersionNumbers } from './shelf-versions.ts';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-library-store-'));
  db = openDatabase({ file: join(dir, 'node.db'), key: randomBytes(32) });
});
afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

const T0 = '2026-01-01T00:00:00.000Z';
const files = (text: string): PayloadFile[] => [{ path: 'profile.yaml', content_utf8: text, sha256: `sha256:${text}` }];

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

function shelve(team: string, ref: string, versions: string[], source = NO_SOURCE): void {
  insertShelfProfile(db, { team_id: team, profile_ref: ref, tags: ['ops'], pins: source, part_baselines: null, created_at: T0 });
  for (const version of versions) {
    insertShelfVersion(db, {
      team_id: team,
      profile_ref: ref,
      version,
      digest: `sv-${ref}-${version}`,
      files: files(`${ref}@${version}`),
      origin: 'version',
      created_at: T0,
    });
  }
}

const SOURCED = { ...NO_SOURCE, source_blueprint_ref: 'bp', source_blueprint_version: '1.0.0', source_profile_ref: 'planner' };

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

describe('shelf profiles and versions', () => {
  it('reads the latest version by seq, one by number, files apart, and both listings', () => {
    shelve('t', 'p', ['0.1.0', '0.2.0']);
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
    shelve('t', 'q', ['0.1.0']);
    expect(partBaselinesOf(findShelfProfile(db, 't', 'q')!)).toBeNull();
  });

  it('pages the team’s profiles in ref order, each with its latest version and no files', () => {
    for (const ref of ['c', 'a', 'b']) shelve('t', ref, ['0.1.0', '0.3.0']);
    shelve('other', 'a0', ['0.1.0']);
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
    shelve('t1', 'p', ['0.1.0'], SOURCED);
    shelve('t2', 'p', ['0.1.0'], SOURCED);
    shelve('t2', 'own', ['0.1.0']);
    expect(detachShelfProfiles(db, 'bp')).toBe(2);
    expect(pinsOf(findShelfProfile(db, 't1', 'p')!)).toEqual(NO_SOURCE);
    deleteShelfProfile(db, 't2', 'p');
    expect(findShelfProfile(db, 't2', 'p')).toBeUndefined();
    expect(latestShelfVersion(db, 't2', 'p')).toBeUndefined();
    expect(findShelfProfile(db, 't1', 'p')).toBeDefined();
  });
});

describe('proposals', () => {
  const draft = (id: string, profileRef: string, createdAt = T0) => ({
    proposal_id: id,
    team_id: 't',
    target: 'profile' as const,
    profile_ref: profileRef,
    content: { schema: 'x', assets: [] },
    summary: null,
    rationale: 'why',
    base_profile_version: '0.1.0',
    created_by_alias: 'alice',
    created_by_acting_as: null,
    created_at: createdAt,
  });

  it('stores an open proposal and maps it without team id or minted version', () => {
    shelve('t', 'p', ['0.1.0']);
    const stored = insertProposal(db, draft('p1', 'p'));
    expect(stored).toEqual({
      proposal_id: 'p1',
      target: 'profile',
      profile_ref: 'p',
      status: 'open',
      summary: null,
      rationale: 'why',
      base_profile_version: '0.1.0',
      created_by_alias: 'alice',
      created_by_acting_as: null,
      created_at: T0,
      decided_by_alias: null,
      decided_by_acting_as: null,
      decided_at: null,
      decision_reason: null,
      content: { schema: 'x', assets: [] },
    });
    expect(toProposal(findProposal(db, 't', 'p1')!)).toEqual(stored);
    expect(findProposal(db, 'other-team', 'p1')).toBeUndefined();
  });

  it('records a decision with its minted version', () => {
    shelve('t', 'p', ['0.1.0']);
    insertProposal(db, draft('p1', 'p'));
    const minted = { profile_ref: 'p', version: '0.1.1', digest: 'd', supersedes_profile_version: '0.1.0', supersedes_profile_digest: 'd0' };
    decideProposal(db, 'p1', { status: 'approved', decided_by_alias: 'bob', decided_by_acting_as: null, decided_at: 'later', decision_reason: null, minted });
    expect(toProposal(findProposal(db, 't', 'p1')!)).toMatchObject({
      status: 'approved',
      decided_by_alias: 'bob',
      decided_by_acting_as: null,
      decided_at: 'later',
      minted,
    });
  });

  it('keeps the identities the app acted as when it submitted and when it decided, each on its own', () => {
    shelve('t', 'p', ['0.1.0']);
    const alice = { agent_id: 'agent-alice', alias: 'alice', name: 'Alice Liddell', address: 'example.com/alice' };
    const bob = { agent_id: 'agent-bob', alias: 'bob', name: 'bob', address: null };
    expect(insertProposal(db, { ...draft('p1', 'p'), created_by_alias: 'owner', created_by_acting_as: alice })).toMatchObject({
      created_by_acting_as: alice,
      decided_by_acting_as: null,
    });
    decideProposal(db, 'p1', {
      status: 'rejected',
      decided_by_alias: 'owner',
      decided_by_acting_as: bob,
      decided_at: 'later',
      decision_reason: null,
      minted: null,
    });
    expect(toProposal(findProposal(db, 't', 'p1')!)).toMatchObject({
      created_by_alias: 'owner',
      created_by_acting_as: alice,
      decided_by_alias: 'owner',
      decided_by_acting_as: bob,
    });
  });

  it('lists newest first (insertion order among equal times), filtered by status and profile', () => {
    shelve('t', 'p', ['0.1.0']);
    shelve('t', 'q', ['0.1.0']);
    insertProposal(db, draft('old', 'p', '2025-01-01T00:00:00.000Z'));
    insertProposal(db, draft('same-1', 'p'));
    insertProposal(db, draft('same-2', 'q'));
    decideProposal(db, 'same-1', {
      status: 'rejected',
      decided_by_alias: 'bob',
      decided_by_acting_as: null,
      decided_at: T0,
      decision_reason: 'no',
      minted: null,
    });
    const ids = (filter: Parameters<typeof listProposals>[2]) => listProposals(db, 't', filter).map((row) => row.proposal_id);
    expect(ids({})).toEqual(['same-2', 'same-1', 'old']);
    expect(ids({ status: 'open' })).toEqual(['same-2', 'old']);
    expect(ids({ profile_ref: 'p' })).toEqual(['same-1', 'old']);
    expect(ids({ status: 'open', profile_ref: 'p' })).toEqual(['old']);
  });
});

describe('bindings', () => {
  it('replaces an agent’s binding, lists by agent id and maps without team id', () => {
    shelve('t', 'p', ['0.1.0', '0.2.0']);
    const bind = (agentId: string, version: string) =>
      upsertBinding(db, {
        team_id: 't',
        agent_id: agentId,
        profile_ref: 'p',
        profile_version: version,
        profile_digest: `sv-p-${version}`,
        source_blueprint_ref: null,
        bound_at: T0,
      });
    bind('b-agent', '0.1.0');
    bind('a-agent', '0.1.0');
    bind('b-agent', '0.2.0');
    expect(listBindings(db, 't').map((row) => [row.agent_id, row.profile_version])).toEqual([
      ['a-agent', '0.1.0'],
      ['b-agent', '0.2.0'],
    ]);
    expect(toBinding(findBinding(db, 't', 'b-agent')!)).toEqual({
      agent_id: 'b-agent',
      profile_ref: 'p',
      profile_version: '0.2.0',
      profile_digest: 'sv-p-0.2.0',
      source_blueprint_ref: null,
      bound_at: T0,
    });
    expect(findBinding(db, 'other', 'b-agent')).toBeUndefined();
    // Deleting the profile takes its bindings with it.
    deleteShelfProfile(db, 't', 'p');
    expect(listBindings(db, 't')).toEqual([]);
  });
});
