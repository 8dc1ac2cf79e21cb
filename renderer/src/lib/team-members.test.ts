import { describe, expect, it } from 'vitest';
import type { ListedMember, NodeAgentPresence, PendingInvite } from '../api/owner.ts';
import {
  actorHint,
  actorName,
  applyPresence,
  joinCommand,
  listedMemberName,
  mayBeNewlyConnected,
  presenceState,
  sortInvites,
  splitMembers,
} from './team-members.ts';

function member(alias: string, fields: Partial<ListedMember> = {}): ListedMember {
  return {
    certificate_id: `c-${alias}`,
    team_id: 'crew:example.com',
    alias,
    member_did_key: `did:key:z${alias}`,
    member_did_aw: null,
    member_address: null,
    lifetime: 'ephemeral',
    issued_at: '2026-01-01T00:00:00.000Z',
    revoked_at: null,
    scopes: ['docs:read'],
    owner: false,
    agent_id: null,
    online: false,
    last_seen: null,
    ...fields,
  };
}

function presence(agentId: string, online: boolean, lastSeen: string | null = '2026-01-02T00:00:00.000Z'): NodeAgentPresence {
  return { agent_id: agentId, type: online ? 'agent.online' : 'agent.offline', online, at: '2026-01-02T00:00:00.000Z', last_seen: lastSeen };
}

describe('splitMembers', () => {
  it('lists the owner first, then who is online, then by alias; revoked ones apart, latest first', () => {
    const { active, revoked } = splitMembers([
      member('zed'),
      member('bea', { online: true }),
      member('owner', { owner: true }),
      member('ada'),
      member('old', { revoked_at: '2026-01-01T00:00:00.000Z' }),
      member('recent', { revoked_at: '2026-02-01T00:00:00.000Z' }),
    ]);
    expect(active.map((m) => m.alias)).toEqual(['owner', 'bea', 'ada', 'zed']);
    expect(revoked.map((m) => m.alias)).toEqual(['recent', 'old']);
  });
});

describe('applyPresence', () => {
  const list = [member('ada', { agent_id: 'a-1' }), member('bea', { agent_id: 'a-2', online: true, last_seen: '2026-01-01T00:00:00.000Z' })];

  it('moves the member that connected as the identity, and leaves the others as they were', () => {
    const next = applyPresence(list, presence('a-1', true));
    expect(next?.map((m) => [m.alias, m.online, m.last_seen])).toEqual([
      ['ada', true, '2026-01-02T00:00:00.000Z'],
      ['bea', true, '2026-01-01T00:00:00.000Z'],
    ]);
    expect(next?.[1]).toBe(list[1]);
    const offline = applyPresence(list, presence('a-2', false, null));
    // A frame without a last sign of life keeps the one the list had.
    expect(offline?.[1]).toMatchObject({ online: false, last_seen: '2026-01-01T00:00:00.000Z' });
  });

  it('never counts a revoked certificate online, and says when the frame is about nobody listed', () => {
    const revoked = [member('gone', { agent_id: 'a-9', revoked_at: '2026-01-01T00:00:00.000Z' })];
    expect(applyPresence(revoked, presence('a-9', true))?.[0]?.online).toBe(false);
    expect(applyPresence(list, presence('someone-else', true))).toBeNull();
  });
});

describe('mayBeNewlyConnected', () => {
  it('is true while a member that acts has not connected yet (the owner never does)', () => {
    expect(mayBeNewlyConnected([member('owner', { owner: true })])).toBe(false);
    expect(mayBeNewlyConnected([member('gone', { revoked_at: '2026-01-01T00:00:00.000Z' })])).toBe(false);
    expect(mayBeNewlyConnected([member('ada', { agent_id: 'a-1' }), member('new')])).toBe(true);
  });
});

describe('presenceState', () => {
  it('is online, offline once seen, or never', () => {
    expect(presenceState(member('a', { online: true, last_seen: '2026-01-01T00:00:00.000Z' }))).toBe('online');
    expect(presenceState(member('a', { last_seen: '2026-01-01T00:00:00.000Z' }))).toBe('offline');
    expect(presenceState(member('a'))).toBe('never');
    expect(presenceState(member('a', { online: true, revoked_at: '2026-01-01T00:00:00.000Z', last_seen: null }))).toBe('never');
  });
});

describe('joinCommand', () => {
  it('is the line `svc-node team invite` prints', () => {
    expect(joinCommand({ join_url: 'http://127.0.0.1:7420/v1/team/join', code: 'svc_join_ab', alias: 'scout' })).toBe(
      'svc-node team join http://127.0.0.1:7420/v1/team/join svc_join_ab --alias scout',
    );
  });

  it('starts with this node’s own svc-node when the node says where it is, a path with a space kept one word', () => {
    const invite = {
      join_url: 'http://127.0.0.1:7420/v1/team/join',
      code: 'svc_join_ab',
      alias: 'scout',
      cli: ['/opt/svc node/node_modules/node/bin/node', '/opt/svc node/bin/svc-node.js'],
    };
    expect(joinCommand(invite)).toBe(
      "'/opt/svc node/node_modules/node/bin/node' '/opt/svc node/bin/svc-node.js' team join http://127.0.0.1:7420/v1/team/join svc_join_ab --alias scout",
    );
  });
});

describe('sortInvites', () => {
  it('puts the invite that expires soonest first', () => {
    const invite = (alias: string, expires: string): PendingInvite => ({
      invite_id: alias,
      team_id: 't',
      alias,
      lifetime: 'ephemeral',
      address: null,
      created_at: '2026-01-01T00:00:00.000Z',
      expires_at: expires,
    });
    const sorted = sortInvites([invite('late', '2026-03-01T00:00:00.000Z'), invite('soon', '2026-01-02T00:00:00.000Z')]);
    expect(sorted.map((i) => i.alias)).toEqual(['soon', 'late']);
  });
});

describe('names of people in team records', () => {
  it('names the identity the app acted as, by its name, and says which address it stands for', () => {
    const alice = { agent_id: 'a1', alias: 'alice', name: 'Alice Liddell', address: 'example.com/alice' };
    expect(actorName('owner', alice)).toBe('Alice Liddell');
    expect(actorHint('owner', alice)).toBe('In this app as example.com/alice');
    const bob = { agent_id: 'b1', alias: 'bob', name: 'bob', address: null };
    expect(actorName('owner', bob)).toBe('bob');
    expect(actorHint('owner', bob)).toBe('In this app as bob');
  });

  it('calls the owner member the person using this app when no identity was recorded, never "owner"', () => {
    expect(actorName('owner')).toBe('you');
    expect(actorName('owner', null)).toBe('you');
    expect(actorHint('owner', null)).toMatch(/not recorded/);
    expect(actorName('scout')).toBe('scout');
    expect(actorName('scout', null)).toBe('scout');
    expect(actorHint('scout', null)).toBe('Team member scout');
    expect(listedMemberName({ alias: 'owner', owner: true }, 'alice')).toBe('alice (you)');
    expect(listedMemberName({ alias: 'owner', owner: true }, null)).toBe('You');
    expect(listedMemberName({ alias: 'scout', owner: false }, 'alice')).toBe('scout');
  });
});
