/**
 * The core as federation sees it (federation-core.ts over federation/core-port.ts), on a real
 * encrypted database: what it says of addresses and contacts, and that what federation stores
 * through it lands where the core's own reads find it, once. Federation's checks on top of it are
 * tested beside federation's modules (server/federation/), over the same port.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionsQuery } from '../../../contract/core/chat.ts';
import { ContactBody } from '../../../contract/core/contacts.ts';
import { FederatedMail, FEDERATION_VERSION, type FederatedChat } from '../../../contract/core/federation.ts';
import { InboxQuery } from '../../../contract/core/mail.ts';
import { ServiceError } from '../../errors.ts';
import { signedMail } from '../../../test/support/federation.ts';
import { testKey, type TestKey } from '../../../test/support/keys.ts';
import { startUnitNode, type UnitNode } from '../../../test/support/unit-node.ts';

let node: UnitNode;
let bob: { agent_id: string };
let zed: TestKey;
const from = { nodeUrl: 'https://x.test', namespaceTrust: 'unverified' } as const;

beforeEach(async () => {
  node = await startUnitNode();
  const { services, ctx } = node;
  const key = ctx.custody.createSigningKey('namespace');
  await services.namespaces.registerByOwner('b.test', key.didKey, key.keyId);
  const project = services.projects.create({ slug: 'pb', namespace: 'b.test' });
  bob = services.identities.create(project.project_id, { lifetime: 'persistent', name: 'bob' });
  zed = testKey();
});

afterEach(() => node.close());

/** The refusal `act` throws, by status and code. */
function refusal(act: () => unknown): { statusCode: number; code: string } | null {
  try {
    act();
    return null;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { statusCode: error.statusCode, code: error.code };
  }
}

const inbox = () => node.services.mail.inbox(bob.agent_id, InboxQuery.parse({})).messages;

describe("federation's view of the core", () => {
  it('knows its own namespaces and the identities it hosts, and refuses an address it does not host', () => {
    const core = node.services.federationCore;
    expect([core.isLocal('b.test'), core.isLocal('x.test')]).toEqual([true, false]);
    expect(core.hostedRecipient('B.test/bob')).toMatchObject({ agent_id: bob.agent_id, address: 'b.test/bob', address_reachability: 'public' });
    expect(refusal(() => core.hostedRecipient('x.test/bob'))).toEqual({ statusCode: 422, code: 'SVC_ERR_RECIPIENT_NOT_LOCAL' });
    expect(refusal(() => core.hostedRecipient('b.test/nobody'))).toEqual({ statusCode: 404, code: 'SVC_ERR_RECIPIENT_NOT_FOUND' });
  });

  it('says whether the recipient’s contacts name the sender (here by its domain)', () => {
    const core = node.services.federationCore;
    const sender = { didKey: zed.didKey, stableId: null, address: 'x.test/zed' };
    expect(core.isContact(bob.agent_id, sender)).toBe(false);
    node.services.contacts.add(bob.agent_id, ContactBody.parse({ contact_address: 'x.test' }));
    expect(core.isContact(bob.agent_id, sender)).toBe(true);
  });

  it('stores arrived mail in the inbox once, knows it arrived, and refuses its id to another key', () => {
    const core = node.services.federationCore;
    const mail = FederatedMail.parse(signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob' }));
    const recipient = core.hostedRecipient(mail.to);
    expect(core.arrivedBefore(mail)).toBe(false);
    expect(core.storeArrivedMail(mail, recipient, from, node.ctx.clock.now().toISOString())).toBe(true);
    expect(core.storeArrivedMail(mail, recipient, from, node.ctx.clock.now().toISOString())).toBe(false);
    expect(core.arrivedBefore(mail)).toBe(true);
    expect(refusal(() => core.arrivedBefore({ ...mail, from_did: testKey().didKey }))).toEqual({ statusCode: 409, code: 'SVC_ERR_MESSAGE_ID_TAKEN' });
    expect(inbox().map((m) => [m.message_id, m.from_address])).toEqual([[mail.message_id, 'x.test/zed']]);
  });

  it('stores an arrived chat message in a session with its sender, and knows it arrived', () => {
    const core = node.services.federationCore;
    const chat: FederatedChat = {
      v: FEDERATION_VERSION,
      kind: 'chat',
      message_id: randomUUID(),
      from: 'x.test/zed',
      from_did: zed.didKey,
      from_stable_id: null,
      to: 'b.test/bob',
      body: 'are you there?',
      timestamp: new Date().toISOString(),
      signature: 's',
      signed_payload: 'p',
      reply_to: null,
      wait_seconds: null,
      hang_on: false,
      sender_leaving: false,
    };
    expect(core.arrivedBefore(chat)).toBe(false);
    core.storeArrivedChat(chat, core.hostedRecipient(chat.to), { contact: false, namespaceTrust: 'unverified' });
    expect(core.arrivedBefore(chat)).toBe(true);
    expect(refusal(() => core.arrivedBefore({ ...chat, from_did: testKey().didKey }))).toEqual({ statusCode: 409, code: 'SVC_ERR_MESSAGE_ID_TAKEN' });
    expect(node.services.chat.listSessions(bob.agent_id, SessionsQuery.parse({})).sessions).toHaveLength(1);
  });

  it("puts a bounce in its sender's inbox from postmaster, and nowhere for an identity that is gone", () => {
    const core = node.services.federationCore;
    const bounce = { from: 'b.test/bob', subject: 'Undeliverable: plans', body: 'Your message could not be delivered.', at: new Date().toISOString() };
    core.storeBounce(bob.agent_id, bounce);
    core.storeBounce(randomUUID(), bounce);
    expect(inbox().map((m) => [m.from_alias, m.subject, m.from_agent_id])).toEqual([['postmaster', 'Undeliverable: plans', null]]);
  });
});
