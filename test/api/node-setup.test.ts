/**
 * "Set up your node" (`POST /v1/node/setup`): a namespace with a node-held key, a project bound to
 * it and a persistent identity, in one step; validation in words; the same request twice gives the
 * same identity; nothing is left half-made when any part is refused, even when a concurrent setup
 * wins the race after this one registered its namespace. Also: asking again for a namespace the
 * node already holds answers it (200) instead of "registered to another controller".
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DnsResolver } from '../../server/dns/resolver.ts';
import { staticDnsResolver } from '../../server/dns/resolver.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { testKey } from '../support/keys.ts';
import { registerByOwner, setDnsController } from '../support/namespaces.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const nodes: TestNode[] = [];
async function freshNode(dns?: DnsResolver): Promise<TestNode> {
  const node = await startTestNode(dns === undefined ? {} : { dns });
  nodes.push(node);
  return node;
}
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((node) => node.stop()));
});

/** What the node holds, as the Identities view lists it. */
async function holdings(t: TestNode) {
  const [identities, projects, namespaces] = await Promise.all([
    t.owner('GET', '/v1/node/identities'),
    t.owner('GET', '/v1/node/projects'),
    t.owner('GET', '/v1/node/namespaces'),
  ]);
  return {
    identities: expectOk(identities).identities.map((i: { name: string; address: string | null }) => `${i.name} ${i.address}`),
    projects: expectOk(projects).projects.map((p: { slug: string; namespace: string | null }) => `${p.slug} ${p.namespace}`),
    namespaces: expectOk(namespaces).namespaces.map((n: { domain: string }) => n.domain),
  };
}

const EMPTY = { identities: [], projects: [], namespaces: [] };

describe('POST /v1/node/setup', () => {
  it('without a domain: an identity at this node’s own .local namespace, ready to receive mail', async () => {
    const t = await freshNode();
    const nodeId = expectOk(await t.owner('GET', '/v1/node/info')).node_id as string;
    const local = `node-${nodeId.replace(/-/g, '').slice(0, 8)}.local`;

    const result = expectOk(await t.owner('POST', '/v1/node/setup', { name: 'alice' }), 201);
    expect(result).toMatchObject({
      created: true,
      address: `${local}/alice`,
      namespace: { domain: local, local: true },
      project: { slug: 'alice' },
      identity: { name: 'alice', lifetime: 'persistent', status: 'active', address: `${local}/alice` },
    });
    expect(result.identity.did_aw).toMatch(/^did:svc:/);
    expect(result).not.toHaveProperty('api_key');
    expect(await holdings(t)).toEqual({ identities: [`alice ${local}/alice`], projects: [`alice ${local}`], namespaces: [local] });

    const namespace = expectOk(await t.request('GET', `/v1/namespaces/${local}`));
    expect(namespace).toMatchObject({ node_controlled: true, authority: 'owner' });
    expect(expectOk(await t.request('GET', `/v1/namespaces/${local}/addresses/alice`)).did_key).toBe(result.identity.did_key);

    // The address works: another identity on the node writes to it, and it arrives.
    const key = expectOk(await t.owner('POST', `/v1/node/identities/${result.identity.agent_id}/session-key`), 201).api_key as string;
    const project = expectOk(await t.owner('POST', '/v1/node/projects', { slug: 'agents' }), 201);
    const bob = expectOk(await t.request('POST', '/v1/workspaces/init', { token: project.api_key, body: { alias: 'bob' } }), 201);
    expectOk(await t.request('POST', '/v1/messages', { token: bob.api_key, body: { to_address: `${local}/alice`, subject: 'hi', body: 'welcome' } }));
    const inbox = expectOk(await t.request('GET', '/v1/messages/inbox', { token: key }));
    expect(inbox.messages.map((m: { subject: string }) => m.subject)).toEqual(['hi']);
  });

  it('with a domain: the address is under that domain', async () => {
    const t = await freshNode();
    const result = expectOk(await t.owner('POST', '/v1/node/setup', { name: 'Alice_1', domain: 'Example.TEST.' }), 201);
    expect(result).toMatchObject({ address: 'example.test/Alice_1', namespace: { domain: 'example.test', local: false }, project: { slug: 'Alice_1' } });
    expect(await holdings(t)).toEqual({
      identities: ['Alice_1 example.test/Alice_1'],
      projects: ['Alice_1 example.test'],
      namespaces: ['example.test'],
    });
  });

  it('refuses bad input in words, field by field, and writes nothing', async () => {
    const t = await freshNode();
    expectValidation(await t.owner('POST', '/v1/node/setup', {}), 'name');
    const badName = await t.owner('POST', '/v1/node/setup', { name: 'Alice Smith' });
    expectRefusal(badName, 422, undefined, 'SVC_ERR_VALIDATION');
    expect(badName.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'use 1-64 letters, digits, "-" or "_", starting with a letter or digit (no spaces or dots)', type: 'custom' },
    ]);
    const badDomain = await t.owner('POST', '/v1/node/setup', { name: 'alice', domain: 'https://example.com' });
    expectRefusal(badDomain, 422, undefined, 'SVC_ERR_VALIDATION');
    expect(badDomain.body.detail).toEqual([
      { loc: ['body', 'domain'], msg: 'enter just the domain, such as example.com, without https:// or a path', type: 'custom' },
    ]);
    expectRefusal(await t.owner('POST', '/v1/node/setup', { name: 'x'.repeat(65) }), 422, /at most 64 characters/, 'SVC_ERR_VALIDATION');
    expectValidation(await t.owner('POST', '/v1/node/setup', { name: 'alice', extra: true }), 'extra');
    expectRefusal(await t.request('POST', '/v1/node/setup', { body: { name: 'alice' } }), 401, undefined, 'SVC_ERR_OWNER_TOKEN_REQUIRED');
    expect(await holdings(t)).toEqual(EMPTY);
  });

  it('answers the same request twice with the same identity, and refuses a different one', async () => {
    const t = await freshNode();
    const first = expectOk(await t.owner('POST', '/v1/node/setup', { name: 'alice' }), 201);
    const again = expectOk(await t.owner('POST', '/v1/node/setup', { name: 'alice' }), 200);
    expect(again).toEqual({ ...first, created: false });
    expectRefusal(
      await t.owner('POST', '/v1/node/setup', { name: 'bob' }),
      409,
      new RegExp(`already set up as ${first.address}`),
      'SVC_ERR_SETUP_ALREADY_DONE',
    );
    expectRefusal(await t.owner('POST', '/v1/node/setup', { name: 'alice', domain: 'example.test' }), 409, /already set up/, 'SVC_ERR_SETUP_ALREADY_DONE');
    expect((await holdings(t)).identities).toEqual([`alice ${first.address}`]);
  });

  it('leaves nothing behind when DNS gives the domain to another controller', async () => {
    const t = await freshNode();
    setDnsController(t, 'taken.test', testKey().didKey);
    expectRefusal(
      await t.owner('POST', '/v1/node/setup', { name: 'alice', domain: 'taken.test' }),
      403,
      /names another controller/,
      'SVC_ERR_NAMESPACE_DNS_MISMATCH',
    );
    expect(await holdings(t)).toEqual(EMPTY);
    // Nothing was recorded as done: setting up with another domain still works.
    expectOk(await t.owner('POST', '/v1/node/setup', { name: 'alice', domain: 'mine.test' }), 201);
  });

  it('takes back the namespace it registered when a concurrent setup finished first', async () => {
    // DNS for slow.test answers only once the other setup has finished: the two overlap for sure.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const table = staticDnsResolver();
    const dns: DnsResolver = {
      resolveTxt: async (name) => {
        if (name === '_svcid.slow.test') await gate;
        return table.resolveTxt(name);
      },
      lookup: (hostname) => table.lookup(hostname),
    };
    const t = await freshNode(dns);
    const slow = t.owner('POST', '/v1/node/setup', { name: 'bob', domain: 'slow.test' });
    const fast = expectOk(await t.owner('POST', '/v1/node/setup', { name: 'alice', domain: 'fast.test' }), 201);
    open();
    expectRefusal(await slow, 409, /already set up as fast\.test\/alice/, 'SVC_ERR_SETUP_ALREADY_DONE');
    expect(await holdings(t)).toEqual({ identities: ['alice fast.test/alice'], projects: ['alice fast.test'], namespaces: ['fast.test'] });
    expect(fast.created).toBe(true);
  });

  it('uses a namespace the node already holds, and picks a free project slug', async () => {
    const t = await freshNode();
    expectOk(await t.owner('POST', '/v1/node/namespaces', { domain: 'held.test' }), 201);
    expectOk(await t.owner('POST', '/v1/node/projects', { slug: 'alice' }), 201);
    const result = expectOk(await t.owner('POST', '/v1/node/setup', { name: 'alice', domain: 'held.test' }), 201);
    expect(result).toMatchObject({ address: 'held.test/alice', project: { slug: 'alice-2' } });
    expect((await holdings(t)).namespaces).toEqual(['held.test']);
  });

  it('refuses a domain whose key is held elsewhere, in words, before writing anything', async () => {
    const t = await freshNode();
    expectOk(await registerByOwner(t, 'outside.test', testKey().didKey), 201);
    expectRefusal(await t.owner('POST', '/v1/node/setup', { name: 'alice', domain: 'outside.test' }), 409, /outside controller key/, 'SVC_ERR_NAMESPACE_TAKEN');
    expect(await holdings(t)).toEqual({ ...EMPTY, namespaces: ['outside.test'] });
  });
});

describe('POST /v1/node/namespaces, asked again', () => {
  it('answers a namespace the node holds with 200 and the same controller', async () => {
    const t = await freshNode();
    const first = expectOk(await t.owner('POST', '/v1/node/namespaces', { domain: 'twice.test' }), 201);
    const again = expectOk(await t.owner('POST', '/v1/node/namespaces', { domain: 'TWICE.test.' }), 200);
    expect(again.controller_did).toBe(first.controller_did);
    expect((await holdings(t)).namespaces).toEqual(['twice.test']);
  });

  it('says who controls a namespace held by an outside key', async () => {
    const t = await freshNode();
    const outside = testKey();
    expectOk(await registerByOwner(t, 'outside.test', outside.didKey), 201);
    expectRefusal(
      await t.owner('POST', '/v1/node/namespaces', { domain: 'outside.test' }),
      409,
      new RegExp(`outside key ${outside.didKey}`),
      'SVC_ERR_NAMESPACE_TAKEN',
    );
  });
});
