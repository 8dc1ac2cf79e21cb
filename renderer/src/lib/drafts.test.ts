import { describe, expect, it } from 'vitest';
import type { DocumentSummary } from '../api/docs.ts';
import {
  documentRows,
  DraftStore,
  MAIL_BODY_KEPT,
  MAIL_DRAFTS_KEPT,
  mailDraftSlot,
  MailDrafts,
  sameMailDraft,
  slugFromTitle,
  SLUG_PATTERN,
  UNSENT_KEPT,
  type DocumentDraft,
  type DraftStorage,
  type MailDraft,
  type UnsentMail,
} from './drafts.ts';

/** A Storage over a Map, with an optional byte quota like a browser's. */
function memoryStorage(quota = Infinity): DraftStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get length() {
      return map.size;
    },
    key: (i) => [...map.keys()][i] ?? null,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => {
      const used = [...map.entries()].filter(([key]) => key !== k).reduce((n, [key, value]) => n + key.length + value.length, 0);
      if (used + k.length + v.length > quota) throw new DOMException('full', 'QuotaExceededError');
      map.set(k, v);
    },
    removeItem: (k) => void map.delete(k),
  };
}

const draft = (over: Partial<DocumentDraft> = {}): DocumentDraft => ({
  teamId: 'docs:acme.test',
  slug: 'plan',
  baseVersion: 2,
  title: 'Plan',
  body: '# Plan\n',
  updatedAt: '2026-11-21T10:00:00.000Z',
  ...over,
});

describe('DraftStore', () => {
  it('keeps, reads back and removes a draft per team and slug', () => {
    const store = new DraftStore(memoryStorage(), 'http://127.0.0.1:4000');
    expect(store.get('docs:acme.test', 'plan')).toBeNull();
    expect(store.put(draft())).toBe(true);
    expect(store.get('docs:acme.test', 'plan')).toEqual(draft());
    expect(store.get('other:acme.test', 'plan')).toBeNull();
    store.remove('docs:acme.test', 'plan');
    expect(store.get('docs:acme.test', 'plan')).toBeNull();
  });

  it('keeps two nodes in one browser apart', () => {
    const storage = memoryStorage();
    new DraftStore(storage, 'http://127.0.0.1:4000').put(draft());
    expect(new DraftStore(storage, 'http://127.0.0.1:5000').get('docs:acme.test', 'plan')).toBeNull();
  });

  it("lists one team's drafts, newest first, including documents not yet created", () => {
    const store = new DraftStore(memoryStorage(), 'o');
    store.put(draft({ slug: 'old', updatedAt: '2026-11-20T00:00:00.000Z' }));
    store.put(draft({ slug: 'new', baseVersion: null, updatedAt: '2026-11-21T00:00:00.000Z' }));
    store.put(draft({ teamId: 'x:y.test', slug: 'elsewhere' }));
    expect(store.list('docs:acme.test').map((d) => [d.slug, d.baseVersion])).toEqual([
      ['new', null],
      ['old', 2],
    ]);
  });

  it('ignores values that are not drafts instead of failing', () => {
    const storage = memoryStorage();
    const store = new DraftStore(storage, 'o');
    storage.setItem('svc-node.draft@o|docs:acme.test|broken', '{not json');
    storage.setItem('svc-node.draft@o|docs:acme.test|wrong', JSON.stringify({ slug: 'wrong' }));
    expect(store.get('docs:acme.test', 'broken')).toBeNull();
    expect(store.list('docs:acme.test')).toEqual([]);
  });

  it('says false, and keeps the previous draft, when the storage is full', () => {
    const store = new DraftStore(memoryStorage(400), 'o');
    expect(store.put(draft({ body: 'short' }))).toBe(true);
    expect(store.put(draft({ body: 'x'.repeat(1000) }))).toBe(false);
    expect(store.get('docs:acme.test', 'plan')?.body).toBe('short');
  });
});

describe('slugFromTitle', () => {
  it('makes a slug the node accepts from any title', () => {
    expect(slugFromTitle('Q4 Plan: Pricing & Growth!')).toBe('q4-plan-pricing-growth');
    expect(slugFromTitle('Café Überblick')).toBe('cafe-uberblick');
    expect(slugFromTitle('  --  ')).toBe('');
    const long = slugFromTitle('word '.repeat(100));
    expect(long.length).toBeLessThanOrEqual(160);
    expect(long).toMatch(SLUG_PATTERN);
    expect(long.endsWith('-')).toBe(false);
  });

  it('transliterates letters that carry no separate accent, instead of dropping them', () => {
    expect(slugFromTitle('Ünïcødé')).toBe('unicode');
    expect(slugFromTitle('Straße nach Ærø')).toBe('strasse-nach-aero');
    expect(slugFromTitle('Łódź Œuvre Þór ıstanbul')).toBe('lodz-oeuvre-thor-istanbul');
    expect(slugFromTitle('ＡＢＣ ½ café')).toBe('abc-1-2-cafe');
    expect(slugFromTitle('日本語')).toBe('');
    for (const title of ['Ünïcødé', 'ẞ-Großbuchstabe', 'Ørsted Ħal']) expect(slugFromTitle(title)).toMatch(SLUG_PATTERN);
  });
});

describe('documentRows', () => {
  const onNode = (slug: string, title: string, version: number): DocumentSummary =>
    ({ slug, title, current_version: version, updated_at: `2026-11-2${version}T09:00:00.000Z` }) as DocumentSummary;

  it('lists drafts of documents the node did not list first, then the node’s, each marked when it has a draft', () => {
    const drafts = [draft({ slug: 'new', title: 'New', baseVersion: null }), draft({ slug: 'plan', title: 'Plan' })];
    expect(documentRows(drafts, [onNode('plan', 'Plan', 2), onNode('notes', 'Notes', 1)], '')).toEqual([
      { slug: 'new', title: 'New', version: null, updatedAt: '2026-11-21T10:00:00.000Z', hasDraft: true },
      { slug: 'plan', title: 'Plan', version: 2, updatedAt: '2026-11-22T09:00:00.000Z', hasDraft: true },
      { slug: 'notes', title: 'Notes', version: 1, updatedAt: '2026-11-21T09:00:00.000Z', hasDraft: false },
    ]);
  });

  it('filters the drafts by title or slug, as the node filtered its documents', () => {
    const drafts = [draft({ slug: 'road-map', title: 'Roadmap' }), draft({ slug: 'minutes', title: 'Tuesday' })];
    expect(documentRows(drafts, [], ' ROAD ').map((row) => row.slug)).toEqual(['road-map']);
    expect(documentRows(drafts, [], 'tues').map((row) => row.slug)).toEqual(['minutes']);
  });
});

const mailDraft = (over: Partial<MailDraft> = {}): MailDraft => ({
  to: [{ value: 'acme.test/bob', kind: 'address', label: 'bob' }],
  subject: 'Lunch',
  body: 'Friday?',
  priority: 'normal',
  ...over,
});

const unsent = (id: string, over: Partial<UnsentMail> = {}): UnsentMail => ({
  id,
  draft: mailDraft(),
  error: 'The node did not answer.',
  messageId: null,
  triedAt: '2026-11-21T10:00:00.000Z',
  ...over,
});

describe('MailDrafts', () => {
  const ORIGIN = 'http://127.0.0.1:4000';

  it('keeps a draft per identity and slot: a new mail, and a reply per thread', () => {
    const storage = memoryStorage();
    const drafts = new MailDrafts(storage, ORIGIN);
    expect(drafts.put('alice', mailDraft())).toBeNull();
    expect(drafts.put('alice', mailDraft({ thread_id: 't1', body: 'Yes.' }))).toBeNull();
    expect(drafts.get('alice', 'new')).toEqual(mailDraft());
    expect(drafts.get('alice', mailDraftSlot({ thread_id: 't1' }))?.body).toBe('Yes.');
    expect(drafts.get('bob', 'new')).toBeNull();
    expect(new MailDrafts(storage, 'http://127.0.0.1:5000').get('alice', 'new')).toBeNull();
    drafts.remove('alice', 'new');
    expect(drafts.get('alice', 'new')).toBeNull();
    // The Documents drafts in the same storage are another family of keys.
    expect(new DraftStore(storage, ORIGIN).list('alice')).toEqual([]);
  });

  it('stays bounded: the oldest drafts go, a body longer than the node takes is refused, a full storage is said', () => {
    const drafts = new MailDrafts(memoryStorage(), ORIGIN);
    for (let i = 0; i < MAIL_DRAFTS_KEPT + 3; i++) drafts.put('alice', mailDraft({ thread_id: `t${i}` }), new Date(Date.UTC(2026, 0, 1, 0, i)));
    expect(drafts.get('alice', 're:t0')).toBeNull();
    expect(drafts.get('alice', 're:t2')).toBeNull();
    expect(drafts.get('alice', 're:t3')).not.toBeNull();
    expect(drafts.get('alice', `re:t${MAIL_DRAFTS_KEPT + 2}`)).not.toBeNull();
    expect(drafts.put('alice', mailDraft({ body: 'x'.repeat(MAIL_BODY_KEPT + 1) }))).toBe('too-long');
    expect(new MailDrafts(memoryStorage(100), ORIGIN).put('alice', mailDraft({ body: 'x'.repeat(200) }))).toBe('full');
  });

  it('reads back nothing from a damaged or altered entry', () => {
    const storage = memoryStorage();
    const drafts = new MailDrafts(storage, ORIGIN);
    storage.setItem(`svc-node.mail-draft@${ORIGIN}|alice|new`, '{not json');
    expect(drafts.get('alice', 'new')).toBeNull();
    storage.setItem(`svc-node.mail-draft@${ORIGIN}|alice|new`, JSON.stringify({ draft: { ...mailDraft(), priority: 'loud' } }));
    expect(drafts.get('alice', 'new')).toBeNull();
    storage.setItem(`svc-node.mail-unsent@${ORIGIN}|alice`, JSON.stringify([unsent('a'), { id: 'b' }]));
    expect(drafts.unsent('alice').map((u) => u.id)).toEqual(['a']);
  });

  it('keeps the unsent mail of each identity, the newest few', () => {
    const drafts = new MailDrafts(memoryStorage(), ORIGIN);
    expect(drafts.unsent('alice')).toEqual([]);
    const many = Array.from({ length: UNSENT_KEPT + 2 }, (_, i) => unsent(`u${i}`));
    expect(drafts.putUnsent('alice', many)).toBe(true);
    expect(drafts.unsent('alice').map((u) => u.id)).toEqual(many.slice(2).map((u) => u.id));
    expect(drafts.unsent('bob')).toEqual([]);
    expect(drafts.putUnsent('alice', [])).toBe(true);
    expect(drafts.unsent('alice')).toEqual([]);
    expect(new MailDrafts(memoryStorage(10), ORIGIN).putUnsent('alice', [unsent('a')])).toBe(false);
  });

  it('reads another window’s write of an identity’s unsent mail on this node, and no other key', () => {
    const drafts = new MailDrafts(memoryStorage(), ORIGIN);
    const key = `svc-node.mail-unsent@${ORIGIN}|alice`;
    const change = drafts.unsentChange({ key, oldValue: JSON.stringify([unsent('a'), unsent('b')]), newValue: JSON.stringify([unsent('b')]) });
    expect(change?.agentId).toBe('alice');
    expect(change?.before.map((u) => u.id)).toEqual(['a', 'b']);
    expect(change?.after.map((u) => u.id)).toEqual(['b']);
    expect(drafts.unsentChange({ key, oldValue: JSON.stringify([unsent('a')]), newValue: null })?.after).toEqual([]);
    expect(drafts.unsentChange({ key: `svc-node.mail-unsent@http://127.0.0.1:5000|alice`, oldValue: null, newValue: '[]' })).toBeNull();
    expect(drafts.unsentChange({ key: `svc-node.mail-draft@${ORIGIN}|alice|new`, oldValue: null, newValue: '{}' })).toBeNull();
    expect(drafts.unsentChange({ key: null, oldValue: null, newValue: null })).toBeNull();
  });

  it('tells a changed draft from the one it started as', () => {
    expect(sameMailDraft(mailDraft(), mailDraft())).toBe(true);
    expect(sameMailDraft(mailDraft(), mailDraft({ body: 'Friday? ' }))).toBe(false);
    expect(sameMailDraft(mailDraft(), mailDraft({ to: [] }))).toBe(false);
    expect(sameMailDraft(mailDraft(), mailDraft({ thread_id: 't' }))).toBe(false);
  });
});
