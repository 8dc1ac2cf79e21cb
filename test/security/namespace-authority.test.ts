/**
 * Namespace authority (DESIGN §5): a namespace exists on a node only with its owner's
 * consent or with DNS proof. Each attack below is performed for real, from the peer listener with
 * no credential but a key of the attacker's own: squatting `bigcorp.example` to receive the mail
 * local identities send there, to refuse the real node's mail, to earn a trusted sender badge, and
 * to lock the owner out of the domain; a failing DNS lookup taken as "no record"; and a domain that
 * the peer table or DNS places on another node turned local.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { didKeyHeaders, testKey } from '../support/keys.ts';
import { assignAddress, registerByOwner, setDnsController, setPublicOrigin } from '../support/namespaces.ts';
import { requestJson, startTestNode, type TestNode } from '../support/node.ts';

const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
const WAIT = { timeout: 10_000, interval: 25 };
/** The victim node's public origin, as its tunnel configuration names it. */
const VICTIM_ORIGIN = 'https://victim-node.test';
const REAL = 'bigcorp.example';

let victim: TestNode;
let real: TestNode;
let peerUrl: string;
const attacker = testKey();
let alice: { api_key: string; did_key: string };
let mallory: { api_key: string; did_key: string };
let ceo: { api_key: string; did_key: string };

beforeAll(async () => {
  victim = await startTestNode({ publicPort: 0, outbox: FAST_OUTBOX });
  return () => victim.stop();
});
beforeAll(async () => {
  real = await startTestNode({ outbox: FAST_OUTBOX });
  return () => real.stop();
});
beforeAll(async () => {
  peerUrl = victim.node.info.public_url as string;
  await setPublicOrigin(victim, VICTIM_ORIGIN);

  await createNodeNamespace(victim, 'victim.test');
  const home = await createProject(victim, 'home', 'victim.test');
  alice = await createIdentity(victim, home.api_key, persistent('alice'));
  // The attacker is an agent with an identity on the victim node, as any local agent may be.
  const agents = await createProject(victim, 'agents');
  mallory = await createIdentity(victim, agents.api_key, { alias: 'mallory' });

  await createNodeNamespace(real, REAL);
  const corp = await createProject(real, 'corp', REAL);
  ceo = await createIdentity(real, corp.api_key, persistent('ceo'));
  expectOk(await real.owner('POST', '/v1/node/peers', { domain: 'victim.test', url: victim.url }), 201);
});

/** `POST /v1/namespaces` on the victim's peer listener, signed by `key` alone. */
function squat(domain: string, key = attacker) {
  return requestJson(peerUrl, 'POST', '/v1/namespaces', {
    body: { domain, controller_did: key.didKey },
    headers: didKeyHeaders(key, { domain, operation: 'register' }),
  });
}

const namespaceOn = (t: TestNode, domain: string) => t.request('GET', `/v1/namespaces/${domain}`);
const inbox = async (t: TestNode, key: string) => expectOk(await t.request('GET', '/v1/messages/inbox?limit=100', { token: key })).messages as any[];

describe('registering a namespace from outside', () => {
  it('is refused without DNS proof, so the squatter gets neither the namespace nor its addresses', async () => {
    expectRefusal(await squat(REAL), 403, /DNS proof/, 'SVC_ERR_NAMESPACE_DNS_PROOF_REQUIRED');
    expectRefusal(await namespaceOn(victim, REAL), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
    // The next step of the attack, binding bigcorp.example/ceo to the attacker's local identity, has nothing to bind in.
    const bind = await requestJson(peerUrl, 'POST', `/v1/namespaces/${REAL}/addresses`, {
      body: { name: 'ceo', did_key: mallory.did_key },
      headers: didKeyHeaders(attacker, { domain: REAL, name: 'ceo', operation: 'register_address' }),
    });
    expectRefusal(bind, 404);
  });

  it('is refused with 503 when the DNS lookup fails: a failure is never proof', async () => {
    const domain = 'servfail.example';
    // Were DNS up, it would name another controller: the old code registered it anyway.
    setDnsController(victim, domain, testKey().didKey, 'https://elsewhere.example');
    victim.dns.behaviour[`_svcid.${domain}`] = 'servfail';
    try {
      expectRefusal(await squat(domain), 503, /DNS/, 'SVC_ERR_NAMESPACE_DNS_UNAVAILABLE');
    } finally {
      delete victim.dns.behaviour[`_svcid.${domain}`];
    }
    expectRefusal(await namespaceOn(victim, domain), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
  });

  it('is refused when DNS names the controller but not this node', async () => {
    setDnsController(victim, 'no-node.example', attacker.didKey);
    expectRefusal(await squat('no-node.example'), 403, /names no node/, 'SVC_ERR_NAMESPACE_DNS_NODE_MISSING');
    setDnsController(victim, 'other-node.example', attacker.didKey, 'https://other-node.example');
    expectRefusal(await squat('other-node.example'), 409, /lives on the node at https:\/\/other-node\.example/, 'SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE');
    setDnsController(victim, 'other-key.example', testKey().didKey, VICTIM_ORIGIN);
    expectRefusal(await squat('other-key.example'), 403, /another controller/, 'SVC_ERR_NAMESPACE_DNS_MISMATCH');
    for (const domain of ['no-node.example', 'other-node.example', 'other-key.example']) expectRefusal(await namespaceOn(victim, domain), 404);
  });

  it('succeeds with DNS proof: the record names the controller and this node', async () => {
    const domain = 'proven.example';
    const controller = testKey();
    setDnsController(victim, domain, controller.didKey, VICTIM_ORIGIN);
    const created = expectOk(await squat(domain, controller), 201);
    expect(created).toMatchObject({ domain, controller_did: controller.didKey, authority: 'dns', verification_status: 'verified', node_controlled: false });
  });

  it('leaves the domain to its owner: a failed squat does not lock the owner out', async () => {
    const domain = 'later.example';
    expectRefusal(await squat(domain), 403);
    const owned = expectOk(await victim.owner('POST', '/v1/node/namespaces', { domain }), 201);
    expect(owned).toMatchObject({ domain, authority: 'owner', node_controlled: true });
  });
});

describe('mail for the squatted domain', () => {
  it('leaves this node for the real one, and the real node’s mail is accepted here', async () => {
    expectRefusal(await squat(REAL), 403);
    expectOk(await victim.owner('POST', '/v1/node/peers', { domain: REAL, url: real.url }), 201);

    // Alice writes to the CEO: the mail goes to the real node, not into the attacker's inbox.
    const sent = expectOk(
      await victim.request('POST', '/v1/messages', { token: alice.api_key, body: { to_address: `${REAL}/ceo`, subject: 'Q3', body: 'numbers' } }),
    );
    expect(sent.status).toBe('queued');
    await expect.poll(async () => (await inbox(real, ceo.api_key)).some((m) => m.message_id === sent.message_id), WAIT).toBe(true);
    expect((await inbox(victim, mallory.api_key)).some((m) => m.message_id === sent.message_id)).toBe(false);

    // The real node's mail is not refused as "a namespace of this node".
    const reply = expectOk(
      await real.request('POST', '/v1/messages', { token: ceo.api_key, body: { to_address: 'victim.test/alice', subject: 'Re: Q3', body: 'thanks' } }),
    );
    await expect
      .poll(async () => (await inbox(victim, alice.api_key)).find((m) => m.message_id === reply.message_id), WAIT)
      .toMatchObject({
        from_address: `${REAL}/ceo`,
        signature_status: 'verified',
        // The real node registered bigcorp.example without DNS: a valid signature, but nobody checked the domain.
        from_namespace_trust: 'unverified',
      });
  });
});

describe('the owner’s consent', () => {
  it('registers a namespace for an outside controller, which then assigns addresses with its own signatures', async () => {
    const domain = 'outside.example';
    const controller = testKey();
    const created = expectOk(await registerByOwner(victim, domain, controller.didKey), 201);
    expect(created).toMatchObject({ domain, controller_did: controller.didKey, authority: 'owner', node_controlled: false, verification_status: 'unverified' });
    expectOk(await registerByOwner(victim, domain, controller.didKey), 200);
    expectRefusal(await registerByOwner(victim, domain, testKey().didKey), 409, /another controller/, 'SVC_ERR_NAMESPACE_TAKEN');
    expectOk(await assignAddress(victim, controller, domain, { name: 'desk', did_key: alice.did_key }), 201);
    expectRefusal(
      await assignAddress(victim, attacker, domain, { name: 'evil', did_key: mallory.did_key }),
      403,
      /controller/,
      'SVC_ERR_NAMESPACE_NOT_CONTROLLER',
    );
    expectRefusal(await registerByOwner(victim, 'bad-key.example', 'did:key:zNotAKey'), 422, /did:key/, 'SVC_ERR_DID_MALFORMED');
    expectValidation(await registerByOwner(victim, 'long-key.example', `did:key:z${'1'.repeat(200)}`), 'controller_did');
  });

  it('never makes local a domain the peer table sends elsewhere, until the owner removes the peer', async () => {
    const domain = 'peered.example';
    expectOk(await victim.owner('POST', '/v1/node/peers', { domain, url: real.url }), 201);
    expectRefusal(await victim.owner('POST', '/v1/node/namespaces', { domain }), 409, /remove that peer/, 'SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE');
    expectRefusal(await registerByOwner(victim, domain, testKey().didKey), 409, /peer table/, 'SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE');
    // Not even with DNS proof.
    const controller = testKey();
    setDnsController(victim, domain, controller.didKey, VICTIM_ORIGIN);
    expectRefusal(await squat(domain, controller), 409, /peer table/, 'SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE');
    expectRefusal(await namespaceOn(victim, domain), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
    expectOk(await victim.owner('DELETE', `/v1/node/peers/${domain}`));
    expect(expectOk(await registerByOwner(victim, domain, controller.didKey), 201)).toMatchObject({ authority: 'owner', verification_status: 'verified' });
    // And the other way round: a namespace of this node cannot be sent to a peer.
    expectRefusal(await victim.owner('POST', '/v1/node/peers', { domain, url: real.url }), 409, /namespace of this node/);
  });

  it('never makes local a domain DNS places on another node', async () => {
    const domain = 'dns-elsewhere.example';
    setDnsController(victim, domain, testKey().didKey, 'https://elsewhere.example');
    expectRefusal(
      await victim.owner('POST', '/v1/node/namespaces', { domain }),
      409,
      /lives on the node at https:\/\/elsewhere\.example/,
      'SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE',
    );
    expectRefusal(await namespaceOn(victim, domain), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
  });
});

describe('the sender badge', () => {
  it('says whether the sender’s namespace is DNS-verified, owner-registered or unverified', async () => {
    const controller = testKey();
    setDnsController(victim, 'verified-sender.example', controller.didKey, VICTIM_ORIGIN);
    expectOk(await squat('verified-sender.example', controller), 201);
    const project = await createProject(victim, 'verified-senders');
    // A persistent identity with no address yet: the namespace's controller gives it one.
    const verifiedSender = await createIdentity(victim, project.api_key, persistent('vs'));
    expectOk(
      await assignAddress(victim, controller, 'verified-sender.example', { name: 'vs', did_key: verifiedSender.did_key, did_aw: verifiedSender.did_aw }),
      201,
    );

    const fromVerified = expectOk(
      await victim.request('POST', '/v1/messages', { token: verifiedSender.api_key, body: { to_address: 'victim.test/alice', subject: 's', body: 'b' } }),
    );
    const fromOwner = expectOk(await victim.request('POST', '/v1/messages', { token: alice.api_key, body: { to_alias: 'alice', subject: 's', body: 'b' } }));
    const mail = await inbox(victim, alice.api_key);
    expect(mail.find((m) => m.message_id === fromVerified.message_id)).toMatchObject({
      from_address: 'verified-sender.example/vs',
      from_namespace_trust: 'verified',
    });
    expect(mail.find((m) => m.message_id === fromOwner.message_id)).toMatchObject({ from_address: 'victim.test/alice', from_namespace_trust: 'owner' });
  });

  it('calls a sender on another node verified only when its node says so and DNS here agrees', async () => {
    const domain = 'verified-corp.example';
    const controller = testKey();
    // DNS, as both nodes see it, names the controller of verified-corp.example.
    setDnsController(real, domain, controller.didKey);
    setDnsController(victim, domain, controller.didKey);
    expect(expectOk(await registerByOwner(real, domain, controller.didKey), 201).verification_status).toBe('verified');
    const project = await createProject(real, 'verified-corp');
    const cfo = await createIdentity(real, project.api_key, persistent('cfo'));
    expectOk(await assignAddress(real, controller, domain, { name: 'cfo', did_key: cfo.did_key, did_aw: cfo.did_aw }), 201);
    expectOk(await victim.owner('POST', '/v1/node/peers', { domain, url: real.url }), 201);

    const mailed = expectOk(
      await real.request('POST', '/v1/messages', { token: cfo.api_key, body: { to_address: 'victim.test/alice', subject: 'v', body: 'b' } }),
    );
    await expect
      .poll(async () => (await inbox(victim, alice.api_key)).find((m) => m.message_id === mailed.message_id), WAIT)
      .toMatchObject({
        from_address: `${domain}/cfo`,
        from_namespace_trust: 'verified',
      });
    const chatted = expectOk(
      await real.request('POST', '/v1/chat/sessions', { token: cfo.api_key, body: { to_addresses: ['victim.test/alice'], message: 'hi' } }),
    );
    await expect
      .poll(async () => {
        const sessions = expectOk(await victim.request('GET', '/v1/chat/sessions', { token: alice.api_key })).sessions as any[];
        const session = sessions.find((one) => one.participant_addresses.includes(`${domain}/cfo`));
        if (!session) return undefined;
        const messages = expectOk(await victim.request('GET', `/v1/chat/sessions/${session.session_id}/messages`, { token: alice.api_key })).messages as any[];
        return messages.find((m) => m.message_id === chatted.message_id);
      }, WAIT)
      .toMatchObject({ from_address: `${domain}/cfo`, from_namespace_trust: 'verified' });
  });
});
