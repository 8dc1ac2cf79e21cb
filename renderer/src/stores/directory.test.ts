// @vitest-environment jsdom
/**
 * The directory: what the node holds, the error in words, who this tab acts as (kept per tab), and
 * the identities' encryption keys (whether the node holds any, rotating one).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { nextTick } from 'vue';
import { CreatedIdentity } from '../../../contract/core/identities.ts';
import { ApiError } from '../api/errors.ts';
import { useDirectoryStore } from './directory.ts';
import type { NodeIdentity } from '../api/owner.ts';
import { connectFakeNode, deferred, identity, keySummary, type FakeNode } from './test-client.ts';

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
    const slow = deferred<NodeIdentity[]>();
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

describe('directory store: encryption keys', () => {
  it('says whether the node holds any identity’s keys (a self-custodial identity’s are its client’s)', async () => {
    node.owner.identities = async () => [identity('selfie', { custody: 'self', encryption_key: keySummary({ holder: 'self', state: 'missing' }) })];
    const directory = useDirectoryStore();
    await directory.load();
    expect(directory.nodeHoldsKeys).toBe(false);
    node.owner.identities = async () => [identity('selfie', { encryption_key: keySummary({ holder: 'self' }) }), identity('ada')];
    await directory.load();
    expect(directory.nodeHoldsKeys).toBe(true);
  });

  it('rotates one identity’s key: it shows the summary the node answered, the others stay, and no list is read again', async () => {
    const directory = useDirectoryStore();
    await directory.load();
    const rotated = keySummary({
      encryption_key_id: 'sha256:key-2',
      earlier_keys: 1,
      rotated_at: '2026-03-02T09:00:00.000Z',
      created_at: '2026-03-02T09:00:00.000Z',
    });
    node.owner.rotateEncryptionKey = async (agentId) => ({
      agent_id: agentId,
      encryption_key: {
        operation: 'publish_encryption_key',
        version: 'aweb-e2ee-key-v1',
        identity_did: 'did:key:zada',
        custody: 'self',
        encryption_key_id: 'sha256:key-2',
        encryption_public_key: 'AAAA',
        algorithm: 'x25519',
        created_at: '2026-03-02T09:00:00Z',
        not_before: '2026-03-02T09:00:00Z',
        expires_at: '2026-05-31T09:00:00Z',
        previous_encryption_key_id: 'sha256:key-1',
        signature: 'sig',
      },
      summary: rotated,
    });
    expect(await directory.rotateEncryptionKey('agent-ada')).toEqual(rotated);
    expect(node.callsTo('owner', 'rotateEncryptionKey').map((call) => call.args)).toEqual([['agent-ada']]);
    expect(directory.identities.find((i) => i.alias === 'ada')?.encryption_key).toEqual(rotated);
    expect(directory.identities.find((i) => i.alias === 'bo')?.encryption_key).toEqual(keySummary());
    expect(node.callsTo('owner', 'identities')).toHaveLength(1);
  });

  it('keeps the key as it was when the node refuses the rotation, and passes the node’s words on', async () => {
    const directory = useDirectoryStore();
    await directory.load();
    node.owner.rotateEncryptionKey = async () => {
      throw new ApiError(409, 'Identity is archived');
    };
    await expect(directory.rotateEncryptionKey('agent-old')).rejects.toThrow('Identity is archived');
    expect(directory.identities.find((i) => i.alias === 'old')?.encryption_key).toEqual(keySummary());
  });

  it('turns plaintext off for one identity: it shows what the node answered, the others stay, and no list is read again', async () => {
    const directory = useDirectoryStore();
    await directory.load();
    node.owner.updateIdentity = async (agentId, settings) => identity('ada', { agent_id: agentId, accepts_plaintext: settings.accepts_plaintext ?? true });
    expect(await directory.setAcceptsPlaintext('agent-ada', false)).toMatchObject({ accepts_plaintext: false });
    expect(node.callsTo('owner', 'updateIdentity').map((call) => call.args)).toEqual([['agent-ada', { accepts_plaintext: false }]]);
    expect(directory.identities.find((i) => i.alias === 'ada')?.accepts_plaintext).toBe(false);
    expect(directory.identities.find((i) => i.alias === 'bo')?.accepts_plaintext).toBe(true);
    expect(node.callsTo('owner', 'identities')).toHaveLength(1);
  });

  it('keeps the setting as it was when the node refuses the change, and passes the node’s words on', async () => {
    const directory = useDirectoryStore();
    await directory.load();
    node.owner.updateIdentity = async () => {
      throw new ApiError(404, 'Identity not found');
    };
    await expect(directory.setAcceptsPlaintext('agent-ada', false)).rejects.toThrow('Identity not found');
    expect(directory.identities.find((i) => i.alias === 'ada')?.accepts_plaintext).toBe(true);
  });
});
