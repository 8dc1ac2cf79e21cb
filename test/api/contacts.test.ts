/**
 * Contacts (upstream's `/v1/contacts`): an identity's own list of addresses, domains and
 * dids, which `contacts-only` reachability consults (test/api/mail.test.ts covers that rule).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createProject, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
let project: Project;
let owner: any;
let other: any;

beforeAll(async () => {
  t = await startTestNode();
  project = await createProject(t, 'contacts');
  owner = await createIdentity(t, project.api_key, { alias: 'owner' });
  other = await createIdentity(t, project.api_key, { alias: 'other' });
});
afterAll(async () => {
  await t.stop();
});

const add = (token: string | undefined, body: unknown) => t.request('POST', '/v1/contacts', { ...(token ? { token } : {}), body });
const list = async (token: string): Promise<any[]> => expectOk(await t.request('GET', '/v1/contacts', { token })).contacts;
const remove = (token: string | undefined, id: string) => t.request('DELETE', `/v1/contacts/${id}`, token ? { token } : {});

describe('/v1/contacts', () => {
  it('adds addresses, domains and dids, and lists them in the order added', async () => {
    const alice = expectOk(await add(owner.api_key, { contact_address: 'acme.com/alice', label: 'Alice at Acme' }));
    expect(alice).toEqual({
      contact_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      contact_address: 'acme.com/alice',
      label: 'Alice at Acme',
      created_at: expect.any(String),
    });
    const domain = expectOk(await add(owner.api_key, { contact_address: 'partner.example' }));
    expect(domain).toMatchObject({ contact_address: 'partner.example', label: '' });
    const did = expectOk(await add(owner.api_key, { contact_address: other.did_key }));
    expect(did.contact_address).toBe(other.did_key);
    const stable = 'did:svc:h7qh66sEGVqF4k1sysWCwTioD6N';
    expect(expectOk(await add(owner.api_key, { contact_address: stable })).contact_address).toBe(stable);

    expect(await list(owner.api_key)).toEqual([alice, domain, did, expect.objectContaining({ contact_address: stable })]);
    // Each identity has its own list.
    expect(await list(other.api_key)).toEqual([]);
  });

  it('stores a domain in lower case without a trailing dot, and keeps a did as written', async () => {
    const identity = await createIdentity(t, project.api_key);
    expect(expectOk(await add(identity.api_key, { contact_address: 'Example.ORG./Bob' })).contact_address).toBe('example.org/Bob');
    expect(expectOk(await add(identity.api_key, { contact_address: 'Upper.Example' })).contact_address).toBe('upper.example');
    expectRefusal(await add(identity.api_key, { contact_address: 'EXAMPLE.org/Bob' }), 409, /example\.org\/Bob is already a contact/, 'SVC_ERR_CONTACT_EXISTS');
  });

  it('refuses a duplicate (409) and keeps one', async () => {
    const identity = await createIdentity(t, project.api_key);
    expectOk(await add(identity.api_key, { contact_address: 'dup.example/x', label: 'first' }));
    expectRefusal(await add(identity.api_key, { contact_address: 'dup.example/x', label: 'second' }), 409, /already a contact/, 'SVC_ERR_CONTACT_EXISTS');
    expect(await list(identity.api_key)).toEqual([expect.objectContaining({ contact_address: 'dup.example/x', label: 'first' })]);
    // Another identity may hold the same contact.
    expectOk(await add(other.api_key, { contact_address: 'dup.example/x' }));
  });

  it('refuses invalid bodies with 422', async () => {
    const identity = await createIdentity(t, project.api_key);
    expectValidation(await add(identity.api_key, {}), 'contact_address');
    expectValidation(await add(identity.api_key, { contact_address: '' }), 'contact_address');
    expectValidation(await add(identity.api_key, { contact_address: 'a'.repeat(257) }), 'contact_address');
    expectValidation(await add(identity.api_key, { contact_address: 'has space' }), 'contact_address');
    expectValidation(await add(identity.api_key, { contact_address: 'team~alias' }), 'contact_address');
    expectValidation(await add(identity.api_key, { contact_address: 'ok.example', label: 'l'.repeat(129) }), 'label');
    expectValidation(await add(identity.api_key, { contact_address: 'ok.example', note: 'x' }), 'note');
    expect(await list(identity.api_key)).toEqual([]);
  });

  it("deletes idempotently; another identity's contact id answers {deleted: true} and leaves that contact alone", async () => {
    const identity = await createIdentity(t, project.api_key);
    const contact = expectOk(await add(identity.api_key, { contact_address: 'gone.example/x' }));
    expect(expectOk(await remove(identity.api_key, contact.contact_id))).toEqual({ deleted: true });
    expect(await list(identity.api_key)).toEqual([]);
    expect(expectOk(await remove(identity.api_key, contact.contact_id))).toEqual({ deleted: true });
    expect(expectOk(await remove(identity.api_key, '00000000-0000-4000-8000-000000000000'))).toEqual({ deleted: true });

    const kept = expectOk(await add(other.api_key, { contact_address: 'kept.example/x' }));
    expect(expectOk(await remove(identity.api_key, kept.contact_id))).toEqual({ deleted: true });
    expect((await list(other.api_key)).map((c) => c.contact_id)).toContain(kept.contact_id);
    // Deleted, the address can be added again.
    expectOk(await add(identity.api_key, { contact_address: 'gone.example/x' }));
  });

  it('refuses no key or a bad key (401) and a project key (403)', async () => {
    expectRefusal(await add(undefined, { contact_address: 'x.example' }), 401);
    expectRefusal(await t.request('GET', '/v1/contacts'), 401);
    expectRefusal(await t.request('GET', '/v1/contacts', { token: `svc_sk_${'a'.repeat(64)}` }), 401);
    expectRefusal(await remove(undefined, '00000000-0000-4000-8000-000000000000'), 401);
    expectRefusal(await add(project.api_key, { contact_address: 'x.example' }), 403);
    expectRefusal(await t.request('GET', '/v1/contacts', { token: project.api_key }), 403);
    expectRefusal(await remove(project.api_key, '00000000-0000-4000-8000-000000000000'), 403);
  });
});
