/**
 * MCP at /mcp/ driven by the official clients over real HTTP: the suite runs once with each
 * (support/mcp.ts), so every tool call is also checked by SDK 1.x's validator.
 */
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, MCP_CLIENTS, type McpSession } from '../support/mcp.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const TOOLS = [
  'whoami',
  'send_mail',
  'check_inbox',
  'ack_message',
  // Mail folders (ours).
  'list_sent',
  'archive_message',
  'unarchive_message',
  'mark_unread',
  'delete_message',
  'chat_send',
  'chat_pending',
  'chat_history',
  'chat_read',
  'resolve_address',
  'contacts_list',
  'contacts_add',
  'contacts_remove',
  'send_control',
  // Upstream's presence tools.
  'list_agents',
  'heartbeat',
  // Full-text search (ours).
  'search',
];

describe.each(MCP_CLIENTS)('with MCP %s', (client) => {
  let t: TestNode;
  let alice: { agent_id: string; api_key: string; address: string; did_key: string; did_aw: string };
  let bob: { agent_id: string; api_key: string; address: string; did_key: string };
  let projectKey: string;
  let mcp: McpSession;
  let bobMcp: McpSession;

  beforeAll(async () => {
    t = await startTestNode();
    return () => t.stop();
  });
  beforeAll(async () => {
    await t.owner('POST', '/v1/node/namespaces', { domain: 'mcp.test' });
    projectKey = (await t.owner('POST', '/v1/node/projects', { slug: 'mcp', namespace: 'mcp.test' })).body.api_key;
    alice = (await t.request('POST', '/v1/workspaces/init', { token: projectKey, body: { lifetime: 'persistent', name: 'alice' } })).body;
    bob = (await t.request('POST', '/v1/workspaces/init', { token: projectKey, body: { lifetime: 'persistent', name: 'bob' } })).body;
    mcp = await connectMcp(t.url, alice.api_key, { client });
    return () => mcp.close();
  });
  beforeAll(async () => {
    bobMcp = await connectMcp(t.url, bob.api_key, { client });
    return () => bobMcp.close();
  });

  describe('MCP transport and auth', () => {
    it('lists the tools', async () => {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    });

    it('refuses a missing or wrong key, and a project key', async () => {
      await expect(connectMcp(t.url, 'svc_sk_' + '0'.repeat(64), { client })).rejects.toThrow();
      const response = await fetch(`${t.url}/mcp/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ detail: 'Authentication required', code: 'SVC_ERR_AUTH_MISSING' });
      await expect(connectMcp(t.url, projectKey, { client })).rejects.toThrow();
    });

    it('refuses a rebinding Host with 403', async () => {
      const { port } = new URL(t.url);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/mcp/', method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
      expect(status).toBe(403);
    });
  });

  describe('MCP identity tools', () => {
    it('whoami answers for the key that called', async () => {
      const { isError, body } = await mcp.call('whoami');
      expect(isError).toBe(false);
      expect(body).toMatchObject({ agent_id: alice.agent_id, alias: 'alice', address: 'mcp.test/alice', did_key: alice.did_key, did_aw: alice.did_aw });
    });

    it('resolve_address resolves, and reports refusals as error results', async () => {
      const found = await mcp.call('resolve_address', { address: 'mcp.test/alice' });
      expect(found.body).toMatchObject({ address: 'mcp.test/alice', did_key: alice.did_key, did_aw: alice.did_aw });
      const missing = await mcp.call('resolve_address', { address: 'mcp.test/nobody' });
      expect(missing).toEqual({ isError: true, body: { error: 'Address not found', status: 404, code: 'SVC_ERR_ADDRESS_NOT_FOUND' } });
      const malformed = await mcp.call('resolve_address', { address: 'no-slash' });
      expect(malformed.isError).toBe(true);
      expect(malformed.body).toMatchObject({ status: 422, code: 'SVC_ERR_ADDRESS_MALFORMED' });
    });
  });

  describe('MCP mail tools', () => {
    it('send_mail delivers a signed mail that check_inbox shows and ack_message acknowledges', async () => {
      const sent = await mcp.call('send_mail', { to: 'mcp.test/bob', subject: 'status', body: 'done', priority: 'high' });
      expect(sent.isError).toBe(false);
      expect(sent.body).toMatchObject({ status: 'delivered' });
      const inbox = await bobMcp.call('check_inbox', { unread_only: true });
      const [mail] = inbox.body.messages;
      expect(mail).toMatchObject({ message_id: sent.body.message_id, from_alias: 'alice', subject: 'status', body: 'done', priority: 'high' });
      expect(mail.signature).toEqual(expect.any(String));
      const bare = await bobMcp.call('check_inbox', { include_bodies: false });
      expect(bare.body.messages[0]).not.toHaveProperty('body');
      const acked = await bobMcp.call('ack_message', { message_id: mail.message_id });
      expect(acked.body.message_id).toBe(mail.message_id);
      expect((await bobMcp.call('check_inbox', { unread_only: true })).body.messages).toEqual([]);
    });

    it('sends to several recipients and reports refusals with the HTTP detail', async () => {
      const both = await mcp.call('send_mail', { to: ['bob', alice.did_key], body: 'to both' });
      expect(both.body.messages).toHaveLength(2);
      const unknown = await mcp.call('send_mail', { to: 'nobody', body: 'x' });
      expect(unknown.isError).toBe(true);
      expect(unknown.body).toMatchObject({ status: 404, code: 'SVC_ERR_RECIPIENT_NOT_FOUND' });
      // An address on another node is queued for federation, not refused.
      const foreign = await mcp.call('send_mail', { to: 'elsewhere.example/carol', body: 'x' });
      expect(foreign.body).toMatchObject({ status: 'queued', messages: [{ to: 'elsewhere.example/carol', status: 'queued' }] });
      const missing = await bobMcp.call('ack_message', { message_id: 'no-such-message' });
      expect(missing.body).toMatchObject({ status: 404, code: 'SVC_ERR_MESSAGE_NOT_FOUND' });
    });
  });

  describe('MCP contacts and control tools', () => {
    it('adds, lists and removes contacts', async () => {
      const added = await mcp.call('contacts_add', { contact_address: 'mcp.test/bob', label: 'Bob' });
      expect(added.body).toMatchObject({ contact_address: 'mcp.test/bob', label: 'Bob' });
      expect((await mcp.call('contacts_list')).body.contacts.map((c: { contact_id: string }) => c.contact_id)).toContain(added.body.contact_id);
      expect((await mcp.call('contacts_add', { contact_address: 'mcp.test/bob' })).body).toMatchObject({ status: 409, code: 'SVC_ERR_CONTACT_EXISTS' });
      expect((await mcp.call('contacts_add', { contact_address: 'bad address!' })).body.status).toBe(422);
      expect((await mcp.call('contacts_remove', { contact_id: added.body.contact_id })).body).toEqual({ deleted: true });
      expect((await mcp.call('contacts_list')).body.contacts).toEqual([]);
    });

    it('send_control queues a signal for an identity of the project', async () => {
      const sent = await mcp.call('send_control', { alias: 'bob', signal: 'pause' });
      expect(sent.body).toMatchObject({ signal: 'pause', target_alias: 'bob' });
      expect((await mcp.call('send_control', { alias: 'nobody', signal: 'pause' })).body).toMatchObject({ status: 404, code: 'SVC_ERR_RECIPIENT_NOT_FOUND' });
      const bad = await mcp.call('send_control', { alias: 'bob', signal: 'explode' });
      expect(bad.isError).toBe(true);
      expect(String(bad.body)).toMatch(/signal/);
    });
  });

  describe('MCP chat tools', () => {
    it('chat_send waits for the answer, which the other side sees as pending', async () => {
      const waiting = mcp.call('chat_send', { to_alias: 'bob', message: 'ready?', wait: true, wait_seconds: 20 });
      // Bob sees the conversation pending with alice waiting, then answers through MCP too.
      await expect.poll(async () => (await bobMcp.call('chat_pending')).body.pending[0]?.sender_waiting, { timeout: 5000 }).toBe(true);
      const pending = (await bobMcp.call('chat_pending')).body.pending[0];
      const history = await bobMcp.call('chat_history', { session_id: pending.session_id });
      expect(history.body.messages.map((m: { body: string }) => m.body)).toEqual(['ready?']);
      await bobMcp.call('chat_send', { session_id: pending.session_id, message: 'yes' });
      const result = await waiting;
      expect(result.isError).toBe(false);
      expect(result.body).toMatchObject({ status: 'replied', session_id: pending.session_id });
      expect(result.body.reply).toMatchObject({ body: 'yes', from_alias: 'bob' });
      const read = await bobMcp.call('chat_read', { session_id: pending.session_id, up_to_message_id: history.body.messages[0].message_id });
      expect(read.body).toMatchObject({ success: true });
    });

    it('chat_send times out, refuses ambiguous targets, and reports a departure', async () => {
      const timedOut = await mcp.call('chat_send', { to_alias: 'bob', message: 'anyone?', wait: true, wait_seconds: 1 });
      expect(timedOut.body.status).toBe('timeout');
      const both = await mcp.call('chat_send', { to_alias: 'bob', session_id: timedOut.body.session_id, message: 'x' });
      expect(both.body).toMatchObject({ status: 422, code: 'SVC_ERR_CHAT_TARGET_INVALID' });
      const waiting = mcp.call('chat_send', { session_id: timedOut.body.session_id, message: 'still there?', wait: true, wait_seconds: 20 });
      await expect.poll(async () => (await bobMcp.call('chat_pending')).body.pending[0]?.sender_waiting, { timeout: 5000 }).toBe(true);
      await bobMcp.call('chat_send', { session_id: timedOut.body.session_id, message: 'bye', leaving: true });
      expect((await waiting).body).toMatchObject({ status: 'sender_left', reply: { body: 'bye', sender_leaving: true } });
      const notMine = await bobMcp.call('chat_history', { session_id: '00000000-0000-4000-8000-000000000000' });
      expect(notMine.body).toMatchObject({ status: 404, code: 'SVC_ERR_CHAT_SESSION_NOT_FOUND' });
    });
  });
});
