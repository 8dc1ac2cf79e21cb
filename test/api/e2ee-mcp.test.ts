/**
 * An agent reaching a recipient without an encryption key through MCP, with both lines of the
 * official SDK: the tools that send refuse it as the HTTP API does (nothing is sent as plaintext
 * behind the agent's back), and send it readable only when the call says `plaintext`, marked so
 * for its reader. Between two parties that can both encrypt, plaintext is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { connectMcp, MCP_CLIENTS, type McpSession } from '../support/mcp.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { createSelfCustodial, type SelfCustodial } from '../support/self-custodial.ts';

const DOMAIN = 'e2ee-mcp.test';
let t: TestNode;
let ann: any;
let bob: any;
/** Self-custodial, publishing no encryption key. */
let sam: SelfCustodial;

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  const project = await createProject(t, 'mcp', DOMAIN);
  ann = await createIdentity(t, project.api_key, persistent('ann'));
  bob = await createIdentity(t, project.api_key, persistent('bob'));
  sam = await createSelfCustodial(t, project.api_key, 'sam');
});
afterAll(() => t.stop());

describe.each(MCP_CLIENTS)('MCP tools that send, with MCP %s', (client) => {
  let mcp: McpSession;
  beforeAll(async () => {
    mcp = await connectMcp(t.url, ann.api_key, { client });
  });
  afterAll(() => mcp.close());

  const samReads = async (path: string) => expectOk(await t.request('GET', path, { token: sam.identity.api_key }));

  it('send_mail: refused for want of a key unless the call says plaintext; then marked as such', async () => {
    const refused = await mcp.call('send_mail', { to: `${DOMAIN}/sam`, subject: 'Hi', body: `quietly ${client}` });
    expect(refused).toMatchObject({ isError: true, body: { code: 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING', status: 409 } });
    const inbox = await samReads('/v1/messages/inbox?unread_only=false&limit=200');
    expect(inbox.messages.map((m: { body: string }) => m.body)).not.toContain(`quietly ${client}`);

    const sent = await mcp.call('send_mail', { to: `${DOMAIN}/sam`, subject: 'Hi', body: `readable ${client}`, plaintext: true });
    expect(sent.isError).toBe(false);
    const item = (await samReads(`/v1/messages/inbox?message_id=${sent.body.message_id}`)).messages[0];
    expect(item).toMatchObject({ body: `readable ${client}`, end_to_end: false, content_mode: 'legacy_plaintext_v1' });
  });

  it('send_mail: plaintext is refused where the recipient can decrypt, and the mail goes sealed without it', async () => {
    const refused = await mcp.call('send_mail', { to: 'bob', body: 'no downgrade', plaintext: true });
    expect(refused).toMatchObject({ isError: true, body: { code: 'SVC_ERR_E2EE_REQUIRED', status: 409 } });
    const sent = await mcp.call('send_mail', { to: 'bob', body: `sealed ${client}` });
    const item = expectOk(await t.request('GET', `/v1/messages/inbox?message_id=${sent.body.message_id}`, { token: bob.api_key })).messages[0];
    expect(item).toMatchObject({ body: `sealed ${client}`, end_to_end: true });
  });

  it('chat_send: the same, for a new chat and in its session', async () => {
    const refused = await mcp.call('chat_send', { to_address: `${DOMAIN}/sam`, message: `hush ${client}` });
    expect(refused).toMatchObject({ isError: true, body: { code: 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING', status: 409 } });
    const started = await mcp.call('chat_send', { to_address: `${DOMAIN}/sam`, message: `hello ${client}`, plaintext: true });
    expect(started.isError).toBe(false);
    const again = await mcp.call('chat_send', { session_id: started.body.session_id, message: `still ${client}` });
    expect(again).toMatchObject({ isError: true, body: { code: 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING' } });
    expect((await mcp.call('chat_send', { session_id: started.body.session_id, message: `again ${client}`, plaintext: true })).isError).toBe(false);
    const history = await samReads(`/v1/chat/sessions/${started.body.session_id}/messages?limit=200`);
    const mine = history.messages.filter((m: { body: string }) => m.body.endsWith(client));
    expect(mine.map((m: { body: string; end_to_end: boolean }) => [m.body, m.end_to_end])).toEqual([
      [`hello ${client}`, false],
      [`again ${client}`, false],
    ]);
  });
});
