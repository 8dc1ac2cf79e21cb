// @vitest-environment jsdom
/** The public catalog: the tag filter applied by the node, tag chips from the whole catalog, late answers dropped, and changes made elsewhere. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { BlueprintSummary } from '../api/library.ts';
import { ApiError } from '../api/errors.ts';
import { useCatalogStore } from './catalog.ts';
import { useLiveStore } from './live.ts';
import { useTeamsStore } from './teams.ts';
import { blueprint, blueprintDetail, connectFakeNode, deferred, team, type FakeNode } from './test-client.ts';

vi.mock('../api/library.ts', async (original) => (await import('./test-client.ts')).fakeLibraryModule(await original()));

let node: FakeNode;
let held: BlueprintSummary[];

beforeEach(() => {
  window.localStorage.clear();
  node = connectFakeNode();
  held = [
    blueprint('writer', { tags: ['text'] }),
    blueprint('coder', { tags: ['code', 'text'] }),
    blueprint('theirs', { tags: ['ops'], owner: 'ops:example.com' }),
  ];
  node.library.catalog = async (tags = []) => held.filter((b) => tags.length === 0 || b.tags.some((t) => tags.includes(t)));
  node.library.blueprint = async (ref) => {
    if (!held.some((b) => b.blueprint_ref === ref)) throw new ApiError(404, `No blueprint ${ref}.`);
    return blueprintDetail(ref);
  };
});

describe('catalog store', () => {
  it('reads the catalog the first time it is shown, and not again', async () => {
    const catalog = useCatalogStore();
    catalog.show(null);
    await expect.poll(() => catalog.loaded).toBe(true);
    catalog.show(null);
    expect(catalog.blueprints.map((b) => b.blueprint_ref)).toEqual(['writer', 'coder', 'theirs']);
    expect(catalog.allTags).toEqual(['code', 'ops', 'text']);
    expect(node.callsTo('library', 'catalog').map((c) => c.args)).toEqual([[[]]]);
  });

  it('filters by tag on the node, and keeps the chips of the whole catalog', async () => {
    const catalog = useCatalogStore();
    await catalog.toggleTag('code');
    expect(catalog.blueprints.map((b) => b.blueprint_ref)).toEqual(['coder']);
    expect(catalog.allTags).toEqual(['code', 'ops', 'text']);
    await catalog.toggleTag('code');
    expect(catalog.tagFilter).toEqual([]);
    expect(catalog.blueprints).toHaveLength(3);
  });

  it('shows the answer for the filter chosen last, whatever order the answers come in', async () => {
    const catalog = useCatalogStore();
    const slow = deferred<BlueprintSummary[]>();
    node.library.catalog = () => slow.promise;
    const first = catalog.toggleTag('ops');
    node.library.catalog = async (tags = []) => held.filter((b) => tags.length === 0 || b.tags.some((t) => tags.includes(t)));
    await catalog.toggleTag('ops');
    slow.resolve(held.filter((b) => b.tags.includes('ops')));
    await first;
    expect(catalog.tagFilter).toEqual([]);
    expect(catalog.blueprints).toHaveLength(3);
  });

  it('clears a filter that hides the blueprint it is opened at', async () => {
    const catalog = useCatalogStore();
    await catalog.toggleTag('ops');
    catalog.show('writer');
    expect(catalog.focus).toBe('writer');
    expect(catalog.tagFilter).toEqual([]);
    await expect.poll(() => catalog.blueprints.some((b) => b.blueprint_ref === 'writer')).toBe(true);
  });

  it('says why the catalog could not be read', async () => {
    node.library.catalog = async () => {
      throw new ApiError(503, 'The library is starting.');
    };
    const catalog = useCatalogStore();
    await catalog.load();
    expect(catalog.error).toBe('The library is starting.');
    expect(catalog.loading).toBe(false);
  });

  it('lists the blueprints the chosen team owns', async () => {
    node.owner.teams = async () => [team('crew:example.com')];
    await useTeamsStore().load();
    expect((await useCatalogStore().loadOwned()).map((b) => b.blueprint_ref)).toEqual(['coder', 'writer']);
  });

  it('reads the catalog and the blueprints opened in it again when it changed, forgetting one deleted', async () => {
    const catalog = useCatalogStore();
    useLiveStore().start();
    await catalog.load();
    await catalog.loadBlueprint('writer');
    await catalog.loadBlueprint('coder');
    held = held.filter((b) => b.blueprint_ref !== 'coder');
    node.feed.change({ kind: 'catalog_changed', teamId: null });
    await expect.poll(() => Object.keys(catalog.details)).toEqual(['writer']);
    expect(catalog.blueprints.map((b) => b.blueprint_ref)).toEqual(['writer', 'theirs']);
  });
});
