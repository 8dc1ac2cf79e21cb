/**
 * The checks one message from another node passes before it is stored (inbound.ts), on a real
 * encrypted database through the single route's service: the recipient, the sender's address
 * checked with its own node (and, for a namespace that node calls DNS-verified, with DNS here),
 * what is remembered of a check, and the recipient's own rule. The sender's node is a loopback
 * server; DNS is a table (a system edge) that can be made to fail.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FederatedMessage } from '../../contract/core/federation.ts';
import { ContactBody } from '../../contract/core/contacts.ts';
import { InboxQuery } from '../../contract/core/mail.ts';
import { renderDnsRecord } from '../crypto/dns-txt.ts';
import { buildMessageEnvelope, messageSigningBytes } from '../crypto/message-signing.ts';
import { ServiceError } from '../errors.ts';
import { signedMail, vouchingNode } from '../../test/support/federation.ts';
import { testKey, type TestKey } from '../../test/support/keys.ts';
import { json, remoteServers, type RemoteServer } from '../../test/support/remote-server.ts';
import { failableDns, startUnitNode, type UnitNode } from '../../test/support/unit-node.ts';
import { CHECKED_SENDER_TTL_MS } from './checked-senders.ts';
import { DEFAULT_DOMAIN_BUDGET, DomainBudgets } from './domain-budget.ts';
import { FederationBatches } from './inbound-batch.ts';

const servers = remoteServers();
let node: UnitNode;
let bob: { agent_id: string; did_key: string };
let zed: TestKey;
let checks: RemoteServer;
/** DNS names in `failing` fail (ESERVFAIL), on top of the table. */
const { dns, table, failing, reset: resetDns } = failableDns('ESERVFAIL');

beforeEach(async () => {
  resetDns();
  node = await startUnitNode({}, dns);
  const { services, ctx } = node;
  const key = ctx.custody.createSigningKey('namespace');
  await services.namespaces.registerByOwner('b.test', key.didKey, key.keyId);
  const project = services.projects.create({ slug: 'pb', namespace: 'b.test' });
  bob = services.identities.create(project.project_id, { lifetime: 'persistent', name: 'bob' });
  zed = testKey();
  checks = await vouchingNode(servers, 'x.test', { zed });
  services.directory.set('x.test', checks.url);
});

afterEach(async () => {
  await servers.closeAll();
  node.close();
});

/** Receives `message` as the single route does: its result, or the ServiceError it is refused or deferred with. */
async function receive(message: unknown): Promise<{ status: string } | ServiceError> {
  const batches = new FederationBatches(node.services.inbound, new DomainBudgets(DEFAULT_DOMAIN_BUDGET, node.ctx.clock));
  try {
    return await batches.single(message as FederatedMessage, null);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
}

/** Mail `key` signed as its own client would, naming the recipient's key (`to_did`) in the envelope. */
function clientSigned(key: TestKey, fields: { from: string; to: string; toDid: string }) {
  const { signature: _s, signed_payload: _p, ...mail } = signedMail(key, fields);
  const bytes = messageSigningBytes(buildMessageEnvelope({ ...mail, type: 'mail', to_did: fields.toDid } as Parameters<typeof buildMessageEnvelope>[0]));
  return { ...mail, signature: key.sign(bytes), signed_payload: bytes.toString('utf8') };
}

const refusal = (statusCode: number, code: string, message?: string | RegExp) => ({
  statusCode,
  code,
  ...(message === undefined ? {} : { message: typeof message === 'string' ? message : expect.stringMatching(message) }),
});
const inbox = () => node.services.mail.inbox(bob.agent_id, InboxQuery.parse({ limit: 100 })).messages;

describe('a message from another node', () => {
  it('is for an address this node hosts, and for the key its sender signed for when the signature names one', async () => {
    expect(await receive(signedMail(zed, { from: 'x.test/zed', to: 'b.test/nobody' }))).toMatchObject(refusal(404, 'SVC_ERR_RECIPIENT_NOT_FOUND'));
    expect(await receive(signedMail(zed, { from: 'x.test/zed', to: 'elsewhere.test/bob' }))).toMatchObject(refusal(422, 'SVC_ERR_RECIPIENT_NOT_LOCAL'));
    const other = testKey();
    expect(await receive(clientSigned(zed, { from: 'x.test/zed', to: 'b.test/bob', toDid: other.didKey }))).toMatchObject(
      refusal(403, 'SVC_ERR_FEDERATION_RECIPIENT_MISMATCH', 'Refused: the signed recipient key (to_did) is not the key of b.test/bob'),
    );
    expect(await receive(clientSigned(zed, { from: 'x.test/zed', to: 'b.test/bob', toDid: bob.did_key }))).toMatchObject({ status: 'delivered' });
    // The recipient was refused before anyone was asked about the sender.
    expect(checks.requests.filter((r) => r.includes('/addresses/zed'))).toHaveLength(1);
  });

  it("is refused when its sender's address is not one its own node vouches for with that key", async () => {
    const local = await receive(signedMail(zed, { from: 'b.test/zed', to: 'b.test/bob' }));
    expect(local).toMatchObject(
      refusal(403, 'SVC_ERR_SENDER_NAMESPACE_LOCAL', 'Refused: b.test is a namespace of this node, so b.test/zed cannot send from another node'),
    );
    expect(await receive(signedMail(zed, { from: 'nowhere.test/zed', to: 'b.test/bob' }))).toMatchObject(refusal(403, 'SVC_ERR_SENDER_NODE_UNKNOWN'));
    expect(await receive(signedMail(zed, { from: 'x.test/ghost', to: 'b.test/bob' }))).toMatchObject(
      refusal(403, 'SVC_ERR_SENDER_NOT_FOUND', 'Refused: x.test/ghost does not exist on its node'),
    );
    expect(await receive(signedMail(testKey(), { from: 'x.test/zed', to: 'b.test/bob' }))).toMatchObject(
      refusal(
        403,
        'SVC_ERR_SENDER_KEY_MISMATCH',
        'Refused: x.test/zed resolves to another key on its node (no rotation or replacement vouches for the key it was signed with)',
      ),
    );
    expect(inbox()).toEqual([]);
  });

  it("is deferred, in the same words whatever went wrong, when the sender's node cannot be asked or answers nonsense", async () => {
    const closed = await servers.start(() => {});
    await closed.close();
    const answers: [string, (response: Parameters<Parameters<typeof servers.start>[0]>[1]) => void][] = [
      ['failing.test', (r) => json(r, 500, { detail: 'stack trace at db.internal:5432' })],
      ['html.test', (r) => r.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>')],
      ['list.test', (r) => json(r, 200, ['not', 'an', 'object'])],
      ['redirect.test', (r) => r.writeHead(302, { location: 'http://127.0.0.1:1/' }).end()],
    ];
    node.services.directory.set('closed.test', closed.url);
    for (const [domain, answer] of answers) node.services.directory.set(domain, (await servers.start((_q, r) => answer(r))).url);
    for (const domain of ['closed.test', ...answers.map(([d]) => d)]) {
      const result = await receive(signedMail(zed, { from: `${domain}/zed`, to: 'b.test/bob' }));
      expect(result, domain).toMatchObject(refusal(503, 'SVC_ERR_PEER_UNAVAILABLE', `Could not check ${domain}/zed with its node; try again later`));
    }
  });

  it('from a namespace its node calls DNS-verified, passes only when DNS here names the same controller, and waits when DNS fails', async () => {
    const controller = testKey();
    const verified = await vouchingNode(
      servers,
      'v.test',
      { zed },
      { namespace: { domain: 'v.test', verification_status: 'verified', controller_did: controller.didKey } },
    );
    node.services.directory.set('v.test', verified.url);
    const mail = () => signedMail(zed, { from: 'v.test/zed', to: 'b.test/bob' });
    const unverified = refusal(403, 'SVC_ERR_SENDER_DNS_UNVERIFIED', 'Refused: v.test claims DNS verification, but DNS here does not name its controller');
    expect(await receive(mail())).toMatchObject(unverified);
    table.records['_svcid.v.test'] = [[renderDnsRecord({ controllerDid: testKey().didKey })]];
    expect(await receive(mail())).toMatchObject(unverified);
    failing.add('_svcid.v.test');
    const failed = await receive(mail());
    expect(failed).toMatchObject(refusal(503, 'SVC_ERR_SENDER_DNS_FAILED'));
    expect((failed as ServiceError).headers['retry-after']).toBe('10');
    failing.clear();
    table.records['_svcid.v.test'] = [[renderDnsRecord({ controllerDid: controller.didKey })]];
    expect(await receive(mail())).toMatchObject({ status: 'delivered' });
    expect(inbox().map((m) => m.from_namespace_trust)).toEqual(['verified']);
  });

  it('asks nothing more about a sender (address and key) checked a moment ago, until the check is five minutes old', async () => {
    const addressQuestions = () => checks.requests.filter((r) => r.endsWith('/addresses/zed')).length;
    expect(await receive(signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob' }))).toMatchObject({ status: 'delivered' });
    expect(addressQuestions()).toBe(1);
    node.advance(CHECKED_SENDER_TTL_MS - 1_000);
    expect(await receive(signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob' }))).toMatchObject({ status: 'delivered' });
    expect(addressQuestions()).toBe(1);
    // Another key claiming the address is checked (and refused), not taken for the remembered one.
    expect(await receive(signedMail(testKey(), { from: 'x.test/zed', to: 'b.test/bob' }))).toMatchObject(refusal(403, 'SVC_ERR_SENDER_KEY_MISMATCH'));
    expect(addressQuestions()).toBe(2);
    node.advance(1_000);
    expect(await receive(signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob' }))).toMatchObject({ status: 'delivered' });
    expect(addressQuestions()).toBe(3);
  });

  it('for an identity that takes mail from contacts only, is refused unless its sender is one of them', async () => {
    const project = node.services.projects.create({ slug: 'pc', namespace: 'b.test' });
    const dee = node.services.identities.create(project.project_id, { lifetime: 'persistent', name: 'dee', address_reachability: 'contacts-only' });
    expect(await receive(signedMail(zed, { from: 'x.test/zed', to: 'b.test/dee' }))).toMatchObject(
      refusal(403, 'SVC_ERR_RECIPIENT_CONTACTS_ONLY', 'Refused: b.test/dee only accepts messages from contacts'),
    );
    node.services.contacts.add(dee.agent_id, ContactBody.parse({ contact_address: 'x.test/zed' }));
    expect(await receive(signedMail(zed, { from: 'x.test/zed', to: 'b.test/dee' }))).toMatchObject({ status: 'delivered' });
  });
});
