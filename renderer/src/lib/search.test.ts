import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../api/search.ts';
import { groupHits, hitContext, hitKey, hitRoute, indexingNote, latestOnly } from './search.ts';

const base = { snippet: '', highlights: [], title_highlights: [], created_at: '2026-01-01T00:00:00Z', score: 1 };
const mail = (id: string, fields: Partial<Extract<SearchHit, { kind: 'mail' }>> = {}): SearchHit => ({
  kind: 'mail',
  ...base,
  title: `Mail ${id}`,
  message_id: id,
  thread_id: null,
  agent_id: 'a-alice',
  folder: 'inbox',
  from: 'example.com/bob',
  to: 'example.com/alice',
  unread: false,
  ...fields,
});
const chat: SearchHit = { kind: 'chat', ...base, title: 'bob', message_id: 'c1', session_id: 's1', agent_id: 'a-alice', from: 'bob' };
const doc = (version: number, current: boolean): SearchHit => ({
  kind: 'document',
  ...base,
  title: 'Plan',
  team_id: 'crew:example.com',
  slug: 'plan',
  version,
  current,
});
const profile: SearchHit = { kind: 'profile', ...base, title: 'Reviewer', team_id: 'crew:example.com', profile_ref: 'reviewer' };
const blueprint: SearchHit = { kind: 'blueprint', ...base, title: 'Starter', blueprint_ref: 'acme/starter' };

describe('latestOnly', () => {
  it('lets only the newest question’s answer through, whatever order the answers come in', () => {
    const gate = latestOnly();
    const first = gate.begin();
    const second = gate.begin();
    expect(first()).toBe(false);
    expect(second()).toBe(true);
    const third = gate.begin();
    expect(second()).toBe(false);
    expect(third()).toBe(true);
  });

  it('makes every answer on its way moot when cancelled', () => {
    const gate = latestOnly();
    const asked = gate.begin();
    gate.cancel();
    expect(asked()).toBe(false);
  });
});

describe('groupHits', () => {
  it('groups by kind in a fixed order, keeping the node’s order inside each group', () => {
    const hits = [blueprint, doc(3, true), mail('m2'), chat, profile, mail('m1'), doc(1, false)];
    const groups = groupHits(hits);
    expect(groups.map((group) => group.label)).toEqual(['Mail', 'Chat', 'Documents', 'Profiles', 'Blueprints']);
    expect(groups[0]?.hits.map((hit) => (hit.kind === 'mail' ? hit.message_id : ''))).toEqual(['m2', 'm1']);
    expect(groups[2]?.hits.map((hit) => (hit.kind === 'document' ? hit.version : 0))).toEqual([3, 1]);
  });

  it('leaves out kinds without hits', () => {
    expect(groupHits([profile, chat]).map((group) => group.kind)).toEqual(['chat', 'profile']);
    expect(groupHits([])).toEqual([]);
  });
});

describe('hitKey', () => {
  it('tells apart the same mail in two mailboxes, and two versions of a document', () => {
    expect(hitKey(mail('m1'))).not.toBe(hitKey(mail('m1', { agent_id: 'a-bob', folder: 'sent' })));
    expect(hitKey(doc(1, false))).not.toBe(hitKey(doc(2, true)));
  });
});

describe('hitRoute', () => {
  it('opens each kind in its own view, with what the view needs to select it', () => {
    expect(hitRoute(mail('m1', { folder: 'archive' }))).toEqual({ path: '/mail', query: { identity: 'a-alice', message: 'm1', folder: 'archive' } });
    expect(hitRoute(chat)).toEqual({ path: '/chat', query: { identity: 'a-alice', session: 's1' } });
    expect(hitRoute(doc(3, true))).toEqual({ path: '/documents', query: { team: 'crew:example.com', doc: 'plan' } });
    expect(hitRoute(doc(1, false))).toEqual({ path: '/documents', query: { team: 'crew:example.com', doc: 'plan', version: '1' } });
    expect(hitRoute(profile)).toEqual({ path: '/shelf', query: { team: 'crew:example.com', profile: 'reviewer' } });
    expect(hitRoute(blueprint)).toEqual({ path: '/shelf', query: { blueprint: 'acme/starter' } });
  });
});

describe('hitContext', () => {
  const teamName = (id: string) => (id === 'crew:example.com' ? 'crew' : id);

  it('says who wrote to whom and where a mail is', () => {
    expect(hitContext(mail('m1'))).toEqual(['example.com/bob → example.com/alice', 'Inbox']);
    expect(hitContext(mail('m1', { folder: 'sent', unread: false }))).toContain('Sent');
    expect(hitContext(mail('m1', { unread: true }))).toContain('unread');
  });

  it('names the team and version of a document, and says when it is an older one', () => {
    expect(hitContext(doc(3, true), teamName)).toEqual(['crew', 'v3']);
    expect(hitContext(doc(1, false), teamName)).toEqual(['crew', 'v1', 'older version']);
  });

  it('names a chat’s sender once, a profile’s team and id, a blueprint’s id', () => {
    expect(hitContext(chat)).toEqual(['Chat']);
    expect(hitContext({ ...chat, title: 'Standup' } as SearchHit)).toEqual(['Chat', 'bob']);
    expect(hitContext(profile, teamName)).toEqual(['crew', 'reviewer']);
    expect(hitContext({ ...profile, title: 'reviewer' } as SearchHit, teamName)).toEqual(['crew']);
    expect(hitContext(blueprint)).toEqual(['acme/starter']);
  });
});

describe('indexingNote', () => {
  it('explains a missing old item while the index is still being built', () => {
    expect(indexingNote({ complete: false, indexed: 120, total: 500 })).toBe('Indexing older items… 120 of 500');
    expect(indexingNote({ complete: true, indexed: 500, total: 500 })).toBeNull();
    expect(indexingNote(null)).toBeNull();
  });
});
