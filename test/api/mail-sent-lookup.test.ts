/**
 * One Sent item by id (ours): `GET /v1/messages/sent/{message_id}` answers the item exactly as
 * Sent lists it, from either source (mail to this node, mail through the federation outbox; one
 * delivered to a second real node is in mail-folders.test.ts), however far back in the list it is, and after the recipient
 * deleted its copy. Anything the caller did not send is the same 404 as other message routes:
 * another identity's mail (the recipient's too), mail the caller received, an unknown id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SentMail } from '../../contract/core/mail.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
const DOMAIN = 'lookup.test';
let alpha: Project;
let ann: any; // sender
let bo: any; // recipient, same project
let outsider: any; // another project

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  await createNodeNamespace(t, 'lookup-other.test');
  alpha = await createProject(t, 'lookup-alpha', DOMAIN);
  ann = await createIdentity(t, alpha.api_key, persistent('ann'));
  bo = await createIdentity(t, alpha.api_key, persistent('bo'));
  outsider = await createIdentity(t, (await createProject(t, 'lookup-beta', 'lookup-other.test')).api_key, persistent('outsider'));
});
afterAll(async () => {
  await t.stop();
});

const send = async (from: any, body: Record<string, unknown>) => expectOk(await t.request('POST', '/v1/messages', { token: from.api_key, body }));
const lookup = (who: any, id: string) => t.request('GET', `/v1/messages/sent/${encodeURIComponent(id)}`, { token: who.api_key });
const listed = async (who: any) => expectOk(await t.request('GET', '/v1/messages/sent?limit=200', { token: who.api_key })).messages as any[];
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('GET /v1/messages/sent/{message_id}', () => {
  it('answers a local send and one queued for another node, each exactly as Sent lists it', async () => {
    const local = await send(ann, { to_alias: 'bo', subject: 'Here', body: 'on this node', priority: 'high' });
    const remote = await send(ann, { to_address: 'nowhere.example/zed', subject: 'Away', body: 'to another node' });
    for (const id of [local.message_id, remote.message_id]) {
      // The outbox may try the remote mail between the two reads (its attempts and error change):
      // read both again until they were taken without a delivery attempt in between.
      let item: any;
      let inList: any;
      for (let read = 0; read < 5; read++) {
        inList = (await listed(ann)).find((m) => m.message_id === id);
        item = expectOk(await lookup(ann, id));
        const again = (await listed(ann)).find((m) => m.message_id === id);
        if (JSON.stringify(again) === JSON.stringify(inList)) break;
      }
      expect(SentMail.parse(item)).toEqual(item);
      expect(item).toEqual(inList);
    }
    expect(expectOk(await lookup(ann, local.message_id))).toMatchObject({
      destination: 'local',
      to: 'bo',
      to_alias: 'bo',
      status: 'delivered',
      subject: 'Here',
      priority: 'high',
    });
    expect(expectOk(await lookup(ann, remote.message_id))).toMatchObject({
      destination: 'remote',
      to: 'nowhere.example/zed',
      to_did: null,
      status: 'queued',
      subject: 'Away',
      body: 'to another node',
      next_attempt_at: expect.any(String),
    });
  });

  it('finds a send however far back it is in the list', async () => {
    const sender = await createIdentity(t, alpha.api_key, persistent('busy'));
    const first = (await send(sender, { to_alias: 'bo', subject: 'oldest', body: '0' })).message_id;
    for (let i = 1; i <= 5; i++) await send(sender, { to_alias: 'bo', subject: `newer ${i}`, body: String(i) });
    const page = expectOk(await t.request('GET', '/v1/messages/sent?limit=2', { token: sender.api_key }));
    expect(page.messages.map((m: any) => m.message_id)).not.toContain(first);
    expect(expectOk(await lookup(sender, first))).toMatchObject({ message_id: first, subject: 'oldest' });
  });

  it('still finds a mail the recipient deleted (the sender keeps its copy)', async () => {
    const id = (await send(ann, { to_alias: 'bo', subject: 'deleted there', body: 'kept here' })).message_id;
    expectOk(await t.request('DELETE', `/v1/messages/${id}`, { token: bo.api_key }));
    expect(expectOk(await lookup(ann, id))).toMatchObject({ message_id: id, subject: 'deleted there', body: 'kept here', status: 'delivered' });
  });

  it("answers 404 for another identity's sent mail (local or queued), mail the caller received, and an unknown id", async () => {
    const local = (await send(ann, { to_alias: 'bo', subject: 'only ann looks this up', body: 'x' })).message_id;
    const remote = (await send(ann, { to_address: 'nowhere.example/yan', subject: 'queued', body: 'y' })).message_id;
    // bo received the local one: received is not sent.
    for (const who of [bo, outsider]) {
      for (const id of [local, remote]) expectRefusal(await lookup(who, id), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
    }
    const received = (await send(bo, { to_alias: 'ann', subject: 'to ann', body: 'z' })).message_id;
    expectRefusal(await lookup(ann, received), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await lookup(ann, UNKNOWN), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await lookup(ann, 'not-even-a-uuid'), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
    // Bounded like every message id; a project key is refused (an identity route); none is a 401.
    expectRefusal(await lookup(ann, 'x'.repeat(257)), 422, undefined, 'SVC_ERR_VALIDATION');
    expectRefusal(await lookup({ api_key: alpha.api_key }, local), 403);
    expectRefusal(await t.request('GET', `/v1/messages/sent/${local}`), 401);
  });
});
