/**
 * Namespaces and addresses (spec §4.1, §5 mode 2; DESIGN §5): DIDKey-signed writes by the
 * controller, public reads, DNS verification, and every refusal leaving stored data as it was.
 * A namespace exists only with DNS proof (`POST /v1/namespaces`) or the owner's consent; the
 * attacks on that rule are in test/security/namespace-authority.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didKeyHeaders, testKey, timestamp, type TestKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { addressCall, assignAddress, registerByOwner, registerNamespace, setDnsController, setPublicOrigin } from '../support/namespaces.ts';
import { registerBody, rotateBody, stableIdOf } from '../support/did.ts';

let t: TestNode;
const controller = testKey();
const stranger = testKey();
let counter = 0;
/** A fresh two-label domain (no DNS ancestors to inherit from). */
const newDomain = (): string => `ns${++counter}-${process.pid}.test`;

/** The node's public origin, which `node=` in a proving record names. */
const NODE_ORIGIN = 'https://namespaces-node.test';

beforeAll(async () => {
  t = await startTestNode();
  await setPublicOrigin(t, NODE_ORIGIN);
});

/** The record that proves `domain` lives on this node under `key`. */
const prove = (domain: string, key: TestKey = controller): void => setDnsController(t, domain, key.didKey, NODE_ORIGIN);
afterAll(async () => {
  await t.stop();
});

async function namespaceOf(domain: string) {
  return t.request('GET', `/v1/namespaces/${domain}`);
}

/** Registers `domain` to `key` with the owner's consent and returns the stored namespace. */
async function registered(domain: string, key: TestKey = controller) {
  return expectOk(await registerByOwner(t, domain, key.didKey), 201);
}

describe('POST /v1/namespaces', () => {
  it('registers a DNS-proven namespace for the signer, then answers the same controller with 200', async () => {
    const domain = newDomain();
    prove(domain);
    const created = expectOk(await registerNamespace(t, controller, domain, { controller_did: controller.didKey }), 201);
    expect(created).toMatchObject({
      domain,
      controller_did: controller.didKey,
      verification_status: 'verified',
      node_controlled: false,
      authority: 'dns',
      address_count: 0,
    });
    const again = expectOk(await registerNamespace(t, controller, domain), 200);
    expect(again).toEqual(created);
    expect(expectOk(await namespaceOf(domain))).toEqual(created);
  });

  it('normalises the domain (case, trailing dot)', async () => {
    const domain = newDomain();
    prove(domain);
    const created = expectOk(
      await t.request('POST', '/v1/namespaces', {
        body: { domain: `${domain.toUpperCase()}.` },
        headers: didKeyHeaders(controller, { domain, operation: 'register' }),
      }),
      201,
    );
    expect(created.domain).toBe(domain);
  });

  it('refuses another controller with 409 and keeps the first', async () => {
    const domain = newDomain();
    const created = await registered(domain);
    prove(domain, stranger);
    expectRefusal(await registerNamespace(t, stranger, domain), 409, /already registered/, 'SVC_ERR_NAMESPACE_TAKEN');
    expect(expectOk(await namespaceOf(domain))).toEqual(created);
  });

  it('refuses a controller_did that is not the signer with 403', async () => {
    const domain = newDomain();
    expectRefusal(
      await registerNamespace(t, controller, domain, { controller_did: stranger.didKey }),
      403,
      /controller_did/,
      'SVC_ERR_NAMESPACE_CONTROLLER_MISMATCH',
    );
    expectRefusal(await namespaceOf(domain), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
  });

  it('refuses a bad signature with 401', async () => {
    const domain = newDomain();
    // Signed over another domain, presented for this one.
    const forged = didKeyHeaders(controller, { domain: 'elsewhere.test', operation: 'register' });
    expectRefusal(await registerNamespace(t, controller, domain, {}, { headers: forged }), 401, /signature/i);
    // Signed by one key, presented as another's.
    const signed = didKeyHeaders(stranger, { domain, operation: 'register' });
    const [, , signature] = (signed.authorization as string).split(' ');
    const claimed = { ...signed, authorization: `DIDKey ${controller.didKey} ${signature}` };
    expectRefusal(await registerNamespace(t, controller, domain, {}, { headers: claimed }), 401, /signature/i);
    // A signature that is not base64 of 64 bytes.
    const garbage = { ...signed, authorization: `DIDKey ${controller.didKey} not-a-signature` };
    expectRefusal(await registerNamespace(t, controller, domain, {}, { headers: garbage }), 401);
    expectRefusal(await namespaceOf(domain), 404);
  });

  it('refuses a timestamp 301 s in the past or the future with 401', async () => {
    const domain = newDomain();
    expectRefusal(await registerNamespace(t, controller, domain, {}, { at: timestamp(-301) }), 401, /window/, 'SVC_ERR_TIMESTAMP_INVALID');
    expectRefusal(await registerNamespace(t, controller, domain, {}, { at: timestamp(301) }), 401, /window/, 'SVC_ERR_TIMESTAMP_INVALID');
    expectRefusal(await registerNamespace(t, controller, domain, {}, { at: '2026-01-01 10:00:00' }), 401);
    expectRefusal(await namespaceOf(domain), 404);
  });

  it('refuses missing or malformed credentials with 401', async () => {
    const domain = newDomain();
    const signed = didKeyHeaders(controller, { domain, operation: 'register' });
    expectRefusal(await registerNamespace(t, controller, domain, {}, { headers: {} }), 401, /Authorization/);
    expectRefusal(await registerNamespace(t, controller, domain, {}, { headers: { authorization: signed.authorization as string } }), 401, /Timestamp/);
    expectRefusal(
      await registerNamespace(t, controller, domain, {}, { headers: { 'x-svc-timestamp': signed['x-svc-timestamp'] as string } }),
      401,
      /Authorization/,
    );
    expectRefusal(await registerNamespace(t, controller, domain, {}, { headers: { ...signed, authorization: `Bearer ${controller.didKey}` } }), 401);
    expectRefusal(
      await registerNamespace(
        t,
        controller,
        domain,
        {},
        { headers: { ...signed, authorization: signed.authorization!.replace(controller.didKey, 'did:key:zNotAKey') } },
      ),
      401,
    );
    expectRefusal(await namespaceOf(domain), 404);
  });

  it('runs a signed request once: the identical request again gets the first answer', async () => {
    const domain = newDomain();
    prove(domain);
    const headers = didKeyHeaders(controller, { domain, operation: 'register' });
    const created = expectOk(await registerNamespace(t, controller, domain, {}, { headers }), 201);
    expect(expectOk(await registerNamespace(t, controller, domain, {}, { headers }), 201)).toEqual(created);
    expect(expectOk(await namespaceOf(domain))).toEqual(created);
  });

  it('refuses malformed JSON with 400', async () => {
    const domain = newDomain();
    const response = await t.request('POST', '/v1/namespaces', {
      raw: `{"domain": "${domain}"`,
      headers: didKeyHeaders(controller, { domain, operation: 'register' }),
    });
    expectRefusal(response, 400, /JSON/);
    expectRefusal(await namespaceOf(domain), 404);
  });

  it('refuses an invalid domain, an oversize one and unknown fields with 422', async () => {
    for (const domain of ['not a domain', 'under_score.test', 'com', '-lead.test']) {
      expectValidation(await registerNamespace(t, controller, domain), 'domain');
    }
    const long = `${'a'.repeat(60)}.`.repeat(5) + 'test';
    expectValidation(await registerNamespace(t, controller, long), 'domain');
    const domain = newDomain();
    expectRefusal(await registerNamespace(t, controller, domain, { owner: 'me' }), 422);
    expectRefusal(await t.request('POST', '/v1/namespaces', { body: ['x'], headers: didKeyHeaders(controller, { domain, operation: 'register' }) }), 422);
    expectRefusal(await namespaceOf(domain), 404);
  });

  describe('DNS verification', () => {
    it('is verified when _svcid.<domain> names the signer and this node', async () => {
      const domain = newDomain();
      prove(domain);
      const created = expectOk(await registerNamespace(t, controller, domain), 201);
      expect(created.verification_status).toBe('verified');
      expect(Date.parse(created.last_verified_at)).not.toBeNaN();
    });

    it('is inherited from a parent domain record', async () => {
      const parent = newDomain();
      prove(parent);
      const created = expectOk(await registerNamespace(t, controller, `team.${parent}`), 201);
      expect(created.verification_status).toBe('verified');
    });

    it('refuses with 403 when DNS names another controller', async () => {
      const domain = newDomain();
      prove(domain, stranger);
      expectRefusal(await registerNamespace(t, controller, domain), 403, /DNS/, 'SVC_ERR_NAMESPACE_DNS_MISMATCH');
      expectRefusal(await namespaceOf(domain), 404);
      // The controller DNS names may register it.
      expect(expectOk(await registerNamespace(t, stranger, domain), 201).verification_status).toBe('verified');
    });

    it('leaves an owner-registered namespace without a record unverified', async () => {
      const domain = newDomain();
      t.dns.records[`_svcid.${domain}`] = [['v=spf1 -all']];
      expect(await registered(domain)).toMatchObject({ verification_status: 'unverified', authority: 'owner', node_controlled: false });
    });
  });
});

describe('GET /v1/namespaces', () => {
  it('answers one namespace, and 404 for an unknown or impossible domain', async () => {
    const domain = newDomain();
    const created = await registered(domain);
    expect(expectOk(await namespaceOf(domain))).toEqual(created);
    expect(expectOk(await namespaceOf(domain.toUpperCase()))).toEqual(created);
    expectRefusal(await namespaceOf(newDomain()), 404, /not found/i, 'SVC_ERR_NAMESPACE_NOT_FOUND');
    expectRefusal(await namespaceOf('not_a_domain'), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
  });

  it('lists the namespaces of one controller', async () => {
    const own = testKey();
    const [a, b] = [newDomain(), newDomain()];
    await registered(a, own);
    await registered(b, own);
    await registered(newDomain(), stranger);
    const listed = expectOk(await t.request('GET', `/v1/namespaces?controller_did=${encodeURIComponent(own.didKey)}`));
    expect(listed.namespaces.map((n: { domain: string }) => n.domain)).toEqual([a, b].sort());
    expect(listed.namespaces.every((n: { controller_did: string }) => n.controller_did === own.didKey)).toBe(true);
    expect(expectOk(await t.request('GET', `/v1/namespaces?controller_did=${encodeURIComponent(testKey().didKey)}`))).toEqual({ namespaces: [] });
  });

  it('refuses a list without controller_did with 422', async () => {
    expectValidation(await t.request('GET', '/v1/namespaces'), 'controller_did');
    expectValidation(await t.request('GET', `/v1/namespaces?controller_did=${'x'.repeat(300)}`), 'controller_did');
  });
});

describe('POST /v1/namespaces/{domain}/verify', () => {
  it('revokes a verified namespace whose record disappears, and verifies it again when it returns', async () => {
    const domain = newDomain();
    setDnsController(t, domain, controller.didKey);
    expect((await registered(domain)).verification_status).toBe('verified');

    expect(expectOk(await t.request('POST', `/v1/namespaces/${domain}/verify`)).verification_status).toBe('verified');
    setDnsController(t, domain, null);
    const revoked = expectOk(await t.request('POST', `/v1/namespaces/${domain}/verify`));
    expect(revoked).toMatchObject({ domain, verification_status: 'revoked', controller_did: controller.didKey });
    expect(expectOk(await namespaceOf(domain)).verification_status).toBe('revoked');

    setDnsController(t, domain, controller.didKey);
    expect(expectOk(await t.request('POST', `/v1/namespaces/${domain}/verify`)).verification_status).toBe('verified');
  });

  it('revokes a verified namespace when DNS names another controller, and keeps an unverified one unverified', async () => {
    const domain = newDomain();
    setDnsController(t, domain, controller.didKey);
    await registered(domain);
    setDnsController(t, domain, stranger.didKey);
    const revoked = expectOk(await t.request('POST', `/v1/namespaces/${domain}/verify`));
    expect(revoked).toMatchObject({ verification_status: 'revoked', controller_did: controller.didKey });

    const plain = newDomain();
    await registered(plain);
    expect(expectOk(await t.request('POST', `/v1/namespaces/${plain}/verify`)).verification_status).toBe('unverified');
  });

  it('answers 503 and changes nothing when the DNS lookup itself fails', async () => {
    const domain = newDomain();
    setDnsController(t, domain, controller.didKey);
    const before = await registered(domain);
    expect(before.verification_status).toBe('verified');
    t.dns.behaviour[`_svcid.${domain}`] = 'servfail';
    try {
      expectRefusal(await t.request('POST', `/v1/namespaces/${domain}/verify`), 503, /DNS/, 'SVC_ERR_NAMESPACE_DNS_UNAVAILABLE');
    } finally {
      delete t.dns.behaviour[`_svcid.${domain}`];
    }
    expect(expectOk(await namespaceOf(domain))).toEqual(before);
    expectOk(await assignAddress(t, controller, domain, { name: 'still-works', did_key: controller.didKey }), 201);
  });

  it('answers 404 for an unknown namespace', async () => {
    expectRefusal(await t.request('POST', `/v1/namespaces/${newDomain()}/verify`), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
  });
});

describe('addresses', () => {
  let domain: string;
  const alice = testKey();
  const bob = testKey();

  beforeAll(async () => {
    domain = newDomain();
    await registered(domain);
  });

  const address = (name: string) => t.request('GET', `/v1/namespaces/${domain}/addresses/${name}`);

  /** Assigns `name` to `key` and returns the stored address. */
  async function assigned(name: string, key: TestKey = alice) {
    return expectOk(await assignAddress(t, controller, domain, { name, did_key: key.didKey }), 201);
  }

  /** A self-custodial did:svc registered at the node. */
  async function selfCustodialDid(key: TestKey): Promise<string> {
    expectOk(await t.request('POST', '/v1/did', { body: registerBody(key) }));
    return stableIdOf(key);
  }

  describe('POST /v1/namespaces/{domain}/addresses', () => {
    it('assigns an address (201), answers the same assignment with 200, and lists it', async () => {
      const created = await assigned('alice');
      expect(created).toMatchObject({ domain, name: 'alice', address: `${domain}/alice`, did_key: alice.didKey, current_did_key: alice.didKey, did_aw: null });
      const again = expectOk(await assignAddress(t, controller, domain, { name: 'alice', did_key: alice.didKey }), 200);
      expect(again).toEqual(created);
      expect(expectOk(await address('alice'))).toEqual(created);
      const list = expectOk(await t.request('GET', `/v1/namespaces/${domain}/addresses`));
      expect(list.addresses).toContainEqual(created);
      expect(expectOk(await namespaceOf(domain)).address_count).toBeGreaterThanOrEqual(1);
    });

    it('binds an address to a registered did:svc', async () => {
      const key = testKey();
      const didAw = await selfCustodialDid(key);
      const created = expectOk(await assignAddress(t, controller, domain, { name: 'carol', did_key: key.didKey, did_aw: didAw }), 201);
      expect(created).toMatchObject({ did_key: key.didKey, did_aw: didAw });
    });

    it('refuses a taken name with 409 and keeps the assignment', async () => {
      const before = await assigned('taken');
      expectRefusal(await assignAddress(t, controller, domain, { name: 'taken', did_key: bob.didKey }), 409, /already assigned/, 'SVC_ERR_ADDRESS_TAKEN');
      expect(expectOk(await address('taken'))).toEqual(before);
    });

    it('refuses a signer that is not the controller with 403', async () => {
      expectRefusal(
        await assignAddress(t, stranger, domain, { name: 'mallory', did_key: stranger.didKey }),
        403,
        /controller/,
        'SVC_ERR_NAMESPACE_NOT_CONTROLLER',
      );
      expectRefusal(await address('mallory'), 404, undefined, 'SVC_ERR_ADDRESS_NOT_FOUND');
    });

    it('refuses bad names, oversize names, bad keys and unknown fields with 422', async () => {
      for (const name of ['has.dot', 'tilde~name', '-lead', '', 'sp ace']) {
        expectValidation(await assignAddress(t, controller, domain, { name, did_key: alice.didKey }), 'name');
      }
      expectValidation(await assignAddress(t, controller, domain, { name: 'n'.repeat(65), did_key: alice.didKey }), 'name');
      expectRefusal(await assignAddress(t, controller, domain, { name: 'badkey', did_key: 'did:key:zNope' }), 422, /did:key/, 'SVC_ERR_DID_MALFORMED');
      expectValidation(await assignAddress(t, controller, domain, { name: 'longkey', did_key: `did:key:z${'1'.repeat(300)}` }), 'did_key');
      expectRefusal(await assignAddress(t, controller, domain, { name: 'extra', did_key: alice.didKey, reachability: 'public' }), 422);
      for (const name of ['badkey', 'longkey', 'extra']) expectRefusal(await address(name), 404);
    });

    it('refuses an unregistered did_aw, and a did_aw whose key is not did_key, with 409', async () => {
      const unregistered = testKey();
      expectRefusal(
        await assignAddress(t, controller, domain, { name: 'ghost', did_key: unregistered.didKey, did_aw: stableIdOf(unregistered) }),
        409,
        /registered/,
        'SVC_ERR_DID_UNREGISTERED',
      );
      const key = testKey();
      const didAw = await selfCustodialDid(key);
      expectRefusal(
        await assignAddress(t, controller, domain, { name: 'ghost', did_key: bob.didKey, did_aw: didAw }),
        409,
        /does not match/,
        'SVC_ERR_DID_KEY_MISMATCH',
      );
      expectRefusal(await address('ghost'), 404);
    });

    it('refuses missing credentials, a bad signature and a stale timestamp with 401', async () => {
      expectRefusal(await assignAddress(t, controller, domain, { name: 'dave', did_key: alice.didKey }, { headers: {} }), 401);
      const forOtherName = didKeyHeaders(controller, { domain, name: 'someone-else', operation: 'register_address' });
      expectRefusal(await assignAddress(t, controller, domain, { name: 'dave', did_key: alice.didKey }, { headers: forOtherName }), 401, /signature/i);
      expectRefusal(await assignAddress(t, controller, domain, { name: 'dave', did_key: alice.didKey }, { at: timestamp(-301) }), 401);
      expectRefusal(await address('dave'), 404);
    });

    it('accepts a signed request once: a captured assignment cannot be replayed after its removal', async () => {
      const headers = didKeyHeaders(controller, { domain, name: 'once', operation: 'register_address' });
      expectOk(await assignAddress(t, controller, domain, { name: 'once', did_key: alice.didKey }, { headers }), 201);
      expectOk(await addressCall(t, controller, 'delete_address', domain, 'once'));
      expectRefusal(await assignAddress(t, controller, domain, { name: 'once', did_key: bob.didKey }, { headers }), 401, /already used/, 'SVC_ERR_REPLAYED');
      expectRefusal(await address('once'), 404);
    });

    it('refuses malformed JSON with 400 and an unknown namespace with 404', async () => {
      const response = await t.request('POST', `/v1/namespaces/${domain}/addresses`, {
        raw: '{"name": "erin", "did_key": ',
        headers: didKeyHeaders(controller, { domain, name: 'erin', operation: 'register_address' }),
      });
      expectRefusal(response, 400);
      expectRefusal(await address('erin'), 404);
      expectRefusal(await assignAddress(t, controller, newDomain(), { name: 'erin', did_key: alice.didKey }), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
    });
  });

  describe('GET addresses', () => {
    it('answers 404 for an unknown name or namespace', async () => {
      expectRefusal(await address('nobody-here'), 404, /Address not found/, 'SVC_ERR_ADDRESS_NOT_FOUND');
      expectRefusal(await t.request('GET', `/v1/namespaces/${newDomain()}/addresses/alice`), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
      expectRefusal(await t.request('GET', `/v1/namespaces/${newDomain()}/addresses`), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
    });

    it('lists the addresses of a namespace by name', async () => {
      await assigned('zed');
      await assigned('amy');
      const names = expectOk(await t.request('GET', `/v1/namespaces/${domain}/addresses`)).addresses.map((a: { name: string }) => a.name);
      expect(names).toEqual([...names].sort());
      expect(names).toEqual(expect.arrayContaining(['amy', 'zed']));
    });

    it('answers only the names asked for (those that exist), at most 64 of them', async () => {
      await assigned('ivy');
      const asked = expectOk(await t.request('GET', `/v1/namespaces/${domain}/addresses?names=ivy,nobody,amy,ivy`)).addresses;
      expect(asked.map((a: { name: string }) => a.name)).toEqual(['ivy', 'amy']);
      expect(asked[0]).toEqual(expectOk(await address('ivy')));
      const many = Array.from({ length: 65 }, (_, i) => `n${i}`).join(',');
      expectValidation(await t.request('GET', `/v1/namespaces/${domain}/addresses?names=${many}`), 'names');
      expectValidation(await t.request('GET', `/v1/namespaces/${domain}/addresses?names=amy,,zed`), 'names');
    });
  });

  describe('PUT /v1/namespaces/{domain}/addresses/{name} (rotate)', () => {
    it('points the address at a new key', async () => {
      await assigned('rot');
      const next = testKey();
      const rotated = expectOk(await addressCall(t, controller, 'update_address', domain, 'rot', { did_key: next.didKey }));
      expect(rotated).toMatchObject({ name: 'rot', did_key: next.didKey });
      expect(expectOk(await address('rot')).did_key).toBe(next.didKey);
    });

    it('refuses a stranger (403), bad credentials (401), a bad key (422) and an unknown name (404)', async () => {
      const before = await assigned('rot2');
      const next = testKey();
      expectRefusal(
        await addressCall(t, stranger, 'update_address', domain, 'rot2', { did_key: next.didKey }),
        403,
        undefined,
        'SVC_ERR_NAMESPACE_NOT_CONTROLLER',
      );
      expectRefusal(await addressCall(t, controller, 'update_address', domain, 'rot2', { did_key: next.didKey }, { headers: {} }), 401);
      expectRefusal(await addressCall(t, controller, 'update_address', domain, 'rot2', { did_key: next.didKey }, { at: timestamp(301) }), 401);
      expectRefusal(
        await addressCall(t, controller, 'update_address', domain, 'rot2', { did_key: next.didKey }, { signAs: 'reassign_address' }),
        401,
        /signature/i,
      );
      expectRefusal(await addressCall(t, controller, 'update_address', domain, 'rot2', { did_key: 'not-a-did' }), 422);
      expectRefusal(await addressCall(t, controller, 'update_address', domain, 'rot2', { did_key: next.didKey, extra: 1 }), 422);
      expect(expectOk(await address('rot2'))).toEqual(before);
      expectRefusal(
        await addressCall(t, controller, 'update_address', domain, 'no-such-name', { did_key: next.didKey }),
        404,
        undefined,
        'SVC_ERR_ADDRESS_NOT_FOUND',
      );
    });

    it('refuses to rotate a did:svc-bound address to a key that identity does not hold (409)', async () => {
      const key = testKey();
      const didAw = await selfCustodialDid(key);
      const before = expectOk(await assignAddress(t, controller, domain, { name: 'bound', did_key: key.didKey, did_aw: didAw }), 201);
      expectRefusal(
        await addressCall(t, controller, 'update_address', domain, 'bound', { did_key: testKey().didKey }),
        409,
        /follows/,
        'SVC_ERR_DID_KEY_MISMATCH',
      );
      expect(expectOk(await address('bound'))).toEqual(before);

      // Once the identity rotates its own key, the address follows, and rotating to it is accepted.
      const next = testKey();
      const head = expectOk(await t.request('GET', `/v1/did/${didAw}/key`)).log_head;
      expectOk(await t.request('PUT', `/v1/did/${didAw}`, { body: rotateBody(key, { ...head, did_aw: didAw }, next) }));
      expect(expectOk(await address('bound')).did_key).toBe(next.didKey);
      expect(expectOk(await addressCall(t, controller, 'update_address', domain, 'bound', { did_key: next.didKey }))).toMatchObject({
        did_key: next.didKey,
        did_aw: didAw,
      });
    });
  });

  describe('POST /v1/namespaces/{domain}/addresses/{name}/reassign', () => {
    it('reassigns the address to another identity', async () => {
      await assigned('move');
      const key = testKey();
      const didAw = await selfCustodialDid(key);
      const moved = expectOk(await addressCall(t, controller, 'reassign_address', domain, 'move', { did_key: key.didKey, did_aw: didAw }));
      expect(moved).toMatchObject({ name: 'move', did_key: key.didKey, did_aw: didAw });
      expect(expectOk(await address('move'))).toMatchObject({ did_key: key.didKey, did_aw: didAw });
    });

    it('refuses a stranger (403), bad credentials (401), an unregistered did_aw (409), a bad body (422), an unknown name (404)', async () => {
      const before = await assigned('stay');
      const key = testKey();
      expectRefusal(await addressCall(t, stranger, 'reassign_address', domain, 'stay', { did_key: key.didKey }), 403);
      expectRefusal(await addressCall(t, controller, 'reassign_address', domain, 'stay', { did_key: key.didKey }, { headers: {} }), 401);
      expectRefusal(await addressCall(t, controller, 'reassign_address', domain, 'stay', { did_key: key.didKey }, { signAs: 'update_address' }), 401);
      expectRefusal(await addressCall(t, controller, 'reassign_address', domain, 'stay', { did_key: key.didKey }, { at: timestamp(-301) }), 401);
      expectRefusal(
        await addressCall(t, controller, 'reassign_address', domain, 'stay', { did_key: key.didKey, did_aw: stableIdOf(key) }),
        409,
        undefined,
        'SVC_ERR_DID_UNREGISTERED',
      );
      expectValidation(await addressCall(t, controller, 'reassign_address', domain, 'stay', {}), 'did_key');
      expect(expectOk(await address('stay'))).toEqual(before);
      expectRefusal(
        await addressCall(t, controller, 'reassign_address', domain, 'no-such-name', { did_key: key.didKey }),
        404,
        undefined,
        'SVC_ERR_ADDRESS_NOT_FOUND',
      );
    });
  });

  describe('DELETE /v1/namespaces/{domain}/addresses/{name}', () => {
    it('removes the assignment', async () => {
      await assigned('gone');
      expect(expectOk(await addressCall(t, controller, 'delete_address', domain, 'gone'))).toEqual({ deleted: true, domain, name: 'gone' });
      expectRefusal(await address('gone'), 404);
      expectRefusal(await addressCall(t, controller, 'delete_address', domain, 'gone'), 404, undefined, 'SVC_ERR_ADDRESS_NOT_FOUND');
    });

    it('refuses a stranger (403) and bad credentials (401), keeping the address', async () => {
      const before = await assigned('kept');
      expectRefusal(await addressCall(t, stranger, 'delete_address', domain, 'kept'), 403, undefined, 'SVC_ERR_NAMESPACE_NOT_CONTROLLER');
      expectRefusal(await addressCall(t, controller, 'delete_address', domain, 'kept', undefined, { headers: {} }), 401);
      expectRefusal(await addressCall(t, controller, 'delete_address', domain, 'kept', undefined, { signAs: 'register_address' }), 401);
      expectRefusal(await addressCall(t, controller, 'delete_address', domain, 'kept', undefined, { at: timestamp(301) }), 401);
      expect(expectOk(await address('kept'))).toEqual(before);
    });

    it('is allowed while the namespace is revoked', async () => {
      const revokedDomain = newDomain();
      setDnsController(t, revokedDomain, controller.didKey);
      await registered(revokedDomain);
      expectOk(await assignAddress(t, controller, revokedDomain, { name: 'left', did_key: alice.didKey }), 201);
      setDnsController(t, revokedDomain, null);
      expect(expectOk(await t.request('POST', `/v1/namespaces/${revokedDomain}/verify`)).verification_status).toBe('revoked');

      // New bindings are refused while revoked; removal is not.
      const before = expectOk(await t.request('GET', `/v1/namespaces/${revokedDomain}/addresses/left`));
      expectRefusal(await assignAddress(t, controller, revokedDomain, { name: 'new', did_key: alice.didKey }), 403, /revoked/, 'SVC_ERR_NAMESPACE_REVOKED');
      expectRefusal(
        await addressCall(t, controller, 'update_address', revokedDomain, 'left', { did_key: bob.didKey }),
        403,
        /revoked/,
        'SVC_ERR_NAMESPACE_REVOKED',
      );
      expectRefusal(
        await addressCall(t, controller, 'reassign_address', revokedDomain, 'left', { did_key: bob.didKey }),
        403,
        /revoked/,
        'SVC_ERR_NAMESPACE_REVOKED',
      );
      expect(expectOk(await t.request('GET', `/v1/namespaces/${revokedDomain}/addresses/left`))).toEqual(before);
      expectRefusal(await t.request('GET', `/v1/namespaces/${revokedDomain}/addresses/new`), 404);

      expectOk(await addressCall(t, controller, 'delete_address', revokedDomain, 'left'));
      expectRefusal(await t.request('GET', `/v1/namespaces/${revokedDomain}/addresses/left`), 404);
      expect(expectOk(await namespaceOf(revokedDomain))).toMatchObject({ verification_status: 'revoked', address_count: 0 });
    });
  });
});
