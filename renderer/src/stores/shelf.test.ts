// @vitest-environment jsdom
/**
 * The Shelf: the chosen team's profiles read in pages by cursor, the selected profile with its
 * versions and proposals (late answers dropped), one load per team at a time, the team's bindings
 * (a team no longer shown answering late is dropped), decisions that re-read what they changed
 * even when refused, and nudges about the team's library.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/errors.ts';
import type { Binding, ProfileWithFiles, ShelfProfile } from '../api/library.ts';
import { useLiveStore } from './live.ts';
import { useProposalBadgeStore } from './proposal-badge.ts';
import { useShelfStore } from './shelf.ts';
import { binding, connectFakeNode, deferred, profileWithFiles, proposal, shelfProfile, team, type FakeNode } from './test-client.ts';

vi.mock('../api/library.ts', async (original) => (await import('./test-client.ts')).fakeLibraryModule(await original()));

const CREW = 'crew:example.com';
const OPS = 'ops:example.com';

let node: FakeNode;
/** The crew's shelf, in profile_ref order. */
let shelf: ShelfProfile[];

beforeEach(() => {
  window.localStorage.clear();
  node = connectFakeNode();
  node.owner.teams = async () => [team(CREW), team(OPS)];
  shelf = Array.from({ length: 250 }, (_, n) => shelfProfile(`p-${String(n).padStart(3, '0')}`));
  node.forTeam(CREW).library.shelfPage = async ({ limit, after }) => {
    const start = after === null || after === undefined ? 0 : shelf.findIndex((p) => p.profile_ref === after) + 1;
    const profiles = shelf.slice(start, start + limit);
    const hasMore = start + limit < shelf.length;
    return { profiles, has_more: hasMore, next_after: hasMore ? profiles.at(-1)!.profile_ref : null };
  };
  node.forTeam(OPS).library.shelfPage = async () => ({ profiles: [], has_more: false, next_after: null });
  node.library.bindings = async () => [];
  node.library.proposals = async (filter = {}) =>
    filter.status === 'open'
      ? [proposal('open-1', 'p-000')]
      : [proposal('old', filter.profile_ref ?? '', { status: 'rejected', created_at: '2026-01-01T00:00:00.000Z' }), proposal('new', filter.profile_ref ?? '')];
  node.library.profile = async (ref, version) => profileWithFiles(ref, version ?? '1.1.0');
  node.library.versions = async () => [
    { version: '1.1.0', digest: 'd2', origin: 'version', created_at: '2026-03-02T00:00:00.000Z' },
    { version: '1.0.0', digest: 'd1', origin: 'created', created_at: '2026-03-01T00:00:00.000Z' },
  ];
  node.library.catalog = async () => [];
});
afterEach(() => vi.useRealTimers());

async function opened() {
  const store = useShelfStore();
  await store.open();
  return store;
}

describe('shelf store: the list', () => {
  it('reads the chosen team’s first page and opens its first profile, with versions and proposals (open first)', async () => {
    const store = await opened();
    expect(store.profiles).toHaveLength(200);
    expect(store.hasMore).toBe(true);
    expect(store.selectedRef).toBe('p-000');
    expect(store.current?.version).toBe('1.1.0');
    expect(store.versions.map((v) => v.version)).toEqual(['1.1.0', '1.0.0']);
    expect(store.proposals.map((p) => p.proposal_id)).toEqual(['new', 'old']);
    expect(useProposalBadgeStore().openCounts).toEqual({ [CREW]: 1 });
    expect(new Set(node.callsTo('library').map((c) => c.as))).toEqual(new Set([CREW]));
  });

  it('reads the next page after the last profile read, one page at a time', async () => {
    const store = await opened();
    await Promise.all([store.loadMore(), store.loadMore()]);
    expect(store.profiles).toHaveLength(250);
    expect(store.hasMore).toBe(false);
    expect(node.callsTo('library', 'shelfPage').map((c) => c.args[0])).toEqual([
      { limit: 200, after: null },
      { limit: 500, after: 'p-199' },
    ]);
  });

  it('shows the catalog for a team with an empty shelf', async () => {
    node.owner.teams = async () => [team(OPS)];
    const store = await opened();
    expect(store.selection).toEqual({ kind: 'catalog' });
    expect(store.current).toBeNull();
  });

  it('loads a team once when asked twice at once, and starts clean for another team', async () => {
    const store = useShelfStore();
    await Promise.all([store.showTeam(CREW), store.showTeam(CREW)]);
    expect(node.callsTo('library', 'shelfPage')).toHaveLength(1);
    await store.showTeam(OPS);
    expect(store.profiles).toEqual([]);
    expect(store.selection).toEqual({ kind: 'catalog' });
  });
});

describe('shelf store: the selected profile', () => {
  it('shows the profile chosen last, whatever order the answers come in', async () => {
    const store = await opened();
    const slow = deferred<ProfileWithFiles>();
    node.library.profile = () => slow.promise;
    const first = store.selectProfile('p-001');
    node.library.profile = async (ref) => profileWithFiles(ref, '2.0.0');
    await store.selectProfile('p-002');
    slow.resolve(profileWithFiles('p-001'));
    await first;
    expect(store.selectedRef).toBe('p-002');
    expect(store.current?.profile_ref).toBe('p-002');
  });

  it('shows the older version asked for even when the profile is read again meanwhile (an update arrived)', async () => {
    const store = await opened();
    const older = deferred<ProfileWithFiles>();
    node.library.profile = (ref, version) => (version === '1.0.0' ? older.promise : Promise.resolve(profileWithFiles(ref, version ?? '1.2.0')));
    const viewing = store.viewVersion('1.0.0');
    await store.refresh();
    expect(store.current?.version).toBe('1.2.0');
    older.resolve(profileWithFiles('p-000', '1.0.0'));
    await viewing;
    expect(store.viewed?.version).toBe('1.0.0');
  });

  it('shows the version chosen last, whatever order the answers come in', async () => {
    const store = await opened();
    const older = deferred<ProfileWithFiles>();
    node.library.profile = () => older.promise;
    const first = store.viewVersion('1.0.0');
    // Back to the latest before the older one arrived: the latest stays.
    await store.viewVersion('1.1.0');
    older.resolve(profileWithFiles('p-000', '1.0.0'));
    await first;
    expect(store.viewed).toBeNull();
  });

  it('says why a profile could not be read', async () => {
    const store = await opened();
    node.library.profile = async () => {
      throw new ApiError(404, 'No profile p-009.');
    };
    await store.selectProfile('p-009');
    expect(store.profileError).toBe('No profile p-009.');
    expect(store.profileLoading).toBe(false);
  });

  it('reads the proposals and the profile again after a refused approval, and says why', async () => {
    const store = await opened();
    const before = node.callsTo('library', 'proposals').length;
    node.library.approve = async () => {
      throw new ApiError(409, 'The proposal’s base is stale; it was rejected.');
    };
    await expect(store.approve('new')).rejects.toThrow('The proposal’s base is stale; it was rejected.');
    expect(node.callsTo('library', 'proposals').length).toBeGreaterThan(before);
  });

  it('changes the tags on the row and the open profile as the node saved them', async () => {
    const store = await opened();
    node.library.setTags = async (ref, tags) => ({ profile_ref: ref, tags: [...tags].sort() });
    await store.setTags('p-000', ['b', 'a']);
    expect(store.profiles[0]?.tags).toEqual(['a', 'b']);
    expect(store.current?.tags).toEqual(['a', 'b']);
  });

  it('opens the next profile once the selected one is deleted', async () => {
    const store = await opened();
    node.library.deleteProfile = async (ref) => {
      shelf = shelf.filter((p) => p.profile_ref !== ref);
      return { profile_ref: ref, deleted_versions: ['1.0.0', '1.1.0'] };
    };
    await store.deleteProfile('p-000');
    expect(store.profiles[0]?.profile_ref).toBe('p-001');
    expect(store.selectedRef).toBe('p-001');
  });
});

describe('shelf store: bindings', () => {
  it('reads the team’s bindings with the shelf, and again after binding an agent', async () => {
    let bound = [binding('agent-ada', 'p-000')];
    node.library.bindings = async () => bound;
    const store = await opened();
    expect(store.bindings.map((b) => b.agent_id)).toEqual(['agent-ada']);
    node.library.bind = async (agentId, input) => {
      const made = binding(agentId, input.profile_ref);
      bound = [...bound, made];
      return made;
    };
    await store.bind('agent-bo', { profile_ref: 'p-001' });
    expect(node.callsTo('library', 'bind')[0]).toMatchObject({ args: ['agent-bo', { profile_ref: 'p-001' }], as: CREW });
    expect(store.bindings.map((b) => [b.agent_id, b.profile_ref])).toEqual([
      ['agent-ada', 'p-000'],
      ['agent-bo', 'p-001'],
    ]);
  });

  it('drops the bindings of a team no longer shown when they answer late', async () => {
    const late = deferred<Binding[]>();
    node.forTeam(CREW).library.bindings = () => late.promise;
    node.forTeam(OPS).library.bindings = async () => [];
    const store = useShelfStore();
    const crew = store.showTeam(CREW);
    await store.showTeam(OPS);
    late.resolve([binding('agent-ada', 'p-000')]);
    await crew;
    expect(store.bindings).toEqual([]);
  });
});

describe('shelf store: decisions', () => {
  it('approving reads the profile, its row and the open proposals’ badge again', async () => {
    const store = await opened();
    const reads = { profile: node.callsTo('library', 'profile').length, shelf: node.callsTo('library', 'shelfPage').length };
    node.library.approve = async (id) => proposal(id, 'p-000', { status: 'approved' });
    node.library.proposals = async (filter = {}) => (filter.status === 'open' ? [] : [proposal('new', 'p-000', { status: 'approved' })]);
    expect((await store.approve('new')).status).toBe('approved');
    expect(node.callsTo('library', 'approve')[0]).toMatchObject({ args: ['new'], as: CREW });
    expect(node.callsTo('library', 'profile').length).toBeGreaterThan(reads.profile);
    expect(node.callsTo('library', 'shelfPage').length).toBeGreaterThan(reads.shelf);
    expect(store.proposals.map((p) => p.status)).toEqual(['approved']);
    expect(useProposalBadgeStore().openCounts).toEqual({ [CREW]: 0 });
  });

  it('rejecting a proposal reads its profile’s proposals again', async () => {
    const store = await opened();
    node.library.reject = async (id) => proposal(id, 'p-000', { status: 'rejected' });
    node.library.proposals = async () => [proposal('new', 'p-000', { status: 'rejected' })];
    await store.reject('new');
    expect(store.proposals.map((p) => [p.proposal_id, p.status])).toEqual([['new', 'rejected']]);
  });
});

describe('shelf store: live', () => {
  it('reads the shown team’s shelf once per burst of nudges, and ignores other teams', async () => {
    vi.useFakeTimers();
    useLiveStore().start();
    const store = useShelfStore();
    await store.showTeam(CREW);
    const reads = node.callsTo('library', 'shelfPage').length;
    node.feed.change({ kind: 'library_changed', teamId: CREW });
    node.feed.change({ kind: 'library_changed', teamId: CREW });
    node.feed.change({ kind: 'library_changed', teamId: OPS });
    await vi.advanceTimersByTimeAsync(500);
    expect(node.callsTo('library', 'shelfPage')).toHaveLength(reads + 1);
  });
});
