// @vitest-environment jsdom
/** The directory: what the node holds, the error in words, and who this tab acts as (kept per tab). */
import { beforeEach, describe, expect, it } from 'vitest';
import { nextTick } from 'vue';
import { CreatedIdentity } from '../../../contract/core/identities.ts';
import { ApiError } from '../api/errors.ts';
import { useDirectoryStore } from './directory.ts';
import type { Identity } from '../api/owner.ts';
import { connectFakeNode, deferred, identity, type FakeNode } from './test-client.ts';

const key = () => `svc-node.current-identity@${window.location.origin}`;

let node: FakeNode;

beforeEach(() => {
  window.localStorage.clear();
  window.sessionStorage.clear();
  node = answering(connectFakeNode());
});

/** A node holding an archived identity and two active ones. */
function answering(fake: FakeNode): FakeNode {
  fake.owner.identities = async () => [identity('old', { status: 'archived' }), identity('ada'), identity('bo')];
  fake.owner.projects = async () => [
    { project_id: 'p-1', slug: 'home', name: 'Home', namespace: null, created_at: '2026-03-01T10:00:00.000Z', identity_count: 3 },
  ];
  fake.owner.namespaces = async () => [];
  return fake;
}

function created(alias: string): CreatedIdentity {
  return CreatedIdentity.parse({
    ...identity(alias),
    status: 'ok',
    identity_status: 'active',
    created: true,
    api_key: 'key',
    did: `did:key:z${alias}`,
    stable_id: null,
    namespace: null,
    server_url: 'http://node.test',
  });
}

describe('directory store', () => {
  it('acts as the first active identity until one is chosen, and only offers active ones', async () => {
    const directory = useDirectoryStore();
    expect(directory.loaded).toBe(false);
    await directory.load();
    expect(directory.loaded).toBe(true);
    expect(directory.activeIdentities.map((i) => i.alias)).toEqual(['ada', 'bo']);
    expect(directory.currentIdentity?.alias).toBe('ada');
    directory.selectIdentity('agent-old');
    expect(directory.currentIdentity?.alias).toBe('ada');
  });

  it('remembers the choice for this tab, and a new tab starts from the last choice anywhere', async () => {
    const directory = useDirectoryStore();
    await directory.load();
    directory.selectIdentity('agent-bo');
    await nextTick();
    expect(window.sessionStorage.getItem(key())).toBe('agent-bo');
    expect(window.localStorage.getItem(key())).toBe('agent-bo');

    // Another tab chose ada since: this tab, reloaded, stays bo.
    window.localStorage.setItem(key(), 'agent-ada');
    answering(connectFakeNode());
    const reloaded = useDirectoryStore();
    await reloaded.load();
    expect(reloaded.currentIdentity?.alias).toBe('bo');

    // A new tab (no choice of its own yet) starts from the last one made anywhere.
    window.sessionStorage.clear();
    answering(connectFakeNode());
    const fresh = useDirectoryStore();
    await fresh.load();
    expect(fresh.currentIdentity?.alias).toBe('ada');
  });

  it('keeps what it had, with the node’s words, when a read fails', async () => {
    const directory = useDirectoryStore();
    await directory.load();
    node.owner.projects = async () => {
      throw new ApiError(503, 'The node is starting.');
    };
    await directory.load();
    expect(directory.loadError).toBe('The node is starting.');
    expect(directory.identities).toHaveLength(3);
    expect(directory.loading).toBe(false);
  });

  it('acts as a new identity made when none was chosen, and reads the lists again', async () => {
    node.owner.identities = async () => [];
    const directory = useDirectoryStore();
    await directory.load();
    expect(directory.currentIdentity).toBeNull();
    node.owner.createIdentity = async () => created('cy');
    node.owner.identities = async () => [identity('cy')];
    await directory.createIdentity({ project_id: '6f1c1a2e-0000-4000-8000-000000000001', name: 'cy' });
    expect(directory.currentIdentity?.alias).toBe('cy');
    expect(node.callsTo('owner', 'identities')).toHaveLength(2);
  });

  it('keeps the newest lists when an older read answers last', async () => {
    const directory = useDirectoryStore();
    const slow = deferred<Identity[]>();
    node.owner.identities = () => slow.promise;
    const opening = directory.load();
    // An identity made meanwhile: its own read of the lists answers first.
    node.owner.createIdentity = async () => created('cy');
    node.owner.identities = async () => [identity('ada'), identity('cy')];
    await directory.createIdentity({ project_id: '6f1c1a2e-0000-4000-8000-000000000001', name: 'cy' });
    expect(directory.loading).toBe(false);
    slow.resolve([identity('ada')]);
    await opening;
    expect(directory.identities.map((i) => i.alias)).toEqual(['ada', 'cy']);
    expect(directory.currentIdentity?.alias).toBe('cy');
  });
});
