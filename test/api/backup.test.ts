/**
 * Identity backup: export a persistent identity from one node and restore it on another.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../server/crypto/identity-log.ts';
import { expectRefusal } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const PASSPHRASE = 'correct horse battery staple';

async function projectWithNamespace(node: TestNode, domain: string, slug: string): Promise<{ project_id: string; api_key: string }> {
  expect((await node.owner('POST', '/v1/node/namespaces', { domain })).status).toBe(201);
  const project = await node.owner('POST', '/v1/node/projects', { slug, namespace: domain });
  expect(project.status).toBe(201);
  return project.body;
}

describe('identity backup', () => {
  let a: TestNode;
  let b: TestNode;
  let alice: { agent_id: string; api_key: string; did_aw: string };
  let projectB: { project_id: string; api_key: string };

  beforeAll(async () => {
    a = await startTestNode();
    return () => a.stop();
  });
  beforeAll(async () => {
    b = await startTestNode();
    return () => b.stop();
  });
  beforeAll(async () => {
    const projectA = await projectWithNamespace(a, 'a.example', 'team');
    projectB = await projectWithNamespace(b, 'b.example', 'team');
    const created = await a.request('POST', '/v1/workspaces/init', {
      token: projectA.api_key,
      body: { lifetime: 'persistent', name: 'alice' },
    });
    expect(created.status).toBe(201);
    alice = created.body;
    expect((await a.request('PUT', '/v1/agents/me/rotate', { token: alice.api_key })).status).toBe(200);
    expect((await a.owner('POST', `/v1/node/identities/${alice.agent_id}/encryption-key/rotate`)).status).toBe(200);
  });

  const exportAlice = () => a.owner('POST', `/v1/node/identities/${alice.agent_id}/export`, { passphrase: PASSPHRASE });

  it('exports the sealed key with a did:svc log that verifies end to end', async () => {
    const backup = await exportAlice();
    expect(backup.status).toBe(200);
    expect(backup.body.format).toBe('svc-node.identity-backup');
    expect(backup.body.did_log).toHaveLength(2);
    const verified = verifyLog(backup.body.did_log, { method: 'svc', didAw: alice.did_aw });
    expect(verified.ok).toBe(true);
    expect(JSON.parse(backup.body.key).did_key).toBe(verified.ok ? verified.currentDidKey : null);
    expect(backup.body.agent_log.map((e: { operation: string }) => e.operation)).toEqual(['create', 'rotate', 'export']);
    // Both encryption keys (the first, archived by the rotation, and the current one), the private keys sealed.
    const served = (await a.request('GET', `/v1/did/${alice.did_aw}/key`)).body.encryption_key;
    const { assertions, keys } = backup.body.encryption_keys;
    expect(assertions.map((x: { encryption_key_id: string }) => x.encryption_key_id)).toEqual([served.previous_encryption_key_id, served.encryption_key_id]);
    expect(JSON.parse(keys)).toMatchObject({
      format: 'svc-node.encryption-keys-backup',
      v: 1,
      public_keys: assertions.map((x: any) => x.encryption_public_key),
    });
  });

  it('refuses a short passphrase and ephemeral identities', async () => {
    const short = await a.owner('POST', `/v1/node/identities/${alice.agent_id}/export`, { passphrase: 'short' });
    expect(short.status).toBe(422);
    const project = await a.owner('POST', '/v1/node/projects', { slug: 'eph' });
    const eph = await a.request('POST', '/v1/workspaces/init', { token: project.body.api_key, body: {} });
    const refused = await a.owner('POST', `/v1/node/identities/${eph.body.agent_id}/export`, { passphrase: PASSPHRASE });
    expectRefusal(refused, 409, /persistent/, 'SVC_ERR_IDENTITY_WRONG_LIFETIME');
  });

  it('refuses a wrong passphrase or a tampered log and stores nothing', async () => {
    const backup = (await exportAlice()).body;
    const wrong = await b.owner('POST', '/v1/node/identities/import', { project_id: projectB.project_id, passphrase: 'not the passphrase', backup });
    expect(wrong.status).toBe(422);
    const tampered = structuredClone(backup);
    tampered.did_log[1].timestamp = '2020-01-01T00:00:00Z';
    const broken = await b.owner('POST', '/v1/node/identities/import', { project_id: projectB.project_id, passphrase: PASSPHRASE, backup: tampered });
    expectRefusal(broken, 422, /does not verify/, 'SVC_ERR_DID_LOG_INVALID');
    expect((await b.owner('GET', '/v1/node/identities')).body.identities).toEqual([]);
    expect((await b.request('GET', `/v1/did/${alice.did_aw}/key`)).status).toBe(404);
  });

  it('restores the identity on another node: same ids, working key, address in the new namespace, its settings', async () => {
    // Alice refuses plaintext: the backup carries the choice.
    expect((await a.request('PATCH', '/v1/agents/me', { token: alice.api_key, body: { accepts_plaintext: false } })).status).toBe(200);
    const backup = (await exportAlice()).body;
    expect(backup.identity.accepts_plaintext).toBe(false);
    const restored = await b.owner('POST', '/v1/node/identities/import', { project_id: projectB.project_id, passphrase: PASSPHRASE, backup });
    expect(restored.status).toBe(201);
    expect(restored.body.agent_id).toBe(alice.agent_id);
    expect(restored.body.did_aw).toBe(alice.did_aw);
    expect(restored.body.address).toBe('b.example/alice');
    expect(restored.body.api_key).toMatch(/^svc_sk_[0-9a-f]{64}$/);

    const me = await b.request('GET', '/v1/auth/introspect', { token: restored.body.api_key });
    expect(me.body.did_aw).toBe(alice.did_aw);
    expect(me.body.accepts_plaintext).toBe(false);
    const key = await b.request('GET', `/v1/did/${alice.did_aw}/key`);
    expect(key.body.current_did_key).toBe(restored.body.did_key);
    // The same current encryption key is published again from the new node, linked to the previous one.
    const onA = (await a.request('GET', `/v1/did/${alice.did_aw}/key`)).body.encryption_key;
    expect(key.body.encryption_key).toMatchObject({
      identity_did: restored.body.did_key,
      encryption_key_id: onA.encryption_key_id,
      previous_encryption_key_id: onA.previous_encryption_key_id,
    });

    // The restored key signs: a rotation on the new node extends the imported log.
    const rotated = await b.request('PUT', '/v1/agents/me/rotate', { token: restored.body.api_key });
    expect(rotated.status).toBe(200);
    const log = await b.request('GET', `/v1/did/${alice.did_aw}/log`);
    expect(log.body).toHaveLength(3);
    expect(verifyLog(log.body, { method: 'svc', didAw: alice.did_aw }).ok).toBe(true);

    const again = await b.owner('POST', '/v1/node/identities/import', { project_id: projectB.project_id, passphrase: PASSPHRASE, backup });
    expectRefusal(again, 409, /already on this node/, 'SVC_ERR_IDENTITY_EXISTS');
  });
});
