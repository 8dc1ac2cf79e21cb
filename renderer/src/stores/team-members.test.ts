/** The Teams view's store: what it reads, what it keeps live from the owner feed, what it drops. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/errors.ts';
import type { InviteList, ListedMember } from '../api/owner.ts';
import { useLiveStore } from './live.ts';
import { useTeamMembersStore } from './team-members.ts';
import { connectFakeNode, type FakeNode } from './test-client.ts';

const TEAM = 'crew:example.com';

function member(alias: string, fields: Partial<ListedMember> = {}): ListedMember {
  return {
    certificate_id: `c-${alias}`,
    team_id: TEAM,
    alias,
    member_did_key: `did:key:z${alias}`,
    member_did_aw: null,
    member_address: null,
    lifetime: 'ephemeral',
    issued_at: '2026-01-01T00:00:00.000Z',
    revoked_at: null,
    scopes: [],
    owner: false,
    agent_id: null,
    online: false,
    last_seen: null,
    ...fields,
  };
}

/** The team's members and invites as the fake node holds them; a read may be held back (`gate`) or fail. */
function answering(fake: FakeNode) {
  const state = {
    members: [member('owner', { owner: true }), member('ada', { agent_id: 'a-1' })] as ListedMember[],
    invites: [
      {
        invite_id: 'i-1',
        team_id: TEAM,
        alias: 'scout',
        lifetime: 'ephemeral',
        address: null,
        created_at: '2026-01-01T00:00:00Z',
        expires_at: '2026-01-02T00:00:00Z',
      },
    ] as InviteList['invites'],
    failWith: null as Error | null,
    /** Holds the next read until released (a slow answer). */
    gate: null as Promise<void> | null,
  };
  fake.owner.members = async (teamId) => {
    const gate = state.gate;
    if (gate) await gate;
    if (state.failWith) throw state.failWith;
    return { team_id: teamId, members: state.members.map((m) => ({ ...m, team_id: teamId })), available_scopes: [] };
  };
  fake.owner.invites = async (teamId) => ({ team_id: teamId, invites: state.invites });
  fake.owner.revokeMember = async (_teamId, certificateId) => ({
    revoked: true as const,
    certificate_id: certificateId,
    revoked_at: '2026-01-03T00:00:00.000Z',
    closed_present_links: 0,
  });
  fake.owner.cancelInvite = async (_teamId, inviteId) => {
    state.invites = state.invites.filter((i) => i.invite_id !== inviteId);
    return { cancelled: true as const, invite_id: inviteId, cancelled_at: '2026-01-03T00:00:00.000Z' };
  };
  return state;
}

let node: FakeNode;
let state: ReturnType<typeof answering>;
const reads = () => node.callsTo('owner', 'members').length;

beforeEach(() => {
  vi.useFakeTimers();
  node = connectFakeNode();
  state = answering(node);
  useLiveStore().start();
});
afterEach(() => vi.useRealTimers());

describe('team members store', () => {
  it('reads the members and pending invites of the team it shows', async () => {
    const store = useTeamMembersStore();
    await store.show(TEAM);
    expect(store.loaded).toBe(true);
    expect(store.active.map((m) => m.alias)).toEqual(['owner', 'ada']);
    expect(store.invites.map((i) => i.alias)).toEqual(['scout']);
    expect(store.error).toBeNull();
  });

  it('moves a member’s presence from the feed in place, without reading the list again', async () => {
    const store = useTeamMembersStore();
    await store.show(TEAM);
    node.feed.presence({ agent_id: 'a-1', type: 'agent.online', online: true, at: 'now', last_seen: '2026-01-02T00:00:00.000Z' });
    expect(store.members.find((m) => m.alias === 'ada')).toMatchObject({ online: true, last_seen: '2026-01-02T00:00:00.000Z' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(reads()).toBe(1);
  });

  it('reads again when a member that never connected may just have, or when teams changed', async () => {
    const store = useTeamMembersStore();
    await store.show(TEAM);
    // Everyone listed has connected: a frame about another identity is not about this team.
    node.feed.presence({ agent_id: 'other', type: 'agent.online', online: true, at: 'now', last_seen: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(reads()).toBe(1);

    state.members = [...state.members, member('scout')];
    node.feed.change({ kind: 'teams_changed', teamId: null });
    node.feed.change({ kind: 'teams_changed', teamId: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(reads()).toBe(2);
    expect(store.active.map((m) => m.alias)).toContain('scout');

    state.members = state.members.map((m) => (m.alias === 'scout' ? { ...m, agent_id: 'a-3', online: true } : m));
    node.feed.presence({ agent_id: 'a-3', type: 'agent.online', online: true, at: 'now', last_seen: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(reads()).toBe(3);
    expect(store.members.find((m) => m.alias === 'scout')?.online).toBe(true);
  });

  it('follows nothing once hidden', async () => {
    const store = useTeamMembersStore();
    await store.show(TEAM);
    store.hide();
    node.feed.change({ kind: 'teams_changed', teamId: null });
    node.feed.presence({ agent_id: 'a-1', type: 'agent.online', online: true, at: 'now', last_seen: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(reads()).toBe(1);
    expect(store.members).toEqual([]);
  });

  it('drops an answer for a team no longer shown', async () => {
    const store = useTeamMembersStore();
    let release: () => void = () => undefined;
    state.gate = new Promise((done) => (release = done));
    const first = store.show('old:example.com');
    state.gate = null;
    await store.show(TEAM);
    release();
    await first;
    expect(store.teamId).toBe(TEAM);
    expect(store.members.every((m) => m.team_id === TEAM)).toBe(true);
  });

  it('marks a revoked member at once, and drops a cancelled invite at once', async () => {
    const store = useTeamMembersStore();
    await store.show(TEAM);
    const revoked = await store.revoke('c-ada');
    expect(revoked.revoked_at).toBe('2026-01-03T00:00:00.000Z');
    expect(store.revoked.map((m) => m.alias)).toEqual(['ada']);
    await store.cancelInvite('i-1');
    expect(store.invites).toEqual([]);
  });

  it('keeps the node’s words when a read fails', async () => {
    state.failWith = new ApiError(404, 'Unknown team: crew:example.com', [], 'SVC_ERR_TEAM_NOT_FOUND');
    const store = useTeamMembersStore();
    await store.show(TEAM);
    expect(store.error).toBe('Unknown team: crew:example.com');
    expect(store.loaded).toBe(true);
  });
});
