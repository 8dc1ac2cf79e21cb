/**
 * Self-custodial identities and client-signed mail and chat (docs/adr/0004-custody-model.md): the
 * client keeps the key, registers and rotates its did:svc itself, and
 * signs its own messages; the node verifies, refuses what fails, and holds no key for it. The
 * client here is test/support/self-signer.ts (node:crypto and its own canonical JSON).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedIdentity, Introspection, Replaced } from '../../contract/core/identities.ts';
import { MailMessage, SendMailResult } from '../../contract/core/mail.ts';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, init, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { genesisEntry, nowSeconds, rotationEntry, selfKey, signedFields, type Envelope, type SelfKey, type SignedLogEntry } from '../support/self-signer.ts';

const DOMAIN = 'selfcustody.example';

let t: TestNode;
let project: Project;
let bob: CreatedIdentity;
/** The self-custodial identity, its current key and log head. */
let sally: CreatedIdentity;
let key: SelfKey;
let head: SignedLogEntry;
/** Keys of self-custodial successors (and the lost key they replaced): the node must hold none. */
const selfSuccessorKeys: string[] = [];

const register = (entry: SignedLogEntry) => t.request('POST', '/v1/did', { body: { ...entry.payload, proof: entry.signature } });
const sendMail = (token: string, body: unknown) => t.request('POST', '/v1/messages', { token, body });
const inbox = async (token: string): Promise<MailMessage[]> => expectOk(await t.request('GET', '/v1/messages/inbox?limit=200', { token })).messages;

/** A mail from sally to bob as the envelope signs it. */
const mailTo = (overrides: Partial<Envelope> = {}): Envelope => ({
  type: 'mail',
  from: `${DOMAIN}/sally`,
  to: 'bob',
  to_did: bob.did_key,
  to_stable_id: bob.did_aw,
  from_stable_id: key.didSvc,
  subject: 'hello',
  body: 'signed by the client',
  ...overrides,
});
const mailBody = (envelope: Envelope, signed: Record<string, string>) => ({ to_alias: 'bob', subject: envelope.subject, body: envelope.body, ...signed });

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  project = await createProject(t, 'selfcustody', DOMAIN);
  bob = await createIdentity(t, project.api_key, persistent('bob'));
  key = selfKey();
  head = genesisEntry(key);
});
let stopped_ = false;
afterAll(async () => {
  if (!stopped_) await t.stop();
});

describe('POST /v1/workspaces/init with custody "self"', () => {
  const selfInit = (extra: Record<string, unknown> = {}) =>
    init(t, project.api_key, persistent('sally', { custody: 'self', did: key.didKey, public_key: key.publicKey.toString('base64'), ...extra }));

  it('needs did and public_key, the same key, and a did:svc the client registered itself', async () => {
    expectValidation(await init(t, project.api_key, persistent('sally', { custody: 'self' })), 'custody');
    expectValidation(await init(t, project.api_key, persistent('sally', { did: key.didKey, public_key: key.publicKey.toString('base64') })), 'custody');
    expectRefusal(await selfInit({ public_key: selfKey().publicKey.toString('base64') }), 422, /public_key/, 'SVC_ERR_PUBLIC_KEY_MISMATCH');
    expectRefusal(await selfInit(), 409, /POST \/v1\/did/, 'SVC_ERR_DID_UNREGISTERED');
  });

  it('creates the identity once its did:svc is registered; the node signs nothing for it', async () => {
    expect(expectOk(await register(head))).toEqual({ registered: true, did_aw: key.didSvc, current_did_key: key.didKey });
    sally = CreatedIdentity.parse(expectOk(await selfInit({ public_key: key.publicKey.toString('base64url') }), 201));
    expect(sally).toMatchObject({
      custody: 'self',
      did: key.didKey,
      did_key: key.didKey,
      stable_id: key.didSvc,
      address: `${DOMAIN}/sally`,
      lifetime: 'persistent',
    });
    const me = Introspection.parse(expectOk(await t.request('GET', '/v1/auth/introspect', { token: sally.api_key })));
    expect(me).toMatchObject({ key_type: 'identity', custody: 'self', did_key: key.didKey });
    // The same key twice is one identity.
    expectRefusal(
      await init(t, project.api_key, { custody: 'self', did: key.didKey, public_key: key.publicKey.toString('base64') }),
      409,
      undefined,
      'SVC_ERR_IDENTITY_EXISTS',
    );
    // Nothing the node would sign as it exists: its own rotation, a key backup, an unsigned send.
    expectRefusal(await t.request('PUT', '/v1/agents/me/rotate', { token: sally.api_key }), 409, /PUT \/v1\/did\//, 'SVC_ERR_IDENTITY_SELF_CUSTODIAL');
    expectRefusal(await sendMail(sally.api_key, { to_alias: 'bob', body: 'unsigned' }), 422, /self-custodial/, 'SVC_ERR_SIGNATURE_REQUIRED');
    expectRefusal(
      await t.request('POST', '/v1/chat/sessions', { token: sally.api_key, body: { to_aliases: ['bob'], message: 'unsigned' } }),
      422,
      /self-custodial/,
      'SVC_ERR_SIGNATURE_REQUIRED',
    );
  });
});

describe('client-signed mail', () => {
  it('arrives verified, stored exactly as signed', async () => {
    const envelope = mailTo();
    const signed = signedFields(key, envelope);
    const sent = SendMailResult.parse(expectOk(await sendMail(sally.api_key, mailBody(envelope, signed))));
    expect(sent.message_id).toBe(signed.message_id);
    const item = MailMessage.parse((await inbox(bob.api_key)).find((m) => m.message_id === signed.message_id));
    expect(item).toMatchObject({
      from_did: key.didKey,
      signature: signed.signature,
      signed_payload: signed.signed_payload,
      signature_status: 'verified',
      signing_key_id: key.didKey,
      body: envelope.body,
    });
    expect(Date.parse(item.created_at)).toBe(Date.parse(signed.timestamp as string));
  });

  it('refuses a bad signature, a stale timestamp, a mismatched signing_key_id and a payload that says otherwise', async () => {
    const envelope = mailTo();
    expectRefusal(
      await sendMail(sally.api_key, mailBody(envelope, signedFields(key, envelope, { signer: selfKey() }))),
      401,
      /does not verify/,
      'SVC_ERR_MESSAGE_SIGNATURE_INVALID',
    );
    expectRefusal(
      await sendMail(sally.api_key, mailBody(envelope, signedFields(key, envelope, { at: nowSeconds(-600) }))),
      401,
      /window/,
      'SVC_ERR_MESSAGE_TIMESTAMP_STALE',
    );
    expectRefusal(
      await sendMail(sally.api_key, mailBody(envelope, signedFields(key, envelope, { signingKeyId: bob.did_key }))),
      422,
      /signing_key_id/,
      'SVC_ERR_SIGNING_KEY_MISMATCH',
    );
    expectRefusal(
      await sendMail(sally.api_key, { ...mailBody(envelope, signedFields(key, envelope)), body: 'tampered' }),
      422,
      /body must match/,
      'SVC_ERR_SIGNED_PAYLOAD_MISMATCH',
    );
    expectRefusal(
      await sendMail(sally.api_key, mailBody(mailTo({ to: 'carol' }), signedFields(key, mailTo({ to: 'carol' })))),
      422,
      /recipient must match/,
      'SVC_ERR_SIGNED_PAYLOAD_MISMATCH',
    );
    // Another key than the sender's current one, even one that signed correctly.
    const stranger = selfKey();
    expectRefusal(await sendMail(sally.api_key, mailBody(envelope, signedFields(stranger, envelope))), 422, /from_did/, 'SVC_ERR_SIGNER_MISMATCH');
    // A custodial identity's client may sign too, with its own key only.
    expectRefusal(
      await sendMail(bob.api_key, { to_alias: 'sally', body: 'x', ...signedFields(stranger, { type: 'mail', from: 'bob', to: 'sally', body: 'x' }) }),
      422,
      /from_did/,
      'SVC_ERR_SIGNER_MISMATCH',
    );
    // The signing fields go together (upstream's 422s).
    const { signature: _signature, ...unsigned } = signedFields(key, envelope);
    expectValidation(await sendMail(sally.api_key, mailBody(envelope, unsigned)), 'signed_payload');
    const { message_id: _id, ...noId } = signedFields(key, envelope);
    expectValidation(await sendMail(sally.api_key, mailBody(envelope, noId)), 'message_id');
  });

  it('takes a replayed signature once: the identical send answers as the first, the id under other content is a 409, another sender cannot use it', async () => {
    const envelope = mailTo({ body: 'once only' });
    const signed = signedFields(key, envelope);
    const first = expectOk(await sendMail(sally.api_key, mailBody(envelope, signed)));
    expect(expectOk(await sendMail(sally.api_key, mailBody(envelope, signed)))).toEqual(first);
    expect((await inbox(bob.api_key)).filter((m) => m.message_id === signed.message_id)).toHaveLength(1);
    const other = mailTo({ body: 'other content' });
    expectRefusal(
      await sendMail(sally.api_key, mailBody(other, signedFields(key, other, { messageId: signed.message_id }))),
      409,
      undefined,
      'SVC_ERR_MESSAGE_ID_REUSED',
    );
    expectRefusal(
      await sendMail(bob.api_key, { to_alias: 'sally', body: envelope.body, subject: envelope.subject, ...signed }),
      422,
      /from_did/,
      'SVC_ERR_SIGNER_MISMATCH',
    );
  });
});

describe('client-signed chat', () => {
  it('starts a chat and answers in it, verified; refuses what fails', async () => {
    const first: Envelope = { type: 'chat', from: `${DOMAIN}/sally`, to: 'bob', to_did: bob.did_key, body: 'hi bob', wait_seconds: 0 };
    const signed = signedFields(key, first);
    const started = expectOk(
      await t.request('POST', '/v1/chat/sessions', { token: sally.api_key, body: { to_aliases: ['bob'], message: first.body, wait_seconds: 0, ...signed } }),
    );
    expect(started.message_id).toBe(signed.message_id);
    // The identical request again is the same send.
    expect(
      expectOk(
        await t.request('POST', '/v1/chat/sessions', { token: sally.api_key, body: { to_aliases: ['bob'], message: first.body, wait_seconds: 0, ...signed } }),
      ),
    ).toEqual(started);

    const next: Envelope = { type: 'chat', from: `${DOMAIN}/sally`, to: `${DOMAIN}/bob`, to_did: bob.did_key, body: 'still there?', hang_on: true };
    const again = signedFields(key, next);
    const path = `/v1/chat/sessions/${started.session_id}/messages`;
    expectRefusal(
      await t.request('POST', path, { token: sally.api_key, body: { body: next.body, hang_on: false, ...again } }),
      422,
      /hang_on must match/,
      'SVC_ERR_SIGNED_PAYLOAD_MISMATCH',
    );
    expectRefusal(
      await t.request('POST', path, { token: sally.api_key, body: { body: next.body, hang_on: true, ...signedFields(key, next, { signer: selfKey() }) } }),
      401,
      undefined,
      'SVC_ERR_MESSAGE_SIGNATURE_INVALID',
    );
    expectRefusal(
      await t.request('POST', path, { token: sally.api_key, body: { body: next.body, hang_on: true, ...signedFields(key, next, { at: nowSeconds(400) }) } }),
      401,
      undefined,
      'SVC_ERR_MESSAGE_TIMESTAMP_STALE',
    );
    expectRefusal(
      await t.request('POST', path, {
        token: sally.api_key,
        body: { body: next.body, hang_on: true, ...signedFields(key, next, { signingKeyId: selfKey().didKey }) },
      }),
      422,
      undefined,
      'SVC_ERR_SIGNING_KEY_MISMATCH',
    );
    expectRefusal(await t.request('POST', path, { token: sally.api_key, body: { body: 'unsigned' } }), 422, undefined, 'SVC_ERR_SIGNATURE_REQUIRED');
    expectOk(await t.request('POST', path, { token: sally.api_key, body: { body: next.body, hang_on: true, ...again } }));

    const history = expectOk(await t.request('GET', path, { token: bob.api_key })).messages as Record<string, unknown>[];
    const ours = history.filter((m) => m.message_id === signed.message_id || m.message_id === again.message_id);
    expect(ours).toHaveLength(2);
    for (const m of ours) expect(m).toMatchObject({ from_did: key.didKey, signature_status: 'verified' });
    expect(ours.map((m) => m.signed_payload)).toEqual([signed.signed_payload, again.signed_payload]);
  });
});

describe('its did:svc log', () => {
  it('rotates by PUT /v1/did; the identity follows the new key and the old one no longer sends', async () => {
    const next = selfKey();
    const rotation = rotationEntry(key, key.didSvc, head, next);
    const { did_aw: _didAw, ...body } = rotation.payload;
    expectOk(await t.request('PUT', `/v1/did/${key.didSvc}`, { body: { ...body, signature: rotation.signature } }));
    const me = expectOk(await t.request('GET', '/v1/auth/introspect', { token: sally.api_key }));
    expect(me).toMatchObject({ custody: 'self', did_key: next.didKey, did_aw: key.didSvc });

    const envelope = mailTo({ body: 'from the old key' });
    expectRefusal(await sendMail(sally.api_key, mailBody(envelope, signedFields(key, envelope))), 422, /from_did/, 'SVC_ERR_SIGNER_MISMATCH');
    const fresh = mailTo({ body: 'from the new key' });
    const signed = signedFields(next, fresh);
    expectOk(await sendMail(sally.api_key, mailBody(fresh, signed)));
    expect((await inbox(bob.api_key)).find((m) => m.message_id === signed.message_id)).toMatchObject({ from_did: next.didKey, signature_status: 'verified' });
    key = next;
    head = rotation;
  });

  it('an ephemeral self-custodial identity needs no did:svc', async () => {
    const other = selfKey();
    const eph = expectOk(
      await init(t, project.api_key, { alias: 'eph', custody: 'self', did: other.didKey, public_key: other.publicKey.toString('base64') }),
      201,
    );
    expect(eph).toMatchObject({ custody: 'self', did_key: other.didKey, stable_id: null, lifetime: 'ephemeral' });
    expectOk(await t.request('DELETE', '/v1/agents/me', { token: eph.api_key }));
  });
});

describe('replacing a self-custodial identity (a lost key)', () => {
  const replace = (agentId: string, body?: Record<string, unknown>) =>
    t.request('POST', `/api/v1/agents/${agentId}/replace`, { token: t.node.ownerToken, ...(body ? { body } : {}) });
  const selfInit = (name: string, k: SelfKey) =>
    init(t, project.api_key, persistent(name, { custody: 'self', did: k.didKey, public_key: k.publicKey.toString('base64') }));

  it('must say who holds the successor\'s key; "self" takes the key the client brings, and the node still holds none', async () => {
    const lost = selfKey();
    expectOk(await register(genesisEntry(lost)));
    const sam = CreatedIdentity.parse(expectOk(await selfInit('sam', lost), 201));
    expectRefusal(await replace(sam.agent_id), 422, /custody "self".*custodial/, 'SVC_ERR_REPLACEMENT_CUSTODY_REQUIRED');
    expectValidation(await replace(sam.agent_id, { custody: 'self' }), 'custody');
    expectValidation(await replace(sam.agent_id, { custody: 'custodial', did: lost.didKey, public_key: lost.publicKey.toString('base64') }), 'custody');
    const fresh = selfKey();
    const freshBody = { custody: 'self', did: fresh.didKey, public_key: fresh.publicKey.toString('base64') };
    expectRefusal(await replace(sam.agent_id, freshBody), 409, /POST \/v1\/did/, 'SVC_ERR_DID_UNREGISTERED');
    expectRefusal(
      await replace(sam.agent_id, { ...freshBody, public_key: lost.publicKey.toString('base64') }),
      422,
      /public_key/,
      'SVC_ERR_PUBLIC_KEY_MISMATCH',
    );
    // Refusals changed nothing.
    expect(expectOk(await t.request('GET', '/v1/auth/introspect', { token: sam.api_key }))).toMatchObject({ status: 'active', did_key: lost.didKey });

    expectOk(await register(genesisEntry(fresh)));
    const successor = Replaced.parse(expectOk(await replace(sam.agent_id, freshBody)));
    expect(successor).toMatchObject({ old_agent_id: sam.agent_id, custody: 'self', did_key: fresh.didKey, did_aw: fresh.didSvc, address: `${DOMAIN}/sam` });
    expect(successor.replacement_announcements).toMatchObject([{ address: `${DOMAIN}/sam`, old_did: lost.didKey, new_did: fresh.didKey }]);
    expectRefusal(await t.request('GET', '/v1/auth/introspect', { token: sam.api_key }), 401);

    // The successor signs for itself at the old address; the node signs nothing as it.
    const envelope: Envelope = { type: 'mail', from: `${DOMAIN}/sam`, to: 'bob', to_did: bob.did_key, subject: 'new key', body: 'sam again' };
    const signed = signedFields(fresh, envelope);
    expectOk(await sendMail(successor.api_key, mailBody(envelope, signed)));
    expect((await inbox(bob.api_key)).find((m) => m.message_id === signed.message_id)).toMatchObject({
      from_did: fresh.didKey,
      from_address: `${DOMAIN}/sam`,
      signature_status: 'verified',
    });
    expectRefusal(await sendMail(successor.api_key, { to_alias: 'bob', body: 'unsigned' }), 422, /self-custodial/, 'SVC_ERR_SIGNATURE_REQUIRED');
    selfSuccessorKeys.push(fresh.didKey, lost.didKey);

    // Or the owner gives custody to the node, explicitly: a custodial successor the node signs for.
    const custodial = Replaced.parse(expectOk(await replace(successor.agent_id, { custody: 'custodial' })));
    expect(custodial).toMatchObject({ custody: 'custodial', address: `${DOMAIN}/sam` });
    expect(custodial.did_key).not.toBe(fresh.didKey);
    expectOk(await sendMail(custodial.api_key, { to_alias: 'bob', body: 'the node signs for me now' }));
  });

  it("a custodial identity's successor is custodial by default, or self-custodial when the body brings a key", async () => {
    const cal = await createIdentity(t, project.api_key, persistent('cal'));
    const next = selfKey();
    expectOk(await register(genesisEntry(next)));
    const successor = Replaced.parse(
      expectOk(await replace(cal.agent_id, { custody: 'self', did: next.didKey, public_key: next.publicKey.toString('base64url') })),
    );
    expect(successor).toMatchObject({ custody: 'self', did_key: next.didKey, did_aw: next.didSvc, address: `${DOMAIN}/cal` });
    selfSuccessorKeys.push(next.didKey);
  });
});

describe('custody', () => {
  it('holds no key for a self-custodial identity', async () => {
    const keys = [key.didKey, head.payload.previous_did_key as string, ...selfSuccessorKeys];
    const stopped = t;
    await stopped.stop({ keepData: true });
    const { db, close } = await openNodeDatabase(stopped.dataDir);
    try {
      const held = db
        .prepare(`SELECT COUNT(*) FROM custody_keys WHERE did_key IN (${keys.map(() => '?').join(', ')})`)
        .pluck()
        .get(...keys);
      expect(held).toBe(0);
      expect(db.prepare(`SELECT custody, key_id FROM agents WHERE agent_id = ?`).get(sally.agent_id)).toEqual({ custody: 'self', key_id: '' });
      // A custodial identity's key is there (the table is the right one to ask).
      expect(db.prepare(`SELECT COUNT(*) FROM custody_keys WHERE did_key = ?`).pluck().get(bob.did_key)).toBe(1);
    } finally {
      close();
      stopped.removeData();
      stopped_ = true;
    }
  });
});
