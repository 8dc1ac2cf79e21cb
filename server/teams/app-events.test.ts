/**
 * AppEvents against a real encrypted database: who an event reaches (subscription match and team
 * membership), the five-minute lookback, pruning, the metadata-only payload, and the wake source
 * frames the identity stream writes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startCoreNode, type CoreNode } from '../../test/support/core-node.ts';
import { identityTopic } from '../events/bus.ts';
import { appEventWakeSource } from '../surfaces/core/events/sources.ts';
import type { DocChangedEvent } from './app-events.ts';

let node: CoreNode;
let projectId: string;
let counter = 0;

beforeAll(async () => {
  node = await startCoreNode();
  return () => node.close();
});
beforeAll(() => {
  projectId = node.services.projects.create({ slug: 'app-events' }).project_id;
});

const changed = (slug: string, version = 2, source: DocChangedEvent['payload']['source'] = 'api'): DocChangedEvent => ({
  type: 'docs/doc.changed',
  resource_ref: slug,
  payload: { slug, version, source },
});

/** A new team, and `count` identities that are members of it. */
function teamWith(count: number): { teamId: string; members: { agent_id: string; did_key: string; certificate_id: string }[] } {
  const { teams, identities } = node.services;
  const teamId = teams.create(`t${++counter}`, 'app-events.test').team_id;
  const members = Array.from({ length: count }, () => {
    const identity = identities.create(projectId, { alias: `m${++counter}` });
    const { certificate } = teams.addMember(teamId, { did_key: identity.did_key, alias: `m${counter}` });
    return { agent_id: identity.agent_id, did_key: identity.did_key, certificate_id: certificate.certificate_id };
  });
  return { teamId, members };
}

const subscribe = (agentId: string, teamId: string, resourceRef: string | null) =>
  node.services.subscriptions.subscribe(agentId, { type: 'docs/doc.changed', resource_ref: resourceRef, team_id: teamId });

const slugs = (agentId: string, afterId: number | null = null) => node.services.appEvents.pending(agentId, afterId).map((e) => e.resource_ref);

describe('AppEvents', () => {
  it('reaches subscribers of that slug and of every slug, in that team only', () => {
    const { teamId, members } = teamWith(4);
    const [exact, all, other, none] = members.map((m) => m.agent_id) as [string, string, string, string];
    const elsewhere = teamWith(1);
    subscribe(exact, teamId, 'a');
    subscribe(all, teamId, null);
    subscribe(other, teamId, 'b');
    subscribe(elsewhere.members[0]!.agent_id, elsewhere.teamId, null);

    expect(node.services.appEvents.subscribers(teamId, 'docs/doc.changed', 'a')).toEqual([exact, all].sort());
    const nudged: string[] = [];
    const unsubscribe = node.ctx.bus.subscribeAll((topic) => nudged.push(topic));
    node.services.appEvents.emit(teamId, changed('a'));
    unsubscribe();

    expect(nudged.sort()).toEqual([identityTopic(exact), identityTopic(all)].sort());
    expect(slugs(exact)).toEqual(['a']);
    expect(slugs(all)).toEqual(['a']);
    expect(slugs(other)).toEqual([]);
    expect(slugs(none)).toEqual([]);
    expect(slugs(elsewhere.members[0]!.agent_id)).toEqual([]);
  });

  it('stores only the metadata, whatever else a caller passes', () => {
    const { teamId, members } = teamWith(1);
    const agent = members[0]!.agent_id;
    subscribe(agent, teamId, null);
    const event = changed('doc', 3, 'template');
    node.services.appEvents.emit(teamId, { ...event, payload: { ...event.payload, body: 'secret text' } as DocChangedEvent['payload'] });
    const [stored] = node.services.appEvents.pending(agent, null);
    expect(stored?.payload).toEqual({ slug: 'doc', version: 3, source: 'template' });
  });

  it('stops reaching an identity whose certificate is revoked', () => {
    const { teamId, members } = teamWith(1);
    const member = members[0]!;
    subscribe(member.agent_id, teamId, 'a');
    node.services.appEvents.emit(teamId, changed('a'));
    expect(slugs(member.agent_id)).toEqual(['a']);
    node.services.teams.revoke(teamId, member.certificate_id);
    expect(slugs(member.agent_id)).toEqual([]);
  });

  it('replays the last five minutes, returns what is after a cursor, and prunes after an hour', () => {
    const { teamId, members } = teamWith(1);
    const agent = members[0]!.agent_id;
    subscribe(agent, teamId, null);
    node.services.appEvents.emit(teamId, changed('old'));
    node.advance(4 * 60 * 1000);
    node.services.appEvents.emit(teamId, changed('recent'));
    expect(slugs(agent)).toEqual(['old', 'recent']);

    node.advance(2 * 60 * 1000);
    expect(slugs(agent)).toEqual(['recent']);
    const cursor = node.services.appEvents.pending(agent, null).at(-1)!.id;
    node.services.appEvents.emit(teamId, changed('new'));
    expect(slugs(agent, cursor)).toEqual(['new']);
    // Even from cursor 0, nothing older than the lookback comes back.
    expect(slugs(agent, 0)).toEqual(['recent', 'new']);

    const count = () => node.ctx.db.prepare(`SELECT COUNT(*) FROM app_events WHERE team_id = ?`).pluck().get(teamId);
    expect(count()).toBe(3);
    node.advance(61 * 60 * 1000);
    node.services.appEvents.emit(teamId, changed('later'));
    expect(count()).toBe(1);
  });

  it('knows when a resume from a cursor has missed events: its own aged out, or any pruned after it', () => {
    const { teamId, members } = teamWith(1);
    const agent = members[0]!.agent_id;
    subscribe(agent, teamId, null);
    const { appEvents } = node.services;
    const stranger = teamWith(1);

    const start = appEvents.head();
    // Another team's event, even aged out, was never this identity's to miss.
    appEvents.emit(stranger.teamId, changed('theirs'));
    node.advance(6 * 60 * 1000);
    expect(appEvents.lostAfter(agent, start)).toBe(false);

    // Its own event within the window: resumable; past it: lost.
    const before = appEvents.head();
    appEvents.emit(teamId, changed('mine'));
    expect(appEvents.head()).toBe(before + 1);
    expect(appEvents.lostAfter(agent, before)).toBe(false);
    node.advance(6 * 60 * 1000);
    expect(appEvents.lostAfter(agent, before)).toBe(true);
    expect(appEvents.lostAfter(agent, appEvents.head())).toBe(false);

    // Pruned events after the cursor: whose they were is no longer known, so they count as missed.
    const quiet = appEvents.head();
    appEvents.emit(stranger.teamId, changed('pruned later'));
    node.advance(61 * 60 * 1000);
    appEvents.emit(stranger.teamId, changed('prunes'));
    expect(appEvents.lostAfter(agent, quiet)).toBe(true);
    expect(appEvents.lostAfter(agent, appEvents.head())).toBe(false);
  });

  it('refuses an unknown type (a programming error)', () => {
    expect(() => node.services.appEvents.emit('x:y', { ...changed('a'), type: 'docs/other' } as unknown as DocChangedEvent)).toThrow(/unknown app event type/);
  });
});

describe('appEventWakeSource', () => {
  it('frames each event under its type: the event fields and the metadata, never a body; nothing is consumed', () => {
    const { teamId, members } = teamWith(1);
    const agent = members[0]!.agent_id;
    subscribe(agent, teamId, 'a');
    node.services.appEvents.emit(teamId, changed('a', 7, 'present-link'));
    const source = appEventWakeSource(node.services.appEvents);
    const [item] = source.pending(agent, null);
    expect(item?.event).toBe('docs/doc.changed');
    expect(item?.claim).toBeUndefined();
    expect(Object.keys(item!.data).sort()).toEqual(['created_at', 'event_id', 'resource_ref', 'slug', 'source', 'team_id', 'type', 'version']);
    expect(item?.data).toMatchObject({ type: 'docs/doc.changed', team_id: teamId, resource_ref: 'a', slug: 'a', version: 7, source: 'present-link' });
    expect(item?.data.event_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(source.pending(agent, null)).toEqual([item]);
    expect(source.pending(agent, item!.id)).toEqual([]);
  });
});
