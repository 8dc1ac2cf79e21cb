// @vitest-environment jsdom
/**
 * The documents store: the list the node filters and pages, the open document and its draft in
 * the window's storage (kept until saved, through a refused or failed save), a save over the
 * version the text started from (never over one saved meanwhile), documents started while the
 * node is unreachable, and documents changed elsewhere.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CreateDocumentInput, DocumentDetail, DocumentSaved } from '../api/docs.ts';
import { ApiError } from '../api/errors.ts';
import { DraftStore } from '../lib/drafts.ts';
import { useDocumentsStore } from './documents.ts';
import { useLiveStore } from './live.ts';
import { connectFakeNode, deferred, documentDetail, documentVersion, NODE_INFO, team, type FakeNode } from './test-client.ts';

vi.mock('../api/docs.ts', async (original) => (await import('./test-client.ts')).fakeDocsModule(await original()));

const TEAM = 'crew:example.com';

/** The team's documents on the fake node: each one's title and its versions' bodies, oldest first. */
let held: Map<string, { title: string; bodies: string[] }>;
let node: FakeNode;

const drafts = () => new DraftStore(window.localStorage, NODE_INFO.docs_url);
const unreachable = () => new ApiError(0, 'The node can’t be reached.');

function detail(slug: string): DocumentDetail {
  const doc = held.get(slug);
  if (doc === undefined) throw new ApiError(404, `No document ${slug}.`);
  return documentDetail(slug, doc.bodies.length, doc.bodies.at(-1)!, { title: doc.title });
}

beforeEach(() => {
  window.localStorage.clear();
  node = connectFakeNode();
  node.owner.teams = async () => [team(TEAM), team('ops:example.com')];
  held = new Map([
    ['plan', { title: 'Plan', bodies: ['# Plan v1', '# Plan v2'] }],
    ['notes', { title: 'Notes', bodies: ['notes'] }],
  ]);
  node.docs.page = async ({ limit, q }) => {
    const all = [...held.keys()].filter((slug) => q === undefined || slug.includes(q)).map((slug) => detail(slug));
    return { documents: all.slice(0, limit), has_more: all.length > limit, next_after: null, total: all.length };
  };
  node.docs.get = async (slug) => detail(slug);
  node.docs.versions = async (slug) => (held.get(slug)?.bodies ?? []).map((_, n) => documentVersion(n + 1)).reverse();
  node.docs.version = async (slug, n) => documentVersion(n, held.get(slug)?.bodies[n - 1] ?? null);
  node.docs.append = async (slug, markdown, base): Promise<DocumentSaved> => {
    const doc = held.get(slug)!;
    if (base !== doc.bodies.length) throw new ApiError(409, 'A newer version was saved meanwhile.', [], 'SVC_ERR_DOCUMENT_VERSION_STALE');
    doc.bodies.push(markdown);
    return { ...detail(slug), unchanged: false };
  };
  node.docs.create = createAsMarkdown;
});

/** Creates from Markdown (the templates are the node's business, not the store's). */
async function createAsMarkdown(input: CreateDocumentInput): Promise<DocumentDetail> {
  if (input.body === undefined) throw new Error('Only Markdown is faked here.');
  held.set(input.slug, { title: input.title, bodies: [input.body] });
  return detail(input.slug);
}
afterEach(() => vi.useRealTimers());

async function opened() {
  const store = useDocumentsStore();
  await store.open();
  return store;
}

describe('documents store: the list and the open document', () => {
  it('lists the chosen team’s documents and opens the first, as the team', async () => {
    const store = await opened();
    expect(store.rows.map((r) => r.slug)).toEqual(['plan', 'notes']);
    expect(store.total).toBe(2);
    expect(store.selectedSlug).toBe('plan');
    expect(store.text).toBe('# Plan v2');
    expect(store.baseVersion).toBe(2);
    expect(store.saveState).toBe('saved');
    await expect.poll(() => store.versions.map((v) => v.version_number)).toEqual([2, 1]);
    expect(new Set(node.callsTo('docs').map((c) => c.as))).toEqual(new Set([TEAM]));
  });

  it('filters on the node', async () => {
    const store = await opened();
    await store.search('not');
    expect(store.rows.map((r) => r.slug)).toEqual(['notes']);
    expect(node.callsTo('docs', 'page').at(-1)?.args[0]).toEqual({ limit: 100, after: null, q: 'not' });
  });

  it('reads an older version’s body once', async () => {
    const store = await opened();
    expect(await store.versionBody(1)).toBe('# Plan v1');
    expect(await store.versionBody(1)).toBe('# Plan v1');
    expect(await store.versionBody(2)).toBe('# Plan v2');
    expect(node.callsTo('docs', 'version')).toHaveLength(1);
  });
  it('takes no typing while the document is on its way, since its text would replace what was typed', async () => {
    const store = await opened();
    expect(store.editable).toBe(true);
    const answer = deferred<DocumentDetail>();
    node.docs.get = () => answer.promise;
    const opening = store.select('notes');
    expect(store.editable).toBe(false);
    answer.resolve(detail('notes'));
    await opening;
    expect(store.editable).toBe(true);
    expect(store.text).toBe('notes');
  });
});

describe('documents store: drafts', () => {
  it('keeps what is typed as a draft once typing pauses, and none once typed back', async () => {
    vi.useFakeTimers();
    const store = await opened();
    store.edit('# Plan v3');
    expect(store.saveState).toBe('unsaved');
    expect(store.dirty).toBe(true);
    await vi.advanceTimersByTimeAsync(250);
    expect(drafts().get(TEAM, 'plan')).toMatchObject({ body: '# Plan v3', baseVersion: 2 });
    expect(store.rows.find((r) => r.slug === 'plan')?.hasDraft).toBe(true);

    store.edit('# Plan v2');
    expect(store.saveState).toBe('saved');
    await vi.advanceTimersByTimeAsync(250);
    expect(drafts().get(TEAM, 'plan')).toBeNull();
  });

  it('opens a document at its draft after a reload, and forgets a draft that reads as the latest version', async () => {
    drafts().put({ teamId: TEAM, slug: 'plan', baseVersion: 2, title: 'Plan', body: 'typed before the reload', updatedAt: '2026-03-01T10:00:00.000Z' });
    drafts().put({ teamId: TEAM, slug: 'notes', baseVersion: 1, title: 'Notes', body: 'notes', updatedAt: '2026-03-01T10:00:00.000Z' });
    const store = await opened();
    expect(store.text).toBe('typed before the reload');
    expect(store.saveState).toBe('unsaved');
    await store.select('notes');
    expect(store.saveState).toBe('saved');
    expect(drafts().get(TEAM, 'notes')).toBeNull();
  });
});

describe('documents store: taking text back', () => {
  it('drops the local changes and shows the node’s version again', async () => {
    const store = await opened();
    store.edit('# Plan, abandoned');
    store.flushDraft();
    await store.discardDraft();
    expect(store.text).toBe('# Plan v2');
    expect(store.saveState).toBe('saved');
    expect(drafts().get(TEAM, 'plan')).toBeNull();
  });

  it('takes an older version’s text into the editor as a draft, to be saved as a new version', async () => {
    const store = await opened();
    await store.restore(1);
    expect(store.text).toBe('# Plan v1');
    expect(store.saveState).toBe('unsaved');
    expect(drafts().get(TEAM, 'plan')).toMatchObject({ body: '# Plan v1', baseVersion: 2 });
    await store.save();
    expect(held.get('plan')!.bodies).toEqual(['# Plan v1', '# Plan v2', '# Plan v1']);
  });
});

describe('documents store: saving', () => {
  it('saves over the version the text started from, and the draft goes', async () => {
    const store = await opened();
    store.edit('# Plan v3');
    store.flushDraft();
    const saved = await store.save();
    expect(saved?.current_version).toBe(3);
    expect(node.callsTo('docs', 'append').map((c) => c.args)).toEqual([['plan', '# Plan v3', 2]]);
    expect(store.saveState).toBe('saved');
    expect(store.baseVersion).toBe(3);
    expect(drafts().get(TEAM, 'plan')).toBeNull();
  });

  it('saves nothing when nothing changed', async () => {
    const store = await opened();
    await store.save();
    expect(node.callsTo('docs', 'append')).toEqual([]);
  });

  it('keeps the draft and shows the newer version when someone saved meanwhile', async () => {
    const store = await opened();
    store.edit('# Plan, my take');
    held.get('plan')!.bodies.push('# Plan, their take');
    expect(await store.save()).toBeNull();
    expect(store.saveState).toBe('failed');
    expect(store.current?.current_version).toBe(3);
    expect(store.behind).toBe(true);
    expect(store.text).toBe('# Plan, my take');
    expect(drafts().get(TEAM, 'plan')).toMatchObject({ body: '# Plan, my take', baseVersion: 2 });
    expect(held.get('plan')!.bodies).toEqual(['# Plan v1', '# Plan v2', '# Plan, their take']);

    // Merged with theirs, it goes over their version.
    store.applyMerge('# Plan, both takes');
    await store.save();
    expect(held.get('plan')!.bodies.at(-1)).toBe('# Plan, both takes');
    expect(store.saveState).toBe('saved');
  });

  it('keeps the draft and says so when the node can’t be reached', async () => {
    const store = await opened();
    node.docs.append = async () => {
      throw unreachable();
    };
    store.edit('# Plan offline');
    await store.save();
    expect(store.saveState).toBe('offline');
    expect(store.saveError).toBe('The node can’t be reached. Your changes are kept on this device; save again when it is back.');
    expect(drafts().get(TEAM, 'plan')?.body).toBe('# Plan offline');
  });

  it('keeps what was typed during a save as a draft over the version just saved', async () => {
    const store = await opened();
    const answer = deferred<DocumentSaved>();
    node.docs.append = () => answer.promise;
    store.edit('# Plan v3');
    const saving = store.save();
    store.edit('# Plan v3, and more');
    held.get('plan')!.bodies.push('# Plan v3');
    answer.resolve({ ...detail('plan'), unchanged: false });
    await saving;
    expect(store.saveState).toBe('unsaved');
    expect(store.baseVersion).toBe(3);
    expect(drafts().get(TEAM, 'plan')).toMatchObject({ body: '# Plan v3, and more', baseVersion: 3 });
  });

  it('forgets the draft of a save that answers after another document was opened', async () => {
    const store = await opened();
    const answer = deferred<DocumentSaved>();
    node.docs.append = () => answer.promise;
    store.edit('# Plan v3');
    const saving = store.save();
    await store.select('notes');
    held.get('plan')!.bodies.push('# Plan v3');
    answer.resolve({ ...detail('plan'), unchanged: false });
    await saving;
    expect(drafts().get(TEAM, 'plan')).toBeNull();
    expect(store.rows.find((r) => r.slug === 'plan')?.hasDraft).toBe(false);

    // Someone saves over it later: opening it shows their version, not a merge with my own saved text.
    held.get('plan')!.bodies.push('# Plan v4 by an agent');
    await store.select('plan');
    expect(store.text).toBe('# Plan v4 by an agent');
    expect(store.saveState).toBe('saved');
  });

  it('starts a document as a local draft while the node can’t be reached, and the first save creates it', async () => {
    const store = await opened();
    node.docs.create = async () => {
      throw unreachable();
    };
    expect(await store.create({ slug: 'idea', title: 'Idea', body: 'first words' })).toEqual({ offline: true });
    expect(store.selectedSlug).toBe('idea');
    expect(store.text).toBe('first words');
    expect(store.rows[0]).toMatchObject({ slug: 'idea', version: null, hasDraft: true });

    node.docs.create = createAsMarkdown;
    await store.save();
    expect(node.callsTo('docs', 'create').at(-1)?.args).toEqual([{ slug: 'idea', title: 'Idea', body: 'first words' }]);
    expect(store.saveState).toBe('saved');
    expect(drafts().get(TEAM, 'idea')).toBeNull();
  });
});

describe('documents store: changes made elsewhere', () => {
  it('shows a newer version of the open document in place when nothing is typed', async () => {
    const store = await opened();
    store.startLive();
    useLiveStore().start();
    held.get('plan')!.bodies.push('# Plan v3 by an agent');
    node.feed.change({ kind: 'docs_changed', teamId: TEAM });
    await expect.poll(() => store.text).toBe('# Plan v3 by an agent');
    expect(store.baseVersion).toBe(3);
    expect(store.changes).toBe(1);
  });

  it('keeps what is typed and says a newer version exists', async () => {
    const store = await opened();
    store.startLive();
    useLiveStore().start();
    store.edit('# Plan, mine');
    held.get('plan')!.bodies.push('# Plan v3 by an agent');
    node.feed.change({ kind: 'docs_changed', teamId: TEAM });
    await expect.poll(() => store.current?.current_version).toBe(3);
    expect(store.text).toBe('# Plan, mine');
    expect(store.behind).toBe(true);
  });

  it('ignores another team’s changes', async () => {
    const store = await opened();
    store.startLive();
    useLiveStore().start();
    const reads = node.callsTo('docs', 'page').length;
    node.feed.change({ kind: 'docs_changed', teamId: 'ops:example.com' });
    await Promise.resolve();
    expect(node.callsTo('docs', 'page')).toHaveLength(reads);
    expect(store.changes).toBe(0);
  });
});
