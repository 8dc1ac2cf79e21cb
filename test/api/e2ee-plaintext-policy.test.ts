/**
 * The recipient's side of "no downgrade" (messaging/plaintext-policy.ts), over real HTTP and a real
 * encrypted database: an identity accepts plaintext mail by default, so older clients keep reaching
 * it; the identity itself (PATCH /v1/agents/me) or the owner (PATCH /v1/node/identities/{id}) turns
 * that off, and then plaintext to it, asked for by name or signed by a client that does not
 * encrypt, is refused with nothing stored. Encrypted mail still arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedIdentity, Settings } from '../../contract/core/identities.ts';
import { IdentityList, NodeIdentity } from '../../contract/node/identities.ts';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { createSelfCustodial } from '../support/self-custodial.ts';
import { signedFields, type Envelope, type SelfKey } from '../support/self-signer.ts';

const DOMAIN = 'plaintext.test';
let t: TestNode;
let stored: Awaited<ReturnType<typeof openNodeDatabase>>;
let project: Project;
/** Custodial: the node holds its keys. */
let ann: any;
let bob: any;
/** Self-custodial, publishing no encryption key: plaintext is the only way to reach it. */
let sam: CreatedIdentity;
let samKey: SelfKey;

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  project = await createProject(t, 'plaintext', DOMAIN);
  ann = await createIdentity(t, project.api_key, persistent('ann'));
  bob = await createIdentity(t, project.api_key, persistent('bob'));
  ({ identity: sam, key: samKey } = await createSelfCustodial(t, project.api_key, 'sam'));
  stored = await openNodeDatabase(t.dataDir);
});
afterAll(async () => {
  stored.close();
  await t.stop();
});

const send = (token: string, body: unknown) => t.request('POST', '/v1/messages', { token, body });
const mailCount = () => stored.db.prepare('SELECT count(*) FROM messages').pluck().get() as number;
const plaintextToSam = (body: string) => send(ann.api_key, { to_address: `${DOMAIN}/sam`, body, content_mode: 'legacy_plaintext_v1' });
const setOwn = async (token: string, accepts: boolean) =>
  Settings.parse(expectOk(await t.request('PATCH', '/v1/agents/me', { token, body: { accepts_plaintext: accepts } })));
const setByOwner = async (agentId: string, accepts: boolean) =>
  NodeIdentity.parse(expectOk(await t.owner('PATCH', `/v1/node/identities/${agentId}`, { accepts_plaintext: accepts })));
const listed = async (agentId: string) =>
  IdentityList.parse(expectOk(await t.owner('GET', '/v1/node/identities'))).identities.find((i) => i.agent_id === agentId);

/** Sam's client sends bob plaintext it signed itself (it does not encrypt). */
function samSigned(body: string) {
  const envelope: Envelope = {
    type: 'mail',
    from: `${DOMAIN}/sam`,
    to: 'bob',
    to_did: bob.did_key,
    to_stable_id: bob.did_aw,
    from_stable_id: samKey.didSvc,
    subject: '',
    body,
  };
  return send(sam.api_key, { to_alias: 'bob', subject: '', body, ...signedFields(samKey, envelope) });
}

describe('an identity accepting plaintext', () => {
  it('accepts it by default, and says so wherever its settings are shown', async () => {
    expect(sam.accepts_plaintext).toBe(true);
    expect((await listed(sam.agent_id))?.accepts_plaintext).toBe(true);
    expect(expectOk(await t.request('GET', '/v1/auth/introspect', { token: sam.api_key }))).toMatchObject({ accepts_plaintext: true });
    const sent = expectOk(await plaintextToSam('by default'));
    expect(expectOk(await t.request('GET', `/v1/messages/inbox?message_id=${sent.message_id}`, { token: sam.api_key })).messages[0]).toMatchObject({
      end_to_end: false,
      body: 'by default',
    });
    expect(expectOk(await samSigned('signed plaintext'))).toMatchObject({ status: 'delivered' });
  });

  it('takes only a boolean', async () => {
    expectValidation(await t.request('PATCH', '/v1/agents/me', { token: sam.api_key, body: { accepts_plaintext: 'no' } }), 'accepts_plaintext');
    expectValidation(await t.owner('PATCH', `/v1/node/identities/${sam.agent_id}`, { accepts_plaintext: 0 }), 'accepts_plaintext');
    expectValidation(await t.owner('PATCH', `/v1/node/identities/${sam.agent_id}`, { address_reachability: 'public' }), 'address_reachability');
  });
});

describe('an identity refusing plaintext', () => {
  it('is turned off by the identity itself: plaintext asked for by name is refused and nothing is stored', async () => {
    expect(await setOwn(sam.api_key, false)).toMatchObject({ agent_id: sam.agent_id, accepts_plaintext: false });
    expect((await listed(sam.agent_id))?.accepts_plaintext).toBe(false);
    const before = mailCount();
    expectRefusal(await plaintextToSam('refused'), 409, /only end-to-end encrypted/, 'SVC_ERR_E2EE_PLAINTEXT_REFUSED');
    expect(mailCount()).toBe(before);
    // Without naming plaintext the send is refused as before: sam publishes no key.
    expectRefusal(await send(ann.api_key, { to_address: `${DOMAIN}/sam`, body: 'x' }), 409, undefined, 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING');
    // Its own setting back on: accepted again.
    expect(await setOwn(sam.api_key, true)).toMatchObject({ accepts_plaintext: true });
    expectOk(await plaintextToSam('accepted again'));
  });

  it('is turned off by the owner: a client-signed plaintext mail is refused, encrypted mail still arrives', async () => {
    expect(await setByOwner(bob.agent_id, false)).toMatchObject({ agent_id: bob.agent_id, accepts_plaintext: false, encryption_key: { state: 'published' } });
    const before = mailCount();
    expectRefusal(await samSigned('old client'), 409, /plaintext/, 'SVC_ERR_E2EE_PLAINTEXT_REFUSED');
    expect(mailCount()).toBe(before);
    const sealed = expectOk(await send(ann.api_key, { to_address: `${DOMAIN}/bob`, body: 'sealed' }));
    expect(expectOk(await t.request('GET', `/v1/messages/inbox?message_id=${sealed.message_id}`, { token: bob.api_key })).messages[0]).toMatchObject({
      end_to_end: true,
      body: 'sealed',
    });
    // The identity's own settings say what the owner set; the owner turns it back on.
    expect(expectOk(await t.request('GET', '/v1/auth/introspect', { token: bob.api_key }))).toMatchObject({ accepts_plaintext: false });
    expect(await setByOwner(bob.agent_id, true)).toMatchObject({ accepts_plaintext: true });
    expect(expectOk(await samSigned('old client again'))).toMatchObject({ status: 'delivered' });
  });

  it('is the owner’s to set only for identities of the node', async () => {
    expectRefusal(
      await t.owner('PATCH', '/v1/node/identities/6b1d9c2e-8a41-4f6e-9d0b-2f3c4a5b6c7d', { accepts_plaintext: false }),
      404,
      undefined,
      'SVC_ERR_IDENTITY_NOT_FOUND',
    );
  });
});
