// @vitest-environment jsdom
/** The Shelf's badge: open proposals per team, the chosen team's list, teams gone, and nudges for teams not shown. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useLiveStore } from './live.ts';
import { useProposalBadgeStore } from './proposal-badge.ts';
import { useTeamsStore } from './teams.ts';
import { connectFakeNode, proposal, team, type FakeNode } from './test-client.ts';

vi.mock('../api/library.ts', async (original) => (await import('./test-client.ts')).fakeLibraryModule(await original()));

const CREW = 'crew:example.com';
const OPS = 'ops:example.com';

let node: FakeNode;

beforeEach(() => {
  window.localStorage.clear();
  node = connectFakeNode();
  node.owner.teams = async () => [team(CREW), team(OPS)];
  node.forTeam(CREW).library.proposals = async () => [proposal('p-1', 'writer'), proposal('p-2', 'coder')];
  node.forTeam(OPS).library.proposals = async () => [proposal('p-3', 'ops')];
  useLiveStore().start();
});
afterEach(() => {
  useProposalBadgeStore().stop();
  vi.useRealTimers();
});

describe('proposal badge store', () => {
  it('counts every team’s open proposals, and holds the chosen team’s', async () => {
    const badge = useProposalBadgeStore();
    badge.start();
    await expect.poll(() => badge.openTotal).toBe(3);
    expect(badge.openCounts).toEqual({ [CREW]: 2, [OPS]: 1 });
    expect(badge.openProposals.map((p) => p.proposal_id)).toEqual(['p-1', 'p-2']);
    expect(node.callsTo('library', 'proposals').map((c) => c.args)).toEqual([[{ status: 'open' }], [{ status: 'open' }]]);
  });

  it('forgets a team that is gone', async () => {
    const badge = useProposalBadgeStore();
    badge.start();
    await expect.poll(() => badge.openTotal).toBe(3);
    node.owner.teams = async () => [team(CREW)];
    badge.start();
    await expect.poll(() => badge.openCounts).toEqual({ [CREW]: 2 });
  });

  it('keeps the last count when a read fails', async () => {
    const badge = useProposalBadgeStore();
    await useTeamsStore().load();
    await badge.refresh(OPS);
    node.forTeam(OPS).library.proposals = async () => {
      throw new Error('offline');
    };
    await badge.refresh(OPS);
    expect(badge.openCounts[OPS]).toBe(1);
  });

  it('reads a team’s count on a nudge about its library, unless the shelf shows that team', async () => {
    const badge = useProposalBadgeStore();
    await useTeamsStore().load();
    badge.show(CREW);
    node.feed.change({ kind: 'library_changed', teamId: CREW });
    node.feed.change({ kind: 'library_changed', teamId: 'unknown:example.com' });
    expect(node.callsTo('library', 'proposals')).toEqual([]);
    node.feed.change({ kind: 'library_changed', teamId: OPS });
    await expect.poll(() => badge.openCounts[OPS]).toBe(1);
    expect(node.callsTo('library', 'proposals').map((c) => c.as)).toEqual([OPS]);
  });

  it('reads again every minute while the window is in view, and not once stopped', async () => {
    vi.useFakeTimers();
    const badge = useProposalBadgeStore();
    badge.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(node.callsTo('owner', 'teams')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(node.callsTo('owner', 'teams')).toHaveLength(2);
    badge.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(node.callsTo('owner', 'teams')).toHaveLength(2);
  });
});
