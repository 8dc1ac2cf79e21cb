/**
 * The app events store on a real encrypted database: which events an identity may see (its
 * subscription, membership by the teams' rule, the type's scope), the snapshot and live pages,
 * pruning, and the subscription queries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { agentRow, useStoreDatabase } from '../../test/support/store-database.ts';
import { appendDidLogEntry } from '../surfaces/core/did/store.ts';
import { insertIdentity } from '../surfaces/core/identities/store/agents.ts';
import { insertProject } from '../surfaces/core/projects/store.ts';
import { insertCertificate, insertTeam, revokeCertificate } from './store.ts';
import {
  deleteSubscription,
  findSubscription,
  insertAppEvent,
  insertSubscription,
  pruneAppEvents,
  subscribersOf,
  subscriptionsOf,
  visibleAppEvents,
} from './app-event-store.ts';

const db = useStoreDatabase();
const TEAM = 'docs:events.test';
const SINCE = '2026-01-01T00:00:00.000Z';
let counter = 0;

function member(agentId: string, scopes: string[], byDidSvc = false): string {
  const didAw = byDidSvc ? `did:svc:${agentId}` : null;
  if (didAw !== null) {
    appendDidLogEntry(
      db(),
      {
        did_aw: didAw,
        seq: 1,
        operation: 'register_did',
        previous_did_key: null,
        new_did_key: `did:key:z${agentId}`,
        prev_entry_hash: null,
        entry_hash: `h-${agentId}`,
        state_hash: 's',
        authorized_by: `did:key:z${agentId}`,
        signature: 'sig',
        timestamp: '2026-01-01T00:00:00Z',
      },
      SINCE,
    );
  }
  insertIdentity(db(), agentRow(agentId, 'p', { did_aw: didAw }));
  const certificateId = `cert-${agentId}`;
  insertCertificate(db(), {
    certificate_id: certificateId,
    team_id: TEAM,
    // A certificate naming the did:svc need not name the identity's current key.
    member_did_key: byDidSvc ? 'did:key:zSomeEarlierKey' : `did:key:z${agentId}`,
    member_did_aw: didAw,
    member_address: null,
    alias: agentId,
    lifetime: 'persistent',
    issued_at: SINCE,
    certificate: '{}',
    scopes: JSON.stringify(scopes),
    member_key_id: null,
  });
  return certificateId;
}

function subscribe(agentId: string, resourceRef: string | null): void {
  insertSubscription(db(), {
    subscription_id: `sub-${++counter}`,
    agent_id: agentId,
    team_id: TEAM,
    type: 'docs/doc.changed',
    resource_ref: resourceRef,
    created_at: `2026-01-01T00:00:${String(counter).padStart(2, '0')}.000Z`,
  });
}

function event(slug: string, createdAt = '2026-01-01T00:10:00.000Z'): void {
  insertAppEvent(db(), {
    event_id: `event-${++counter}`,
    team_id: TEAM,
    type: 'docs/doc.changed',
    resource_ref: slug,
    payload: JSON.stringify({ slug, version: counter }),
    created_at: createdAt,
  });
}

const slugsSeenBy = (agentId: string, afterId: number | null = null, limit = 50) =>
  visibleAppEvents(db(), agentId, { afterId, since: SINCE, limit }).map((e) => e.resource_ref);

beforeAll(() => {
  insertProject(db(), { project_id: 'p', slug: 'p', name: 'p', namespace: null, created_at: SINCE });
  insertTeam(db(), {
    team_id: TEAM,
    name: 'docs',
    domain: 'events.test',
    key_id: 'team-key',
    team_did_key: 'did:key:zTeam',
    owner_certificate_id: 'owner',
    created_at: SINCE,
  });
});

describe('what an identity may see', () => {
  it('needs a matching subscription, membership and the type’s scope', () => {
    member('reader', ['docs:read']);
    member('svc-reader', ['docs:read'], true);
    member('writer-only', ['docs:write']);
    member('unsubscribed', ['docs:read']);
    subscribe('reader', 'pitch');
    subscribe('svc-reader', null);
    subscribe('writer-only', null);
    event('pitch');
    event('memo');
    expect(slugsSeenBy('reader')).toEqual(['pitch']);
    expect(slugsSeenBy('svc-reader')).toEqual(['pitch', 'memo']);
    expect(slugsSeenBy('writer-only')).toEqual([]);
    expect(slugsSeenBy('unsubscribed')).toEqual([]);
  });

  it('stops with the certificate’s revocation', () => {
    const certificateId = member('leaver', ['docs:read']);
    subscribe('leaver', null);
    expect(slugsSeenBy('leaver')).toEqual(['pitch', 'memo']);
    revokeCertificate(db(), certificateId, '2026-01-02T00:00:00.000Z');
    expect(slugsSeenBy('leaver')).toEqual([]);
  });

  it('pages: the newest `limit` oldest first on connect, then what follows a row', () => {
    for (const slug of ['e1', 'e2', 'e3']) event(slug);
    expect(slugsSeenBy('svc-reader', null, 2)).toEqual(['e2', 'e3']);
    const [first] = visibleAppEvents(db(), 'svc-reader', { afterId: null, since: SINCE, limit: 50 });
    expect(first).toMatchObject({ resource_ref: 'pitch', payload: { slug: 'pitch' } });
    expect(slugsSeenBy('svc-reader', first!.id, 2)).toEqual(['memo', 'e1']);
  });

  it('leaves out events older than `since`, and pruning drops them', () => {
    event('old', '2025-12-31T23:00:00.000Z');
    expect(slugsSeenBy('svc-reader')).not.toContain('old');
    const all = () => db().prepare(`SELECT COUNT(*) FROM app_events`).pluck().get() as number;
    const before = all();
    pruneAppEvents(db(), SINCE);
    expect(all()).toBe(before - 1);
  });
});

describe('subscriptions', () => {
  it('find one by its key (a null resource counting as one value), list and delete them', () => {
    expect(subscribersOf(db(), TEAM, 'docs/doc.changed', 'pitch')).toEqual(['leaver', 'reader', 'svc-reader', 'writer-only']);
    expect(subscribersOf(db(), TEAM, 'docs/doc.changed', 'memo')).toEqual(['leaver', 'svc-reader', 'writer-only']);
    const all = findSubscription(db(), 'svc-reader', { team_id: TEAM, type: 'docs/doc.changed', resource_ref: null });
    expect(all).toMatchObject({ team_id: TEAM, resource_ref: null });
    expect(Object.keys(all!)).toEqual(['subscription_id', 'type', 'team_id', 'resource_ref', 'created_at']);
    expect(findSubscription(db(), 'reader', { team_id: TEAM, type: 'docs/doc.changed', resource_ref: null })).toBeUndefined();
    expect(subscriptionsOf(db(), 'reader').map((s) => s.resource_ref)).toEqual(['pitch']);
    expect(deleteSubscription(db(), 'reader', all!.subscription_id)).toBe(false);
    expect(deleteSubscription(db(), 'svc-reader', all!.subscription_id)).toBe(true);
    expect(subscriptionsOf(db(), 'svc-reader')).toEqual([]);
  });
});
