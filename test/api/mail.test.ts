/**
 * Mail (spec §4.4; bodies as upstream's, docs/adr/0001-upstream-wire-primitives.md): sending to one
 * or several recipients by alias, address or did, each message sealed end to end in custody
 * (docs/adr/0008-end-to-end-mail.md) and signed with the sender's did:key, which a check written
 * without the node's code verifies; reachability (contacts-only); the inbox and acknowledgement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyMessageSignature } from '../../server/crypto/message-signing.ts';
import { independentSignatureVerifies, type Obj } from '../support/e2ee-independent.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { openNodeDatabase } from '../support/database.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
/** The node's database, opened beside it: what is stored is checked there. */
let stored: Awaited<ReturnType<typeof openNodeDatabase>>;
const DOMAIN = 'mail.test';
const OTHER = 'other.test';
let alpha: Project; // owns DOMAIN
let beta: Project; // owns OTHER
let ann: any; // alpha, persistent: mail.test/ann
let bo: any; // alpha, ephemeral
let cy: any; // alpha, persistent: mail.test/cy
let outsider: any; // beta, persistent: other.test/outsider

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  await createNodeNamespace(t, OTHER);
  alpha = await createProject(t, 'mail-alpha', DOMAIN);
  beta = await createProject(t, 'mail-beta', OTHER);
  ann = await createIdentity(t, alpha.api_key, persistent('ann'));
  bo = await createIdentity(t, alpha.api_key, { alias: 'bo' });
  cy = await createIdentity(t, alpha.api_key, persistent('cy'));
  outsider = await createIdentity(t, beta.api_key, persistent('outsider'));
  stored = await openNodeDatabase(t.dataDir);
});
afterAll(async () => {
  stored.close();
  await t.stop();
});

const send = (token: string | undefined, body: unknown) => t.request('POST', '/v1/messages', { ...(token ? { token } : {}), body });
const inbox = (token: string, query = '') => t.request('GET', `/v1/messages/inbox${query}`, { token });
const ack = (token: string, messageId: string) => t.request('POST', `/v1/messages/${messageId}/ack`, { token });
/** The envelope as the node stored it, and what else the row holds beside it. */
const storedRow = (messageId: string) =>
  stored.db.prepare('SELECT subject, body, signature, signed_payload, content_mode, encrypted_envelope FROM messages WHERE message_id = ?').get(messageId) as {
    subject: string;
    signature: string;
    body: string;
    signed_payload: string;
    content_mode: string;
    encrypted_envelope: string;
  };
const storedEnvelope = (messageId: string): Obj => JSON.parse(storedRow(messageId).encrypted_envelope) as Obj;
const inboxIds = async (token: string, query = ''): Promise<string[]> => expectOk(await inbox(token, query)).messages.map((m: any) => m.message_id);

describe('POST /v1/messages', () => {
  it("delivers a mail sealed in custody: the recipient reads it, the row keeps only the envelope, signed by the sender's did:key", async () => {
    const sent = expectOk(await send(ann.api_key, { to_alias: 'bo', subject: 'Status', body: 'The build is green.', priority: 'high' }));
    expect(sent).toEqual({
      message_id: expect.stringMatching(UUID),
      status: 'delivered',
      delivered_at: expect.stringMatching(SECONDS),
      messages: [{ message_id: sent.message_id, to: 'bo', to_alias: 'bo', to_address: null, to_did: bo.did_key, to_stable_id: null, status: 'delivered' }],
    });

    const [item] = expectOk(await inbox(bo.api_key, `?message_id=${sent.message_id}`)).messages;
    expect(item).toEqual({
      message_id: sent.message_id,
      from_agent_id: ann.agent_id,
      from_alias: 'ann',
      from_address: `${DOMAIN}/ann`,
      from_did: ann.did_key,
      from_stable_id: ann.did_aw,
      to_alias: 'bo',
      to_address: null,
      to_did: bo.did_key,
      to_stable_id: null,
      // The node holds bo's keys: it is bo's client, and opened the mail for bo.
      subject: 'Status',
      body: 'The build is green.',
      end_to_end: true,
      content_mode: 'server_readable_hosted',
      message_version: 2,
      priority: 'high',
      read_at: null,
      // Ours: in the inbox, not archived.
      archived_at: null,
      created_at: sent.delivered_at,
      // The node sealed it, and signed what it sealed as a plaintext message for the parties it reads
      // for: their clients verify it as any mail (the envelope has a signature of its own).
      signature: expect.any(String),
      signed_payload: expect.any(String),
      signature_status: 'verified',
      // The sender's namespace was made by the owner (createNodeNamespace) and DNS does not name it.
      from_namespace_trust: 'owner',
      origin: 'local',
      from_node: null,
      is_contact: false,
      // Upstream's fields, which its clients read: the signing key, no thread (so the mail starts a
      // conversation of its own), no announcements for a key never rotated.
      signing_key_id: ann.did_key,
      thread_id: null,
      conversation_id: sent.message_id,
      rotation_announcement: null,
      replacement_announcement: null,
    });

    // What is stored: the envelope, empty subject and body, no plaintext anywhere in the row.
    const row = storedRow(sent.message_id);
    expect(row).toMatchObject({ subject: '', body: '', signed_payload: '', content_mode: 'encrypted_v2' });
    expect(row.signature).not.toBe(item.signature);
    expect(row.encrypted_envelope).not.toMatch(/Status|green/);
    const envelope = storedEnvelope(sent.message_id);
    expect(envelope).toMatchObject({
      kind: 'mail',
      message_id: sent.message_id,
      conversation_id: sent.message_id,
      from: { address: `${DOMAIN}/ann`, did: ann.did_key, stable_id: ann.did_aw },
      recipients: [{ did: bo.did_key }],
      policy: { requires_e2ee: true, legacy_plaintext_allowed: false },
      signing_key_id: ann.did_key,
    });
    expect(JSON.parse(item.signed_payload)).toEqual({
      type: 'mail',
      from: `${DOMAIN}/ann`,
      from_did: ann.did_key,
      from_stable_id: ann.did_aw,
      to: 'bo',
      to_did: bo.did_key,
      message_id: sent.message_id,
      timestamp: sent.delivered_at,
      subject: 'Status',
      body: 'The build is green.',
      priority: 'high',
    });
    expect(verifyMessageSignature(item)).toBe('verified');
    expect(verifyMessageSignature({ ...item, signed_payload: item.signed_payload.replace('green', 'red!!') })).toBe('failed');
    // The signature verifies, with a check that is not the node's, under the sender's key as the registry has it.
    expect(independentSignatureVerifies(envelope)).toBe(true);
    expect(expectOk(await t.request('GET', `/v1/did/${ann.did_aw}/key`)).current_did_key).toBe(item.from_did);
    // Any change to the signed envelope, or another sender, fails.
    expect(independentSignatureVerifies({ ...envelope, conversation_id: 'another' })).toBe(false);
    expect(independentSignatureVerifies({ ...envelope, from: { ...(envelope.from as Obj), did: cy.did_key } })).toBe(false);
    // The sender reads its own copy in Sent; its own inbox does not have it.
    expect(expectOk(await t.request('GET', `/v1/messages/sent/${sent.message_id}`, { token: ann.api_key }))).toMatchObject({
      subject: 'Status',
      body: 'The build is green.',
      end_to_end: true,
    });
    expect(await inboxIds(ann.api_key)).not.toContain(sent.message_id);
  });

  it('reaches a recipient by address, by did:key and by did:svc, sealing to the identity it names', async () => {
    for (const [body, to] of [
      [{ to_address: `${DOMAIN}/cy` }, `${DOMAIN}/cy`],
      [{ to_did: cy.did_key }, cy.did_key],
      [{ to_did: cy.did_aw }, cy.did_aw],
    ] as const) {
      const sent = expectOk(await send(bo.api_key, { ...body, body: `to ${to}` }));
      expect(sent.messages).toEqual([
        { message_id: sent.message_id, to, to_alias: 'cy', to_address: `${DOMAIN}/cy`, to_did: cy.did_key, to_stable_id: cy.did_aw, status: 'delivered' },
      ]);
      const [item] = expectOk(await inbox(cy.api_key, `?message_id=${sent.message_id}`)).messages;
      // A sender without an address is named by its alias, as upstream (an address has a "/").
      expect(item).toMatchObject({ from_alias: 'bo', from_address: 'bo', from_stable_id: null, priority: 'normal', subject: '', body: `to ${to}` });
      const envelope = storedEnvelope(sent.message_id);
      expect(envelope.recipients).toEqual([
        { address: `${DOMAIN}/cy`, did: cy.did_key, stable_id: cy.did_aw, encryption_key_id: expect.any(String), wrap_id: expect.any(String) },
      ]);
      // A sender without an address carries its key assertion, so a reply can find its key.
      expect(envelope.from).toEqual({ did: bo.did_key, encryption_key_id: expect.any(String) });
      expect(envelope.sender_encryption_key).toMatchObject({ identity_did: bo.did_key });
      expect(independentSignatureVerifies(envelope)).toBe(true);
      expect(item.signature_status).toBe('verified');
    }
    // An address reaches across projects; the response does not reveal the other project's alias.
    const sent = expectOk(await send(ann.api_key, { to_address: `${OTHER}/outsider`, body: 'hello from alpha' }));
    expect(sent.messages[0]).toMatchObject({ to: `${OTHER}/outsider`, to_alias: null, to_address: `${OTHER}/outsider` });
    expect(await inboxIds(outsider.api_key)).toContain(sent.message_id);
  });

  it('sends one sealed message per recipient and lists every delivery', async () => {
    const dee = await createIdentity(t, alpha.api_key, { alias: 'dee' });
    const sent = expectOk(
      await send(ann.api_key, {
        to_alias: 'bo',
        to_aliases: ['dee'],
        to_addresses: [`${DOMAIN}/cy`],
        to_dids: [outsider.did_aw],
        subject: 'All hands',
        body: 'Meeting at noon.',
        priority: 'urgent',
      }),
    );
    expect(sent.messages.map((m: any) => m.to)).toEqual(['bo', 'dee', `${DOMAIN}/cy`, outsider.did_aw]);
    expect(sent.message_id).toBe(sent.messages[0].message_id);
    expect(new Set(sent.messages.map((m: any) => m.message_id)).size).toBe(4);
    for (const [recipient, delivery] of [bo, dee, cy, outsider].map((r, i) => [r, sent.messages[i]])) {
      const [item] = expectOk(await inbox(recipient.api_key, `?message_id=${delivery.message_id}`)).messages;
      expect(item).toMatchObject({
        subject: 'All hands',
        body: 'Meeting at noon.',
        priority: 'urgent',
        to_did: recipient.did_key,
        from_did: ann.did_key,
        end_to_end: true,
      });
      const envelope = storedEnvelope(delivery.message_id);
      expect((envelope.recipients as Obj[]).map((r) => r.did)).toEqual([recipient.did_key]);
      expect(independentSignatureVerifies(envelope)).toBe(true);
    }
  });

  it('treats singular selectors that name one identity as one recipient (upstream precedence), and refuses ones that disagree (422)', async () => {
    const sent = expectOk(await send(ann.api_key, { to_alias: 'cy', to_address: `${DOMAIN}/cy`, to_did: cy.did_key, body: 'once' }));
    expect(sent.messages).toHaveLength(1);
    expect(sent.messages[0].to).toBe(cy.did_key);
    expectValidation(await send(ann.api_key, { to_alias: 'bo', to_did: cy.did_key, body: 'x' }), 'to_alias');
    expectRefusal(
      await send(ann.api_key, { to_alias: 'bo', to_did: cy.did_key, body: 'x' }),
      422,
      /to_alias must match the to_did recipient/,
      'SVC_ERR_VALIDATION',
    );
  });

  it('refuses invalid bodies with 422 and stores nothing', async () => {
    const before = (await inboxIds(bo.api_key, '?limit=200')).length;
    const refuse = async (body: unknown, field: string, detail?: RegExp) => {
      const response = await send(ann.api_key, body);
      expectValidation(response, field);
      if (detail) expectRefusal(response, 422, detail);
    };
    await refuse({ body: 'nobody to send to' }, 'body', /Must provide a recipient/);
    await refuse({ to_aliases: [], body: 'empty list' }, 'body', /Must provide a recipient/);
    await refuse({ to_alias: 'bo' }, 'body');
    await refuse({ to_alias: 'bo', body: 42 }, 'body');
    await refuse({ to_alias: 'bo', body: 'x', priority: 'critical' }, 'priority');
    await refuse({ to_alias: 'bo', body: 'x', subject: 's'.repeat(257) }, 'subject');
    await refuse({ to_alias: 'bo', body: 'x', cc: 'cy' }, 'cc');
    await refuse({ to_alias: 'bo', body: 'x', to_agent_id: 'bo' }, 'to_agent_id', /UUID/);
    await refuse({ to_alias: '', body: 'x' }, 'to_alias');
    await refuse({ to_aliases: 'bo', body: 'x' }, 'to_aliases');
    await refuse({ to_aliases: ['bo', 'bo'], body: 'x' }, 'to_aliases', /same recipient/);
    await refuse({ to_alias: 'bo', to_dids: [bo.did_key], body: 'x' }, 'to_dids', /same recipient as bo/);
    await refuse({ to_aliases: Array.from({ length: 51 }, (_, i) => `r${i}`), body: 'x' }, 'to_aliases');
    await refuse({ to_alias: 'bo', to_aliases: Array.from({ length: 50 }, (_, i) => `r${i}`), body: 'x' }, 'body', /At most 50 recipients/);
    // A client signature comes with everything it needs checking (test/api/self-custody.test.ts sends them).
    await refuse({ to_alias: 'bo', body: 'x', signature: 'AAAA' }, 'from_did', /from_did is required when signature is provided/);
    await refuse({ to_alias: 'bo', body: 'x', signed_payload: '{}' }, 'signed_payload', /goes with signature/);
    await refuse({ to_alias: 'bo', body: 'x', message_id: 'not-a-uuid' }, 'message_id', /UUID/);
    await refuse({ to_aliases: ['bo', 'cy'], body: 'x', message_id: '00000000-0000-4000-8000-000000000000' }, 'message_id', /one recipient/);
    expectRefusal(await send(ann.api_key, ['bo']), 422);
    expectRefusal(await t.request('POST', '/v1/messages', { token: ann.api_key, raw: '{"to_alias":' }), 400);
    expect(await inboxIds(bo.api_key, '?limit=200')).toHaveLength(before);
  });

  it('limits the body to 64 KiB of UTF-8 (413 over it)', async () => {
    expectOk(await send(ann.api_key, { to_alias: 'bo', body: 'x'.repeat(64 * 1024) }));
    expectRefusal(
      await send(ann.api_key, { to_alias: 'bo', body: 'x'.repeat(64 * 1024 + 1) }),
      413,
      /65537 bytes; the limit is 65536/,
      'SVC_ERR_MESSAGE_TOO_LARGE',
    );
    // Measured in bytes: 40 000 two-byte characters are over the limit.
    expectRefusal(await send(ann.api_key, { to_alias: 'bo', body: 'é'.repeat(40_000) }), 413, /80000 bytes/, 'SVC_ERR_MESSAGE_TOO_LARGE');
  });

  it('answers 404 for an unknown recipient, naming it', async () => {
    expectRefusal(await send(ann.api_key, { to_alias: 'nobody', body: 'x' }), 404, /alias nobody/, 'SVC_ERR_RECIPIENT_NOT_FOUND');
    // Aliases are project-scoped: outsider's alias is not visible from alpha.
    expectRefusal(await send(ann.api_key, { to_alias: 'outsider', body: 'x' }), 404, /alias outsider/, 'SVC_ERR_RECIPIENT_NOT_FOUND');
    expectRefusal(await send(ann.api_key, { to_address: `${DOMAIN}/nobody`, body: 'x' }), 404, new RegExp(`${DOMAIN}/nobody`), 'SVC_ERR_RECIPIENT_NOT_FOUND');
    const stranger = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
    expectRefusal(await send(ann.api_key, { to_did: stranger, body: 'x' }), 404, new RegExp(stranger), 'SVC_ERR_RECIPIENT_NOT_FOUND');
    expectRefusal(await send(ann.api_key, { to_aliases: ['bo', 'nobody'], body: 'x' }), 404, /nobody/, 'SVC_ERR_RECIPIENT_NOT_FOUND');
  });

  it('queues mail for an address on another node, and refuses a malformed address (422)', async () => {
    // Federation (test/api/federation-mail.test.ts) delivers it; with no node known it waits.
    const queued = expectOk(await send(ann.api_key, { to_address: 'elsewhere.example/bob', body: 'x' }));
    expect(queued).toMatchObject({ status: 'queued', messages: [{ to: 'elsewhere.example/bob', to_did: '', status: 'queued' }] });
    expectRefusal(await send(ann.api_key, { to_address: 'no-slash', body: 'x' }), 422, /no-slash is not an address/, 'SVC_ERR_ADDRESS_MALFORMED');
    expectRefusal(await send(ann.api_key, { to_did: 'did:web:example.com', body: 'x' }), 422, /did:web:example\.com/, 'SVC_ERR_DID_MALFORMED');
  });

  it('refuses a contacts-only recipient outside its project (403) until the sender is a contact, by address or by domain', async () => {
    const guarded = await createIdentity(t, alpha.api_key, persistent('guarded', { address_reachability: 'contacts-only' }));
    const mail = { to_address: `${DOMAIN}/guarded`, body: 'may I?' };
    expectRefusal(
      await send(outsider.api_key, mail),
      403,
      new RegExp(`${DOMAIN}/guarded only accepts messages from contacts`),
      'SVC_ERR_RECIPIENT_CONTACTS_ONLY',
    );
    expect(await inboxIds(guarded.api_key)).toEqual([]);

    // Its own project always reaches it.
    expectOk(await send(bo.api_key, { to_alias: 'guarded', body: 'same project' }));

    const contact = expectOk(await t.request('POST', '/v1/contacts', { token: guarded.api_key, body: { contact_address: `${OTHER}/outsider` } }));
    const byAddress = expectOk(await send(outsider.api_key, mail));
    expectOk(await t.request('DELETE', `/v1/contacts/${contact.contact_id}`, { token: guarded.api_key }));
    expectRefusal(await send(outsider.api_key, mail), 403, undefined, 'SVC_ERR_RECIPIENT_CONTACTS_ONLY');

    expectOk(await t.request('POST', '/v1/contacts', { token: guarded.api_key, body: { contact_address: OTHER } }));
    const byDomain = expectOk(await send(outsider.api_key, mail));

    const items = expectOk(await inbox(guarded.api_key)).messages;
    expect(items.map((m: any) => m.message_id).slice(0, 2)).toEqual([byDomain.message_id, byAddress.message_id]);
    expect(items.find((m: any) => m.message_id === byDomain.message_id).is_contact).toBe(true);
    expect(items.find((m: any) => m.from_alias === 'bo').is_contact).toBe(false);
  });

  it('is all-or-nothing: one refused recipient stores nothing for the others', async () => {
    const locked = await createIdentity(t, beta.api_key, persistent('locked', { address_reachability: 'contacts-only' }));
    const fresh = await createIdentity(t, alpha.api_key, { alias: 'fresh' });
    expectRefusal(await send(ann.api_key, { to_aliases: ['fresh'], to_addresses: [`${OTHER}/locked`], body: 'x' }), 403);
    expect(await inboxIds(fresh.api_key)).toEqual([]);
    expect(await inboxIds(locked.api_key)).toEqual([]);
  });

  it('refuses no key or a bad key (401) and a project key (403)', async () => {
    expectRefusal(await send(undefined, { to_alias: 'bo', body: 'x' }), 401, /Authentication required/);
    expectRefusal(await send(`svc_sk_${'0'.repeat(64)}`, { to_alias: 'bo', body: 'x' }), 401, /Invalid API key/);
    expectRefusal(await send(alpha.api_key, { to_alias: 'bo', body: 'x' }), 403, /not bound to an identity/);
  });
});

describe('GET /v1/messages/inbox', () => {
  let reader: any;
  const ids: string[] = [];

  beforeAll(async () => {
    reader = await createIdentity(t, alpha.api_key, { alias: 'reader' });
    for (let i = 0; i < 5; i++) ids.push(expectOk(await send(ann.api_key, { to_alias: 'reader', subject: `#${i}`, body: `mail ${i}` })).message_id);
  });

  it('lists newest first, with a limit and `before` paging', async () => {
    const all = expectOk(await inbox(reader.api_key));
    expect(all.messages.map((m: any) => m.message_id)).toEqual([...ids].reverse());
    expect(all).toMatchObject({ has_more: false, next_before: null });

    const first = expectOk(await inbox(reader.api_key, '?limit=2'));
    expect(first.messages.map((m: any) => m.message_id)).toEqual([ids[4], ids[3]]);
    expect(first).toMatchObject({ has_more: true, next_before: ids[3] });
    const second = expectOk(await inbox(reader.api_key, `?limit=2&before=${first.next_before}`));
    expect(second.messages.map((m: any) => m.message_id)).toEqual([ids[2], ids[1]]);
    const last = expectOk(await inbox(reader.api_key, `?limit=2&before=${second.next_before}`));
    expect(last.messages.map((m: any) => m.message_id)).toEqual([ids[0]]);
    expect(last).toMatchObject({ has_more: false, next_before: null });
  });

  it('filters by message_id and unread_only', async () => {
    expect(await inboxIds(reader.api_key, `?message_id=${ids[2]}`)).toEqual([ids[2]]);
    expect(await inboxIds(reader.api_key, '?message_id=00000000-0000-4000-8000-000000000000')).toEqual([]);
    // Another identity's message is not in this inbox.
    expect(await inboxIds(bo.api_key, `?message_id=${ids[2]}`)).toEqual([]);
    expectOk(await ack(reader.api_key, ids[1] as string));
    expect(await inboxIds(reader.api_key, '?unread_only=true')).toEqual([ids[4], ids[3], ids[2], ids[0]]);
    expect(await inboxIds(reader.api_key, '?unread_only=false')).toHaveLength(5);
  });

  it('refuses bad query values (422), an unknown cursor (422), a project key (403), no key (401)', async () => {
    expectValidation(await inbox(reader.api_key, '?limit=0'), 'limit');
    expectValidation(await inbox(reader.api_key, '?limit=201'), 'limit');
    expectValidation(await inbox(reader.api_key, '?limit=ten'), 'limit');
    expectValidation(await inbox(reader.api_key, '?unread_only=maybe'), 'unread_only');
    expectValidation(await inbox(reader.api_key, `?before=${ids[0]}x`), 'before');
    // A cursor from someone else's inbox is not a cursor here.
    const other = expectOk(await send(ann.api_key, { to_alias: 'bo', body: 'not for reader' })).message_id;
    expectValidation(await inbox(reader.api_key, `?before=${other}`), 'before');
    expectRefusal(await inbox(alpha.api_key), 403);
    expectRefusal(await t.request('GET', '/v1/messages/inbox'), 401);
  });
});

describe('POST /v1/messages/{message_id}/ack', () => {
  it('marks the message read, idempotently', async () => {
    const target = await createIdentity(t, alpha.api_key, { alias: 'acker' });
    const { message_id } = expectOk(await send(ann.api_key, { to_alias: 'acker', body: 'please ack' }));
    const acked = expectOk(await ack(target.api_key, message_id));
    expect(acked).toEqual({ message_id, acknowledged_at: expect.any(String) });
    expect(Date.parse(acked.acknowledged_at)).toBeGreaterThan(0);
    expect(expectOk(await inbox(target.api_key)).messages[0]).toMatchObject({ message_id, read_at: acked.acknowledged_at });
    expect(await inboxIds(target.api_key, '?unread_only=true')).toEqual([]);
    // Again: the same answer, the first time kept.
    expect(expectOk(await ack(target.api_key, message_id))).toEqual(acked);
  });

  it("answers 404 for another identity's message or an unknown id; 403 for a project key; 401 without a key", async () => {
    const { message_id } = expectOk(await send(ann.api_key, { to_alias: 'bo', body: 'for bo only' }));
    expectRefusal(await ack(ann.api_key, message_id), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await ack(cy.api_key, message_id), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await ack(bo.api_key, '00000000-0000-4000-8000-000000000000'), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await ack(bo.api_key, 'not-even-a-uuid'), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await ack(alpha.api_key, message_id), 403);
    expectRefusal(await t.request('POST', `/v1/messages/${message_id}/ack`), 401);
    expect(expectOk(await inbox(bo.api_key, `?message_id=${message_id}`)).messages[0].read_at).toBeNull();
  });
});
