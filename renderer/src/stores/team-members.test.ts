/** The Teams view's store: what it reads, what it keeps live from the owner feed, what it drops. */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/errors.ts';
import type { InviteList, ListedMember, MemberList, NodeAgentPresence, NodeChange, NodeClient } from '../api/owner.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';
import { useTeamMembersStore } from './team-members.ts';

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

/** A node as the store sees it: lists it answers from, calls it counts, the feed's handlers it keeps. */
function fakeNode() {
  const state = {
    members: [member('owner', { owner: true }), member('ada', { agent_id: 'a-1' })] as ListedMember[],
    invites: [{ invite_id: 'i-1', team_id: TEAM, alias: 'scout', lifetime: 'ephemeral', address: null, created_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-02T00:00:00Z' }] as InviteList['invites'],
    reads: 0,
    failWith: null as Error | null,
    /** Holds the next read until released (a slow answer). */
    gate: null as Promise<void> | null,
  };
  const handlers: { onPresence?: (p: NodeAgentPresence) => void; onChange?: (c: NodeChange) => void; onState?: (s: 'open') => void } = {};
  const client = {
    async members(teamId: string): Promise<MemberList> {
      state.reads++;
      const gate = state.gate;
      if (gate) await gate;
      if (state.failWith) throw state.failWith;
      return { team_id: teamId, members: state.members.map((m) => ({ ...m, team_id: teamId })), available_scopes: [] };
    },
    async invites(teamId: string): Promise<InviteList> {
      return { team_id: teamId, invites: state.invites };
    },
    async revokeMember(_teamId: string, certificateId: string) {
      return { revoked: true as const, certificate_id: certificateId, revoked_at: '2026-01-03T00:00:00.000Z', closed_present_links: 0 };
    },
    async cancelInvite(_teamId: string, inviteId: string) {
      state.invites = state.invites.filter((i) => i.invite_id !== inviteId);
      return { cancelled: true as const, invite_id: inviteId, cancelled_at: '2026-01-03T00:00:00.000Z' };
    },
    streamWake(h: typeof handlers) {
      Object.assign(handlers, h);
      return { close: () => undefined };
    },
  };
  return { state, handlers, client: client as unknown as NodeClient };
}

let node: ReturnType<typeof fakeNode>;

beforeEach(() => {
  vi.useFakeTimers();
  setActivePinia(createPinia());
  node = fakeNode();
  useSessionStore().client = node.client;
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
    node.handlers.onPresence?.({ agent_id: 'a-1', type: 'agent.online', online: true, at: 'now', last_seen: '2026-01-02T00:00:00.000Z' });
    expect(store.members.find((m) => m.alias === 'ada')).toMatchObject({ online: true, last_seen: '2026-01-02T00:00:00.000Z' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(node.state.reads).toBe(1);
  });

  it('reads again when a member that never connected may just have, or when teams changed', async () => {
    const store = useTeamMembersStore();
    await store.show(TEAM);
    // Everyone listed has connected: a frame about another identity is not about this team.
    node.handlers.onPresence?.({ agent_id: 'other', type: 'agent.online', online: true, at: 'now', last_seen: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(node.state.reads).toBe(1);

    node.state.members = [...node.state.members, member('scout')];
    node.handlers.onChange?.({ kind: 'teams_changed', teamId: null });
    node.handlers.onChange?.({ kind: 'teams_changed', teamId: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(node.state.reads).toBe(2);
    expect(store.active.map((m) => m.alias)).toContain('scout');

    node.state.members = node.state.members.map((m) => (m.alias === 'scout' ? { ...m, agent_id: 'a-3', online: true } : m));
    node.handlers.onPresence?.({ agent_id: 'a-3', type: 'agent.online', online: true, at: 'now', last_seen: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(node.state.reads).toBe(3);
    expect(store.members.find((m) => m.alias === 'scout')?.online).toBe(true);
  });

  it('follows nothing once hidden', async () => {
    const store = useTeamMembersStore();
    await store.show(TEAM);
    store.hide();
    node.handlers.onChange?.({ kind: 'teams_changed', teamId: null });
    node.handlers.onPresence?.({ agent_id: 'a-1', type: 'agent.online', online: true, at: 'now', last_seen: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(node.state.reads).toBe(1);
    expect(store.members).toEqual([]);
  });

  it('drops an answer for a team no longer shown', async () => {
    const store = useTeamMembersStore();
    let release: () => void = () => undefined;
    node.state.gate = new Promise((done) => (release = done));
    const first = store.show('old:example.com');
    node.state.gate = null;
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
    node.state.failWith = new ApiError(404, 'Unknown team: crew:example.com', [], 'SVC_ERR_TEAM_NOT_FOUND');
    const store = useTeamMembersStore();
    await store.show(TEAM);
    expect(store.error).toBe('Unknown team: crew:example.com');
    expect(store.loaded).toBe(true);
  });
});
