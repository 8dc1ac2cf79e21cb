/** The present-page theme's stamp: previews repaint when the saved theme changed, not on every nudge. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DocsClient, type Theme } from '../api/docs.ts';
import { useDocsThemeStore } from './docs-theme.ts';
import { connectFakeNode, NODE_INFO, type FakeNode } from './test-client.ts';

vi.mock('../api/docs.ts', async (original) => (await import('./test-client.ts')).fakeDocsModule(await original()));

const TEAM = 'crew:example.com';

let node: FakeNode;
let updatedAt: string | null;

function theme(): Theme {
  return { tokens: {}, preset: null, logo_asset_id: null, logo_url: null, header: null, footer: null, updated_at: updatedAt };
}

function client(teamId = TEAM): DocsClient {
  return new DocsClient({
    docsUrl: NODE_INFO.docs_url,
    teamId,
    fetch: () => Promise.reject(new Error('unused')),
    sign: () => Promise.reject(new Error('unused')),
  });
}

beforeEach(() => {
  node = connectFakeNode();
  updatedAt = '2026-03-01T10:00:00.000Z';
  node.docs.theme = async () => theme();
});

describe('docs theme store', () => {
  it('repaints once when the saved theme is first seen, and again only when it changed', async () => {
    const store = useDocsThemeStore();
    await store.check(client(), TEAM);
    expect(store.version).toBe(1);
    await store.check(client(), TEAM);
    expect(store.version).toBe(1);
    updatedAt = '2026-03-02T10:00:00.000Z';
    await store.check(client(), TEAM);
    expect(store.version).toBe(2);
    expect(node.callsTo('docs', 'theme').map((c) => c.as)).toEqual([TEAM, TEAM, TEAM]);
  });

  it('repaints for another team’s theme, even with the same stamp', async () => {
    const store = useDocsThemeStore();
    await store.check(client(), TEAM);
    await store.check(client('ops:example.com'), 'ops:example.com');
    expect(store.version).toBe(2);
  });

  it('changes nothing when the theme cannot be read', async () => {
    const store = useDocsThemeStore();
    await store.check(client(), TEAM);
    node.docs.theme = async () => {
      throw new Error('offline');
    };
    await store.check(client(), TEAM);
    expect(store.version).toBe(1);
  });
});
