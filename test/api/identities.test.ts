/**
 * Identities (spec §2–§4.3, §5 mode 1): creation with a project-authority key, the self
 * operations of an identity's own key, address resolution, and the owner-driven archive and
 * replace transitions, each refusal leaving the stored identity as it was.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReplacementAnnouncement, verifyRotationAnnouncement } from '../../server/crypto/announcements.ts';
import { verifyLog } from '../../server/crypto/identity-log.ts';
import { isStableId } from '../../server/crypto/stable-id.ts';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { agentLogEntryVerifies, API_KEY, createIdentity, createNodeNamespace, createProject, init, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
const DOMAIN = 'team.test';
let alpha: Project; // owns DOMAIN
let beta: Project; // no namespace
let controllerDid: string;

beforeAll(async () => {
  t = await startTestNode();
  controllerDid = (await createNodeNamespace(t, DOMAIN)).controller_did;
  alpha = await createProject(t, 'alpha', DOMAIN);
  beta = await createProject(t, 'beta');
});
afterAll(async () => {
  await t.stop();
});

const introspect = (key: string) => t.request('GET', '/v1/auth/introspect', { token: key });
const addressOf = (name: string) => t.request('GET', `/v1/namespaces/${DOMAIN}/addresses/${name}`);
const nodeIdentities = async (): Promise<any[]> => expectOk(await t.owner('GET', '/v1/node/identities')).identities;
const identityById = async (id: string) => (await nodeIdentities()).find((i) => i.agent_id === id);

describe('owner API: projects and namespaces', () => {
  it('creates a node-controlled namespace and projects', async () => {
    const namespace = expectOk(await t.request('GET', `/v1/namespaces/${DOMAIN}`));
    expect(namespace).toMatchObject({ domain: DOMAIN, controller_did: controllerDid, node_controlled: true });
    expect(alpha).toMatchObject({ slug: 'alpha', namespace: DOMAIN });
    const projects = expectOk(await t.owner('GET', '/v1/node/projects')).projects;
    expect(projects.map((p: { slug: string }) => p.slug)).toEqual(expect.arrayContaining(['alpha', 'beta']));
    expect(projects.every((p: Record<string, unknown>) => !('api_key' in p))).toBe(true);
  });

  it('refuses a duplicate slug (409), a bad slug (422), a namespace the node does not control (422)', async () => {
    expectRefusal(await t.owner('POST', '/v1/node/projects', { slug: 'alpha' }), 409, /already exists/, 'SVC_ERR_PROJECT_SLUG_TAKEN');
    expectRefusal(await t.owner('POST', '/v1/node/projects', { slug: 'bad slug' }), 422, /^body.slug: use 1-64 letters, digits/);
    expectValidation(await t.owner('POST', '/v1/node/projects', { slug: 's'.repeat(65) }), 'slug');
    expectRefusal(
      await t.owner('POST', '/v1/node/projects', { slug: 'gamma', namespace: 'nobody.test' }),
      422,
      /not controlled/,
      'SVC_ERR_PROJECT_NAMESPACE_NOT_HELD',
    );
    // Asking again for a namespace the node holds answers it, unchanged (not "another controller").
    const held = expectOk(await t.owner('GET', '/v1/node/namespaces')).namespaces.find((n: { domain: string }) => n.domain === DOMAIN);
    expect(expectOk(await t.owner('POST', '/v1/node/namespaces', { domain: DOMAIN }), 200)).toMatchObject({
      domain: DOMAIN,
      controller_did: held.controller_did,
    });
    expectValidation(await t.owner('POST', '/v1/node/namespaces', { domain: 'not a domain' }), 'domain');
    const slugs = expectOk(await t.owner('GET', '/v1/node/projects')).projects.map((p: { slug: string }) => p.slug);
    expect(slugs.filter((s: string) => s === 'alpha')).toHaveLength(1);
    expect(slugs).not.toContain('gamma');
  });
});

describe('POST /v1/workspaces/init', () => {
  it('creates an ephemeral identity by default, with an allocated alias and a one-time key', async () => {
    const project = await createProject(t, 'init-defaults');
    const first = await createIdentity(t, project.api_key);
    expect(first).toMatchObject({
      status: 'ok',
      created: true,
      project_id: project.project_id,
      project_slug: 'init-defaults',
      alias: 'alice',
      name: null,
      lifetime: 'ephemeral',
      did_aw: null,
      stable_id: null,
      address: null,
      identity_status: 'active',
    });
    expect(first.did_key).toMatch(/^did:key:z6Mk/);
    expect(first.identity_id).toBe(first.agent_id);
    expect(first.api_key).toMatch(API_KEY);
    expect(first.api_key).not.toBe(project.api_key);
    expect((await createIdentity(t, project.api_key)).alias).toBe('bob');
    const me = expectOk(await introspect(first.api_key));
    expect(me).toMatchObject({ key_type: 'identity', agent_id: first.agent_id, alias: 'alice', did_key: first.did_key });
    expect(me).not.toHaveProperty('api_key');
  });

  it('takes an explicit alias and refuses a duplicate one (409), keeping the first', async () => {
    const created = await createIdentity(t, beta.api_key, { alias: 'scout', human_name: 'Scout' });
    expect(created).toMatchObject({ alias: 'scout', human_name: 'Scout', lifetime: 'ephemeral' });
    const count = (await nodeIdentities()).length;
    expectRefusal(await init(t, beta.api_key, { alias: 'scout' }), 409, /already in use/, 'SVC_ERR_ALIAS_TAKEN');
    expect(await nodeIdentities()).toHaveLength(count);
    expect(expectOk(await introspect(created.api_key))).toMatchObject({ agent_id: created.agent_id, did_key: created.did_key, human_name: 'Scout' });
    // The same alias is free in another project.
    expect((await createIdentity(t, alpha.api_key, { alias: 'scout' })).alias).toBe('scout');
  });

  it('creates a persistent identity with a did:svc and the address <namespace>/<name>', async () => {
    const created = await createIdentity(t, alpha.api_key, persistent('researcher', { address_reachability: 'contacts-only' }));
    expect(created).toMatchObject({
      lifetime: 'persistent',
      name: 'researcher',
      alias: 'researcher',
      address: `${DOMAIN}/researcher`,
      address_reachability: 'contacts-only',
      namespace: DOMAIN,
    });
    expect(isStableId(created.did_aw)).toBe(true);
    expect(created.stable_id).toBe(created.did_aw);

    const key = expectOk(await t.request('GET', `/v1/did/${created.did_aw}/key`));
    expect(key).toMatchObject({ did_aw: created.did_aw, current_did_key: created.did_key });
    expect(verifyLog(expectOk(await t.request('GET', `/v1/did/${created.did_aw}/log`)))).toEqual({ ok: true, currentDidKey: created.did_key });
    expect(expectOk(await addressOf('researcher'))).toMatchObject({ address: `${DOMAIN}/researcher`, did_key: created.did_key, did_aw: created.did_aw });
    expect(expectOk(await introspect(created.api_key)).address_reachability).toBe('contacts-only');
  });

  it('creates a persistent identity without an address in a project without a namespace', async () => {
    const created = await createIdentity(t, beta.api_key, persistent('loner'));
    expect(created).toMatchObject({ lifetime: 'persistent', address: null, namespace: null, address_reachability: 'public' });
    expect(expectOk(await t.request('GET', `/v1/did/${created.did_aw}/key`)).current_did_key).toBe(created.did_key);
  });

  it('refuses invalid bodies with 422 and creates nothing', async () => {
    const count = (await nodeIdentities()).length;
    expectValidation(await init(t, alpha.api_key, { lifetime: 'persistent' }), 'name');
    expectValidation(await init(t, alpha.api_key, { name: 'eph' }), 'name');
    expectValidation(await init(t, alpha.api_key, { lifetime: 'persistent', name: 'both', alias: 'both' }), 'alias');
    expectValidation(await init(t, alpha.api_key, { alias: 'x', custody: 'self' }), 'custody');
    expectValidation(await init(t, alpha.api_key, { alias: 'bad alias' }), 'alias');
    expectValidation(await init(t, alpha.api_key, { alias: 'a'.repeat(65) }), 'alias');
    expectValidation(await init(t, alpha.api_key, { lifetime: 'persistent', name: 'has.dot' }), 'name');
    expectValidation(await init(t, alpha.api_key, { lifetime: 'forever' }), 'lifetime');
    expectValidation(await init(t, alpha.api_key, { address_reachability: 'everyone' }), 'address_reachability');
    expectValidation(await init(t, alpha.api_key, { human_name: 'h'.repeat(65) }), 'human_name');
    expectRefusal(await init(t, alpha.api_key, ['alias']), 422);
    expect(await nodeIdentities()).toHaveLength(count);
    expectRefusal(await addressOf('eph'), 404);
  });

  it('refuses an identity key (403), no key (401), an unknown or malformed key (401), malformed JSON (400)', async () => {
    const identity = await createIdentity(t, beta.api_key);
    const count = (await nodeIdentities()).length;
    expectRefusal(await init(t, identity.api_key, { alias: 'sneaky' }), 403, /project-authority/);
    expectRefusal(await t.request('POST', '/v1/workspaces/init', { body: { alias: 'anon' } }), 401, /Authentication required/);
    expectRefusal(await init(t, `svc_sk_${'0'.repeat(64)}`, { alias: 'guess' }), 401, /Invalid API key/);
    expectRefusal(await init(t, 'svc_sk_short', { alias: 'guess' }), 401);
    expectRefusal(await init(t, t.node.ownerToken, { alias: 'owner' }), 401);
    expectRefusal(
      await t.request('POST', '/v1/workspaces/init', { body: { alias: 'basic' }, headers: { authorization: `Basic ${beta.api_key}` } }),
      401,
      /Bearer/,
    );
    expectRefusal(await t.request('POST', '/v1/workspaces/init', { token: beta.api_key, raw: '{"alias": "half' }), 400, /JSON/);
    expect(await nodeIdentities()).toHaveLength(count);
  });
});

describe('GET /v1/auth/introspect', () => {
  it('describes an identity key and a project key', async () => {
    const identity = await createIdentity(t, alpha.api_key, { alias: 'introspected' });
    const me = expectOk(await introspect(identity.api_key));
    expect(me).toMatchObject({
      key_type: 'identity',
      project_id: alpha.project_id,
      project_slug: 'alpha',
      agent_id: identity.agent_id,
      alias: 'introspected',
      lifetime: 'ephemeral',
      did_key: identity.did_key,
      status: 'active',
    });
    expect(me.api_key_id).toEqual(expect.any(String));
    const project = expectOk(await introspect(alpha.api_key));
    expect(project).toEqual({ project_id: alpha.project_id, project_slug: 'alpha', api_key_id: expect.any(String), key_type: 'project', agent_id: null });
    expect(project.api_key_id).not.toBe(me.api_key_id);
  });

  it('refuses no key and an unknown key (401)', async () => {
    expectRefusal(await t.request('GET', '/v1/auth/introspect'), 401);
    expectRefusal(await introspect(`svc_sk_${'f'.repeat(64)}`), 401);
  });
});

describe('GET /v1/agents/me/log', () => {
  it('returns the signed audit trail and, for a persistent identity, its did:svc log', async () => {
    const identity = await createIdentity(t, alpha.api_key, persistent('logged'));
    expectOk(await t.request('PATCH', '/v1/agents/me', { token: identity.api_key, body: { role: 'reviewer' } }));
    const log = expectOk(await t.request('GET', '/v1/agents/me/log', { token: identity.api_key }));
    expect(log).toMatchObject({ agent_id: identity.agent_id, address: `${DOMAIN}/logged`, did_aw: identity.did_aw });
    expect(log.log.map((e: { operation: string }) => e.operation)).toEqual(['create', 'update_settings']);
    for (const entry of log.log) {
      expect(entry.signed_by).toBe(identity.did_key);
      expect(agentLogEntryVerifies(identity.agent_id, entry)).toBe(true);
    }
    expect(agentLogEntryVerifies(identity.agent_id, { ...log.log[1], metadata: { fields: ['human_name'] } })).toBe(false);
    expect(verifyLog(log.did_log)).toEqual({ ok: true, currentDidKey: identity.did_key });
  });

  it('has an empty did_log for an ephemeral identity; refuses a project key (403) and no key (401)', async () => {
    const identity = await createIdentity(t, beta.api_key);
    const log = expectOk(await t.request('GET', '/v1/agents/me/log', { token: identity.api_key }));
    expect(log).toMatchObject({ agent_id: identity.agent_id, address: identity.alias, did_aw: null, did_log: [] });
    expect(log.log).toHaveLength(1);
    expect(agentLogEntryVerifies(identity.agent_id, log.log[0])).toBe(true);
    expectRefusal(await t.request('GET', '/v1/agents/me/log', { token: beta.api_key }), 403, /not bound/);
    expectRefusal(await t.request('GET', '/v1/agents/me/log'), 401);
  });
});

describe('PUT /v1/agents/me/rotate', () => {
  it('rotates to a new key: the did:svc log grows and verifies, the address follows, the announcement verifies', async () => {
    const identity = await createIdentity(t, alpha.api_key, persistent('rotator'));
    const rotated = expectOk(await t.request('PUT', '/v1/agents/me/rotate', { token: identity.api_key }));
    expect(rotated).toMatchObject({ status: 'rotated', agent_id: identity.agent_id, did_aw: identity.did_aw, old_did: identity.did_key });
    expect(rotated.new_did).toMatch(/^did:key:z6Mk/);
    expect(rotated.new_did).not.toBe(identity.did_key);

    const didLog = expectOk(await t.request('GET', `/v1/did/${identity.did_aw}/log`));
    expect(didLog).toHaveLength(2);
    expect(verifyLog(didLog)).toEqual({ ok: true, currentDidKey: rotated.new_did });
    expect(expectOk(await addressOf('rotator'))).toMatchObject({ did_key: rotated.new_did, did_aw: identity.did_aw });

    const announcement = rotated.rotation_announcement;
    expect(announcement).toMatchObject({ old_did: identity.did_key, new_did: rotated.new_did });
    expect(verifyRotationAnnouncement(announcement)).toEqual({ ok: true });
    expect(verifyRotationAnnouncement({ ...announcement, new_did: identity.did_key }).ok).toBe(false);

    // The same API key keeps working, now for the new key; the audit trail verifies across the rotation.
    expect(expectOk(await introspect(identity.api_key)).did_key).toBe(rotated.new_did);
    const log = expectOk(await t.request('GET', '/v1/agents/me/log', { token: identity.api_key }));
    expect(log.log.map((e: { operation: string }) => e.operation)).toEqual(['create', 'rotate']);
    expect(log.log[1]).toMatchObject({ old_did: identity.did_key, new_did: rotated.new_did, signed_by: identity.did_key });
    expect(log.log.every((e: any) => agentLogEntryVerifies(identity.agent_id, e))).toBe(true);
    expect(verifyLog(log.did_log).ok).toBe(true);

    // And again: a second rotation chains on.
    const again = expectOk(await t.request('PUT', '/v1/agents/me/rotate', { token: identity.api_key }));
    expect(again.old_did).toBe(rotated.new_did);
    expect(verifyLog(expectOk(await t.request('GET', `/v1/did/${identity.did_aw}/log`)))).toEqual({ ok: true, currentDidKey: again.new_did });
  });

  it('refuses an ephemeral identity (409), a project key (403) and no key (401)', async () => {
    const identity = await createIdentity(t, beta.api_key);
    expectRefusal(await t.request('PUT', '/v1/agents/me/rotate', { token: identity.api_key }), 409, /ephemeral/, 'SVC_ERR_IDENTITY_WRONG_LIFETIME');
    expect(expectOk(await introspect(identity.api_key)).did_key).toBe(identity.did_key);
    expectRefusal(await t.request('PUT', '/v1/agents/me/rotate', { token: alpha.api_key }), 403);
    expectRefusal(await t.request('PUT', '/v1/agents/me/rotate'), 401);
  });
});

describe('DELETE /v1/agents/me', () => {
  it('deletes an ephemeral identity: its key stops working and its alias is free again', async () => {
    const identity = await createIdentity(t, beta.api_key, { alias: 'temp' });
    expect(expectOk(await t.request('DELETE', '/v1/agents/me', { token: identity.api_key }))).toEqual({ agent_id: identity.agent_id, status: 'deleted' });
    expectRefusal(await introspect(identity.api_key), 401);
    expectRefusal(await t.request('DELETE', '/v1/agents/me', { token: identity.api_key }), 401);
    expect(await identityById(identity.agent_id)).toBeUndefined();
    expect((await createIdentity(t, beta.api_key, { alias: 'temp' })).agent_id).not.toBe(identity.agent_id);
  });

  it('refuses a persistent identity with 409 and a clear detail, keeping it', async () => {
    const identity = await createIdentity(t, alpha.api_key, persistent('keeper'));
    expectRefusal(
      await t.request('DELETE', '/v1/agents/me', { token: identity.api_key }),
      409,
      /persistent identity.*archive or replace/,
      'SVC_ERR_IDENTITY_WRONG_LIFETIME',
    );
    expect(expectOk(await introspect(identity.api_key))).toMatchObject({ agent_id: identity.agent_id, status: 'active' });
    expect(expectOk(await addressOf('keeper')).did_key).toBe(identity.did_key);
  });

  it('refuses a project key (403) and no key (401)', async () => {
    expectRefusal(await t.request('DELETE', '/v1/agents/me', { token: beta.api_key }), 403);
    expectRefusal(await t.request('DELETE', '/v1/agents/me'), 401);
  });
});

describe('PATCH /v1/agents/me', () => {
  it('updates settings', async () => {
    const identity = await createIdentity(t, beta.api_key);
    const patch = { human_name: 'Ada Lovelace', role: 'analyst', program: 'claude', context: { repo: 'svc-node' }, address_reachability: 'contacts-only' };
    const updated = expectOk(await t.request('PATCH', '/v1/agents/me', { token: identity.api_key, body: patch }));
    // With upstream's fields beside ours (no team workspace: its hostname and workspace_path are null).
    expect(updated).toEqual({ agent_id: identity.agent_id, ...patch, accepts_plaintext: true, alias: identity.alias, hostname: null, workspace_path: null });
    expect(expectOk(await introspect(identity.api_key))).toMatchObject(patch);
    // Fields left out are kept.
    expect(expectOk(await t.request('PATCH', '/v1/agents/me', { token: identity.api_key, body: { role: 'lead' } }))).toMatchObject({
      human_name: 'Ada Lovelace',
      role: 'lead',
    });
  });

  it('refuses unknown fields and oversize values (422), malformed JSON (400), a project key (403), no key (401)', async () => {
    const identity = await createIdentity(t, beta.api_key, { human_name: 'Kept' });
    const patch = (body: unknown) => t.request('PATCH', '/v1/agents/me', { token: identity.api_key, body });
    expectValidation(await patch({ alias: 'renamed' }), 'alias');
    expectValidation(await patch({ lifetime: 'persistent' }), 'lifetime');
    expectValidation(await patch({ human_name: 'h'.repeat(65) }), 'human_name');
    expectValidation(await patch({ role: 'r'.repeat(51) }), 'role');
    expectValidation(await patch({ context: { blob: 'x'.repeat(17_000) } }), 'context');
    expectValidation(await patch({ context: 'not an object' }), 'context');
    expectRefusal(await t.request('PATCH', '/v1/agents/me', { token: identity.api_key, raw: '{"role":' }), 400);
    expectRefusal(await t.request('PATCH', '/v1/agents/me', { token: beta.api_key, body: { role: 'x' } }), 403);
    expectRefusal(await t.request('PATCH', '/v1/agents/me', { body: { role: 'x' } }), 401);
    expect(expectOk(await introspect(identity.api_key))).toMatchObject({ human_name: 'Kept', role: null, context: null });
  });
});

describe('GET /v1/agents/resolve/{namespace}/{name}', () => {
  it('resolves an address to the identity behind it', async () => {
    const identity = await createIdentity(t, alpha.api_key, persistent('resolvable'));
    const caller = await createIdentity(t, alpha.api_key);
    const resolved = expectOk(await t.request('GET', `/v1/agents/resolve/${DOMAIN}/resolvable`, { token: caller.api_key }));
    expect(resolved).toMatchObject({
      address: `${DOMAIN}/resolvable`,
      did: identity.did_key,
      did_key: identity.did_key,
      did_aw: identity.did_aw,
      stable_id: identity.did_aw,
      controller_did: controllerDid,
      agent_id: identity.agent_id,
      alias: 'resolvable',
      lifetime: 'persistent',
      status: 'active',
    });
    // From another project the address still resolves, without the local identity's ids.
    const outsider = await createIdentity(t, beta.api_key);
    expect(expectOk(await t.request('GET', `/v1/agents/resolve/${DOMAIN}/resolvable`, { token: outsider.api_key }))).toMatchObject({
      did_key: identity.did_key,
      agent_id: null,
      alias: null,
    });
  });

  it('answers 404 for an unknown name or namespace and 401 without a key', async () => {
    const caller = await createIdentity(t, alpha.api_key);
    expectRefusal(await t.request('GET', `/v1/agents/resolve/${DOMAIN}/nobody`, { token: caller.api_key }), 404, undefined, 'SVC_ERR_ADDRESS_NOT_FOUND');
    expectRefusal(
      await t.request('GET', '/v1/agents/resolve/unknown.test/resolvable', { token: caller.api_key }),
      404,
      undefined,
      'SVC_ERR_NAMESPACE_NOT_FOUND',
    );
    expectRefusal(
      await t.request('GET', '/v1/agents/resolve/not_a_domain/resolvable', { token: caller.api_key }),
      404,
      undefined,
      'SVC_ERR_NAMESPACE_NOT_FOUND',
    );
    expectRefusal(await t.request('GET', `/v1/agents/resolve/${DOMAIN}/resolvable`), 401);
  });
});

describe('POST /api/v1/agents/{agent_id}/archive', () => {
  const archive = (agentId: string, token?: string) => t.request('POST', `/api/v1/agents/${agentId}/archive`, token ? { token } : {});

  it('archives with the owner token: the identity key stops working; a second archive is 409', async () => {
    const identity = await createIdentity(t, alpha.api_key, persistent('archivist'));
    const archived = expectOk(await archive(identity.agent_id, t.node.ownerToken));
    expect(archived).toEqual({ agent_id: identity.agent_id, status: 'archived', did_aw: identity.did_aw });
    expectRefusal(await introspect(identity.api_key), 401);
    expectRefusal(await archive(identity.agent_id, t.node.ownerToken), 409, /already archived/, 'SVC_ERR_IDENTITY_NOT_ACTIVE');
    expect(await identityById(identity.agent_id)).toMatchObject({ status: 'archived', did_aw: identity.did_aw });
    // History stays: the did:svc and the address still resolve.
    expect(expectOk(await t.request('GET', `/v1/did/${identity.did_aw}/key`)).current_did_key).toBe(identity.did_key);
    expect(expectOk(await addressOf('archivist')).did_key).toBe(identity.did_key);
  });

  it("archives with the project's authority key", async () => {
    const identity = await createIdentity(t, alpha.api_key, persistent('archived-by-project'));
    expect(expectOk(await archive(identity.agent_id, alpha.api_key)).status).toBe('archived');
    expectRefusal(await introspect(identity.api_key), 401);
  });

  it("refuses an identity key (403), another project's key (404), no key (401), an ephemeral identity (409)", async () => {
    const identity = await createIdentity(t, alpha.api_key, persistent('guarded'));
    const other = await createIdentity(t, alpha.api_key);
    expectRefusal(await archive(identity.agent_id, identity.api_key), 403, undefined, 'SVC_ERR_API_KEY_WRONG_KIND');
    expectRefusal(await archive(identity.agent_id, other.api_key), 403, undefined, 'SVC_ERR_API_KEY_WRONG_KIND');
    expectRefusal(await archive(identity.agent_id, beta.api_key), 404, undefined, 'SVC_ERR_IDENTITY_NOT_FOUND');
    expectRefusal(await archive(identity.agent_id), 401);
    expectRefusal(await archive(identity.agent_id, `svc_sk_${'1'.repeat(64)}`), 401);
    expectRefusal(await archive(other.agent_id, t.node.ownerToken), 409, /ephemeral/, 'SVC_ERR_IDENTITY_WRONG_LIFETIME');
    expect(expectOk(await introspect(identity.api_key)).status).toBe('active');
    expect(expectOk(await introspect(other.api_key)).status).toBe('active');
  });

  it('answers 404 for an unknown identity and 422 for a malformed id', async () => {
    expectRefusal(await archive('00000000-0000-4000-8000-000000000000', t.node.ownerToken), 404, undefined, 'SVC_ERR_IDENTITY_NOT_FOUND');
    expectValidation(await archive('not-a-uuid', t.node.ownerToken), 'agent_id');
  });
});

describe('POST /api/v1/agents/{agent_id}/replace', () => {
  const replace = (agentId: string, token?: string) => t.request('POST', `/api/v1/agents/${agentId}/replace`, token ? { token } : {});

  it('replaces a persistent identity: a fresh did:svc takes the address, vouched for by the controller', async () => {
    const old = await createIdentity(t, alpha.api_key, persistent('phoenix'));
    // A setting of the old identity the successor keeps: it refuses plaintext mail.
    expectOk(await t.request('PATCH', '/v1/agents/me', { token: old.api_key, body: { accepts_plaintext: false } }));
    const replaced = expectOk(await replace(old.agent_id, t.node.ownerToken));
    expect(replaced.accepts_plaintext).toBe(false);
    expect(replaced).toMatchObject({ status: 'replaced', old_agent_id: old.agent_id, lifetime: 'persistent', name: 'phoenix', identity_status: 'active' });
    expect(replaced.agent_id).not.toBe(old.agent_id);
    expect(replaced.did_key).not.toBe(old.did_key);
    expect(isStableId(replaced.did_aw)).toBe(true);
    expect(replaced.did_aw).not.toBe(old.did_aw);
    expect(replaced.api_key).toMatch(API_KEY);

    // The address now resolves to the fresh identity's key.
    expect(expectOk(await addressOf('phoenix'))).toMatchObject({ did_key: replaced.did_key, did_aw: replaced.did_aw });
    expect(expectOk(await t.request('GET', `/v1/did/${replaced.did_aw}/key`)).current_did_key).toBe(replaced.did_key);
    const resolved = expectOk(await t.request('GET', `/v1/agents/resolve/${DOMAIN}/phoenix`, { token: replaced.api_key }));
    expect(resolved).toMatchObject({ did_key: replaced.did_key, agent_id: replaced.agent_id });

    // The controller, not the old key, vouches for the move.
    const namespace = expectOk(await t.request('GET', `/v1/namespaces/${DOMAIN}`));
    const [announcement] = replaced.replacement_announcements;
    const expectation = { controllerDid: namespace.controller_did, address: `${DOMAIN}/phoenix`, oldDid: old.did_key, newDid: replaced.did_key };
    expect(verifyReplacementAnnouncement(announcement, expectation)).toEqual({ ok: true });
    expect(verifyReplacementAnnouncement(announcement, { ...expectation, controllerDid: old.did_key }).ok).toBe(false);
    // Anyone can read the announcement back from the address it vouches for.
    const recorded = expectOk(await t.request('GET', `/v1/namespaces/${DOMAIN}/addresses/phoenix/replacements`));
    expect(recorded.replacement_announcements).toEqual([announcement]);
    expectRefusal(await t.request('GET', `/v1/namespaces/${DOMAIN}/addresses/nobody/replacements`), 404);

    // The old identity is marked replaced and its key no longer works; the new one's does.
    expect(await identityById(old.agent_id)).toMatchObject({ status: 'replaced', successor_agent_id: replaced.agent_id });
    expectRefusal(await introspect(old.api_key), 401);
    expect(expectOk(await introspect(replaced.api_key))).toMatchObject({ agent_id: replaced.agent_id, status: 'active' });
    expectRefusal(await replace(old.agent_id, t.node.ownerToken), 409, /already replaced/, 'SVC_ERR_IDENTITY_REPLACED');
  });

  it("replaces with the project's authority key too, including an archived identity", async () => {
    const old = await createIdentity(t, alpha.api_key, persistent('lazarus'));
    expectOk(await t.request('POST', `/api/v1/agents/${old.agent_id}/archive`, { token: alpha.api_key }));
    const replaced = expectOk(await replace(old.agent_id, alpha.api_key));
    expect(expectOk(await addressOf('lazarus')).did_key).toBe(replaced.did_key);
    expect(await identityById(old.agent_id)).toMatchObject({ status: 'replaced' });
  });

  it("refuses an ephemeral identity (409), an identity key (403), another project's key (404), no key (401)", async () => {
    const ephemeral = await createIdentity(t, alpha.api_key);
    expectRefusal(await replace(ephemeral.agent_id, t.node.ownerToken), 409, /ephemeral/, 'SVC_ERR_IDENTITY_WRONG_LIFETIME');
    const identity = await createIdentity(t, alpha.api_key, persistent('steadfast'));
    expectRefusal(await replace(identity.agent_id, identity.api_key), 403, undefined, 'SVC_ERR_API_KEY_WRONG_KIND');
    expectRefusal(await replace(identity.agent_id, beta.api_key), 404, undefined, 'SVC_ERR_IDENTITY_NOT_FOUND');
    expectRefusal(await replace(identity.agent_id), 401);
    expect(expectOk(await introspect(identity.api_key)).did_key).toBe(identity.did_key);
    expect(expectOk(await addressOf('steadfast')).did_key).toBe(identity.did_key);
    expect(expectOk(await introspect(ephemeral.api_key)).status).toBe('active');
  });

  it('refuses an identity without an address to carry over (409)', async () => {
    const loner = await createIdentity(t, beta.api_key, persistent('no-address'));
    expectRefusal(await replace(loner.agent_id, t.node.ownerToken), 409, /no address/, 'SVC_ERR_IDENTITY_NO_ADDRESS');
    expect(expectOk(await introspect(loner.api_key)).status).toBe('active');
  });
});

describe('owner API: identities', () => {
  it('lists every identity with its status', async () => {
    const identity = await createIdentity(t, beta.api_key, { alias: 'listed' });
    const listed = await identityById(identity.agent_id);
    expect(listed).toMatchObject({ alias: 'listed', project_slug: 'beta', lifetime: 'ephemeral', status: 'active', did_key: identity.did_key });
    expect(listed).not.toHaveProperty('api_key');
    expectRefusal(await t.request('GET', '/v1/node/identities'), 401);
  });

  it('creates a persistent identity directly', async () => {
    const created = expectOk(await t.owner('POST', '/v1/node/identities', { project_id: alpha.project_id, name: 'direct' }), 201);
    expect(created).toMatchObject({ lifetime: 'persistent', address: `${DOMAIN}/direct` });
    expect(created.api_key).toMatch(API_KEY);
    expectValidation(await t.owner('POST', '/v1/node/identities', { project_id: 'nope', name: 'x' }), 'project_id');
    expectRefusal(
      await t.owner('POST', '/v1/node/identities', { project_id: '00000000-0000-4000-8000-000000000000', name: 'x' }),
      404,
      undefined,
      'SVC_ERR_PROJECT_NOT_FOUND',
    );
  });
});

describe('API keys at rest', () => {
  it('are stored only as their sha256', async () => {
    const node = await startTestNode();
    const project = await createProject(node, 'vault');
    const identity = await createIdentity(node, project.api_key, { alias: 'holder' });
    await node.stop({ keepData: true });

    const { db, close } = await openNodeDatabase(node.dataDir);
    try {
      const sha = (text: string) => createHash('sha256').update(text).digest('hex');
      const hashes = (db.prepare('SELECT key_hash FROM api_keys').all() as { key_hash: string }[]).map((r) => r.key_hash).sort();
      expect(hashes).toEqual([sha(project.api_key), sha(identity.api_key)].sort());
      const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name);
      expect(tables).toContain('api_keys');
      for (const table of tables) {
        for (const row of db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[]) {
          for (const value of Object.values(row)) {
            for (const secret of [project.api_key, identity.api_key]) {
              const hex = secret.slice('svc_sk_'.length);
              if (Buffer.isBuffer(value)) expect(value.includes(hex)).toBe(false);
              else expect(String(value)).not.toContain(hex);
            }
          }
        }
      }
    } finally {
      close();
      node.removeData();
    }
  });
});
