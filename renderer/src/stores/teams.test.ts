// @vitest-environment jsdom
/** Teams: the list, the team chosen (remembered per node origin), and teams changed elsewhere. */
import { beforeEach, describe, expect, it } from 'vitest';
import { nextTick } from 'vue';
import { ApiError } from '../api/errors.ts';
import { useLiveStore } from './live.ts';
import { useTeamsStore } from './teams.ts';
import type { Team } from '../api/owner.ts';
import { connectFakeNode, deferred, team, type FakeNode } from './test-client.ts';

let node: FakeNode;

beforeEach(() => {
  window.localStorage.clear();
  node = connectFakeNode();
  node.owner.teams = async () => [team('crew:example.com'), team('ops:example.com')];
  useLiveStore().start();
});

describe('teams store', () => {
  it('chooses the first team until one is chosen, and remembers the choice across a reload', async () => {
    const teams = useTeamsStore();
    await teams.load();
    expect(teams.teamId).toBe('crew:example.com');
    teams.choose('ops:example.com');
    expect(teams.team?.name).toBe('ops');
    await nextTick();

    connectFakeNode().owner.teams = async () => [team('crew:example.com'), team('ops:example.com')];
    const reloaded = useTeamsStore();
    await reloaded.load();
    expect(reloaded.teamId).toBe('ops:example.com');
  });

  it('falls back to the first team when the one remembered is gone', async () => {
    window.localStorage.setItem(`svc-node.current-team@${window.location.origin}`, 'gone:example.com');
    const teams = useTeamsStore();
    await teams.load();
    expect(teams.teamId).toBe('crew:example.com');
  });

  it('chooses a team it made', async () => {
    node.owner.createTeam = async (input) => team(`${input.name}:example.com`);
    const teams = useTeamsStore();
    await teams.load();
    node.owner.teams = async () => [team('crew:example.com'), team('ops:example.com'), team('new:example.com')];
    await teams.create({ name: 'new', domain: 'example.com' });
    expect(teams.teamId).toBe('new:example.com');
  });

  it('keeps the list with the node’s words when a read fails', async () => {
    const teams = useTeamsStore();
    await teams.load();
    node.owner.teams = async () => {
      throw new ApiError(503, 'The node is starting.');
    };
    await teams.load();
    expect(teams.error).toBe('The node is starting.');
    expect(teams.teams).toHaveLength(2);
  });

  it('reads the list again when teams change elsewhere, and after a reconnect once it was read', async () => {
    const teams = useTeamsStore();
    node.feed.state('open');
    expect(node.callsTo('owner', 'teams')).toEqual([]);
    await teams.load();
    node.owner.teams = async () => [team('crew:example.com')];
    node.feed.change({ kind: 'teams_changed', teamId: null });
    await expect.poll(() => teams.teams).toHaveLength(1);
    node.feed.change({ kind: 'docs_changed', teamId: 'crew:example.com' });
    node.feed.state('open');
    await expect.poll(() => node.callsTo('owner', 'teams')).toHaveLength(3);
  });

  it('keeps the newest list when an older read answers last', async () => {
    const teams = useTeamsStore();
    const slow = deferred<Team[]>();
    node.owner.teams = () => slow.promise;
    const opening = teams.load();
    // A team made elsewhere meanwhile: the nudge's read answers first.
    node.owner.teams = async () => [team('crew:example.com'), team('ops:example.com'), team('new:example.com')];
    node.feed.change({ kind: 'teams_changed', teamId: null });
    await expect.poll(() => teams.teams).toHaveLength(3);
    slow.resolve([team('crew:example.com'), team('ops:example.com')]);
    await opening;
    expect(teams.teams.map((t) => t.team_id)).toContain('new:example.com');
  });

  it('keeps the newest list when an older read fails last', async () => {
    const teams = useTeamsStore();
    const slow = deferred<Team[]>();
    node.owner.teams = () => slow.promise;
    const opening = teams.load();
    node.owner.teams = async () => [team('crew:example.com')];
    await teams.load();
    slow.reject(new ApiError(0, 'The node can’t be reached.'));
    await opening;
    expect(teams.error).toBeNull();
  });

  it('has a caller whose read was overtaken wait for the newest answer (the Shelf and Documents choose a team from it)', async () => {
    const teams = useTeamsStore();
    const first = deferred<Team[]>();
    const second = deferred<Team[]>();
    node.owner.teams = () => first.promise;
    let opened = false;
    const opening = teams.load().then(() => (opened = true));
    node.owner.teams = () => second.promise;
    void teams.load();
    first.resolve([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(opened).toBe(false);
    second.resolve([team('crew:example.com')]);
    await opening;
    expect(teams.teamId).toBe('crew:example.com');
  });
});
