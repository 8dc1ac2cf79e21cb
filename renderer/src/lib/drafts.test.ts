import { describe, expect, it } from 'vitest';
import type { DocumentSummary } from '../api/docs.ts';
import { documentRows, DraftStore, slugFromTitle, SLUG_PATTERN, type DocumentDraft, type DraftStorage } from './drafts.ts';

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

  it('lists one team\'s drafts, newest first, including documents not yet created', () => {
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

  it('transliterates letters that carry no separate accent (issue 14)', () => {
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
