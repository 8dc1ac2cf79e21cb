/**
 * MCP as real hosts use it, driven by the official SDK client over real HTTP: both
 * paths, GET/DELETE per the Streamable HTTP transport, annotations and output schemas, a
 * chat_send wait that outlasts the client's request timeout thanks to progress notifications,
 * upstream's presence tools, and thread_id on send_mail. Once with each official client
 * (support/mcp.ts).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_WAIT_SECONDS, MAX_TOOL_WAIT_SECONDS } from '../../contract/core/mcp.ts';
import { connectMcp, MCP_CLIENTS, type McpSession } from '../support/mcp.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

interface Created {
  agent_id: string;
  api_key: string;
  alias: string;
}

/** Added to the node's clock: moves presence past its lifetime without waiting half an hour. */
let clockOffsetMs = 0;

describe.each(MCP_CLIENTS)('with MCP %s', (client) => {
  let t: TestNode;
  let alice: Created;
  let bob: Created;
  let carol: Created;
  let outsider: Created;
  let mcp: McpSession;
  let bobMcp: McpSession;

  beforeAll(async () => {
    t = await startTestNode({ clock: { now: () => new Date(Date.now() + clockOffsetMs) } });
    return () => t.stop();
  });
  beforeAll(async () => {
    await t.owner('POST', '/v1/node/namespaces', { domain: 'hosts.test' });
    const projectKey = (await t.owner('POST', '/v1/node/projects', { slug: 'hosts', namespace: 'hosts.test' })).body.api_key;
    const init = async (key: string, name: string): Promise<Created> =>
      (await t.request('POST', '/v1/workspaces/init', { token: key, body: { lifetime: 'persistent', name } })).body;
    alice = await init(projectKey, 'alice');
    bob = await init(projectKey, 'bob');
    carol = await init(projectKey, 'carol');
    const otherKey = (await t.owner('POST', '/v1/node/projects', { slug: 'other' })).body.api_key;
    outsider = (await t.request('POST', '/v1/workspaces/init', { token: otherKey, body: { alias: 'outsider' } })).body;
    mcp = await connectMcp(t.url, alice.api_key, { path: '/mcp', client });
    return () => mcp.close();
  });
  beforeAll(async () => {
    bobMcp = await connectMcp(t.url, bob.api_key, { client });
    return () => bobMcp.close();
  });

  const post = (path: string, body: unknown, key = alice.api_key): Promise<Response> =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });

  const callTool = (id: number, name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });

  describe('the transport', () => {
    it('serves /mcp (the documented URL) and /mcp/ alike', async () => {
      expect((await mcp.call('whoami')).body.agent_id).toBe(alice.agent_id);
      expect((await bobMcp.call('whoami')).body.agent_id).toBe(bob.agent_id);
    });

    it('answers GET and DELETE with 405 (Allow: POST) on both paths, and advertises no listChanged', async () => {
      for (const path of ['/mcp', '/mcp/']) {
        for (const method of ['GET', 'DELETE']) {
          const response = await fetch(`${t.url}${path}`, { method, headers: { authorization: `Bearer ${alice.api_key}`, accept: 'text/event-stream' } });
          expect(response.status, `${method} ${path}`).toBe(405);
          expect(response.headers.get('allow')).toBe('POST');
          expect(await response.json()).toMatchObject({ code: 'SVC_ERR_MCP_METHOD_NOT_ALLOWED' });
        }
        expect((await fetch(`${t.url}${path}`, { headers: { accept: 'text/event-stream' } })).status).toBe(401);
      }
      expect(mcp.client.serverCapabilities()?.tools?.listChanged).not.toBe(true);
    });

    it('answers a waiting chat_send as an SSE stream, and other calls as JSON', async () => {
      const quick = await post('/mcp', callTool(1, 'whoami', {}));
      expect(quick.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await quick.json()) as { result: { structuredContent: { agent_id: string } } }).result.structuredContent.agent_id).toBe(alice.agent_id);

      const waiting = await post('/mcp/', callTool(2, 'chat_send', { to_alias: 'carol', message: 'streamed?', wait: true, wait_seconds: 1 }));
      expect(waiting.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const frames = (await waiting.text()).split('\n').filter((line) => line.startsWith('data: '));
      const answer = JSON.parse(frames.at(-1)!.slice('data: '.length));
      expect(answer).toMatchObject({ id: 2, result: { structuredContent: { status: 'timeout' } } });
    });
  });

  describe('tool descriptions', () => {
    it('give every tool its annotations and an output schema', async () => {
      const { tools } = await mcp.client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(20);
      for (const tool of tools) {
        const hints = tool.annotations ?? {};
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
          expect(typeof hints[hint], `${tool.name}.${hint}`).toBe('boolean');
        }
        expect(tool.outputSchema?.type, `${tool.name} outputSchema`).toBe('object');
      }
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      for (const read of ['whoami', 'check_inbox', 'list_sent', 'chat_pending', 'chat_history', 'contacts_list', 'resolve_address', 'list_agents']) {
        expect(byName.get(read)?.annotations, read).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      }
      for (const destructive of ['delete_message', 'contacts_remove']) {
        expect(byName.get(destructive)?.annotations, destructive).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      }
      expect(byName.get('send_mail')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
      expect(byName.get('send_mail')?.outputSchema?.properties).toHaveProperty('messages');
    });

    it('give chat_send one truth for its wait: a default inside a 60 s client timeout, and the maximum its description names', async () => {
      const { tools } = await mcp.client.listTools();
      const chatSend = tools.find((tool) => tool.name === 'chat_send')!;
      const waitSeconds = (chatSend.inputSchema.properties as Record<string, { default?: number; maximum?: number }>).wait_seconds!;
      expect(waitSeconds.default).toBe(DEFAULT_TOOL_WAIT_SECONDS);
      expect(waitSeconds.default).toBeLessThanOrEqual(60);
      expect(waitSeconds.maximum).toBe(MAX_TOOL_WAIT_SECONDS);
      expect(chatSend.description).toContain(`at most ${MAX_TOOL_WAIT_SECONDS}`);
      const tooLong = await mcp.call('chat_send', { to_alias: 'bob', message: 'x', wait: true, wait_seconds: MAX_TOOL_WAIT_SECONDS + 1 });
      expect(tooLong.isError).toBe(true);
    });
  });

  describe('chat_send waiting longer than the client waits for a request', () => {
    it('keeps the call alive with progress notifications until the reply', async () => {
      const progress: { progress: number; total?: number }[] = [];
      const started = Date.now();
      const call = mcp.client.callTool(
        { name: 'chat_send', arguments: { to_alias: 'bob', message: 'still with me?', wait: true, wait_seconds: 30 } },
        { timeout: 2000, resetTimeoutOnProgress: true, onprogress: (p) => void progress.push(p) },
      );
      await expect
        .poll(
          async () =>
            (await bobMcp.call('chat_pending')).body.pending.find((p: { last_message: string }) => p.last_message === 'still with me?')?.sender_waiting,
          { timeout: 5000 },
        )
        .toBe(true);
      const sessionId = (await bobMcp.call('chat_pending')).body.pending.find((p: { last_message: string }) => p.last_message === 'still with me?').session_id;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 4500 - (Date.now() - started))));
      await bobMcp.call('chat_send', { session_id: sessionId, message: 'yes, here' });
      const result = await call;
      expect(Date.now() - started).toBeGreaterThan(4000);
      expect(result.isError).not.toBe(true);
      expect(result.structuredContent).toMatchObject({ status: 'replied', session_id: sessionId, reply: { body: 'yes, here', from_alias: 'bob' } });
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(progress.map((p) => p.progress)).toEqual([...progress.keys()].map((index) => index + 1));
      expect(progress[0]!.total).toBe(30);
    });

    it('ends the wait when the client goes away', async () => {
      const leaving = await connectMcp(t.url, carol.api_key, { client });
      void leaving.call('chat_send', { to_alias: 'bob', message: 'gone soon', wait: true, wait_seconds: 60 }).catch(() => {});
      const waitingFor = async () =>
        (await bobMcp.call('chat_pending')).body.pending.find((p: { last_message: string }) => p.last_message === 'gone soon')?.sender_waiting;
      await expect.poll(waitingFor, { timeout: 5000 }).toBe(true);
      await leaving.close();
      await expect.poll(waitingFor, { timeout: 5000 }).toBe(false);
    });

    it('ends the wait at once when the client cancels the call and stays connected: its request timeout, or its host stopping it', async () => {
      // The cancellation arrives in a POST of its own (notifications/cancelled), while the
      // client keeps the call's stream open: the wait must end then, not at its 60 s deadline.
      const session = await connectMcp(t.url, carol.api_key, { client });
      const waitingFor = (message: string) => async () =>
        (await bobMcp.call('chat_pending')).body.pending.find((p: { last_message: string }) => p.last_message === message)?.sender_waiting;
      try {
        const timedOut = session.client.callTool(
          { name: 'chat_send', arguments: { to_alias: 'bob', message: 'timing out', wait: true, wait_seconds: 60 } },
          { timeout: 5000 },
        );
        const rejected = expect(timedOut).rejects.toThrow(/timed out/i);
        await expect.poll(waitingFor('timing out'), { timeout: 4500 }).toBe(true);
        await rejected;
        await expect.poll(waitingFor('timing out'), { timeout: 3000 }).toBe(false);

        const controller = new AbortController();
        const stopped = session.client.callTool(
          { name: 'chat_send', arguments: { to_alias: 'bob', message: 'stopping', wait: true, wait_seconds: 60 } },
          { signal: controller.signal },
        );
        await expect.poll(waitingFor('stopping'), { timeout: 5000 }).toBe(true);
        controller.abort(new Error('the user pressed stop'));
        await expect(stopped).rejects.toThrow();
        await expect.poll(waitingFor('stopping'), { timeout: 3000 }).toBe(false);

        // The client is still connected, and its next call is answered.
        expect((await session.call('whoami')).body.alias).toBe('carol');
      } finally {
        await session.close();
      }
    });

    it("matches a cancellation to the caller's own request: another identity's, or another id, ends nothing", async () => {
      const waitingFor = async () =>
        (await bobMcp.call('chat_pending')).body.pending.find((p: { last_message: string }) => p.last_message === 'cancel me')?.sender_waiting;
      const response = await post('/mcp', callTool(77, 'chat_send', { to_alias: 'bob', message: 'cancel me', wait: true, wait_seconds: 30 }));
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const answer = response.text();
      await expect.poll(waitingFor, { timeout: 5000 }).toBe(true);
      const cancel = (requestId: number | string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'stop' } });
      expect((await post('/mcp', cancel(77), carol.api_key)).status).toBe(202);
      // JSON-RPC ids 77 and "77" are different requests.
      expect((await post('/mcp/', cancel('77'))).status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await waitingFor()).toBe(true);
      expect((await post('/mcp/', cancel(77))).status).toBe(202);
      await expect.poll(waitingFor, { timeout: 3000 }).toBe(false);
      // The exchange ends with no answer: the request was cancelled.
      expect(await answer).not.toMatch(/"result"/);
    });
  });

  describe('presence: list_agents and heartbeat', () => {
    type Listed = { alias: string; online: boolean; last_seen: string | null };
    const listed = async (session = mcp): Promise<Map<string, Listed>> => {
      const result = await session.call('list_agents');
      expect(result.isError).toBe(false);
      return new Map((result.body.agents as Listed[]).map((agent) => [agent.alias, agent]));
    };

    it("lists the caller's project only, with upstream's fields", async () => {
      const result = await mcp.call('list_agents');
      expect(result.body.project_id).toEqual(expect.any(String));
      expect(result.body.agents.map((agent: { alias: string }) => agent.alias)).toEqual(['alice', 'bob', 'carol']);
      expect(result.body.agents[1]).toMatchObject({
        agent_id: bob.agent_id,
        alias: 'bob',
        agent_type: 'agent',
        lifetime: 'persistent',
        status: 'active',
        access_mode: 'open',
        address: 'hosts.test/bob',
        online: false,
      });
      expect(result.body.agents.map((agent: { agent_id: string }) => agent.agent_id)).not.toContain(outsider.agent_id);
    });

    it('shows an identity online after a heartbeat, until the presence lifetime passes', async () => {
      const beat = await bobMcp.call('heartbeat');
      expect(beat.body).toEqual({ agent_id: bob.agent_id, alias: 'bob', last_seen: expect.any(String), ttl_seconds: 1800 });
      expect((await listed()).get('bob')).toMatchObject({ online: true, last_seen: beat.body.last_seen });
      clockOffsetMs = 1801 * 1000;
      try {
        expect((await listed()).get('bob')).toMatchObject({ online: false, last_seen: beat.body.last_seen });
      } finally {
        clockOffsetMs = 0;
      }
    });

    it('shows an identity online while its event stream is open', async () => {
      expect((await listed()).get('carol')?.online).toBe(false);
      const controller = new AbortController();
      const deadline = new Date(Date.now() + 60_000).toISOString();
      const stream = await fetch(`${t.url}/v1/events/stream?deadline=${encodeURIComponent(deadline)}`, {
        headers: { authorization: `Bearer ${carol.api_key}`, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      expect(stream.status).toBe(200);
      try {
        expect((await listed(bobMcp)).get('carol')?.online).toBe(true);
      } finally {
        controller.abort();
      }
      await expect.poll(async () => (await listed()).get('carol')?.online, { timeout: 5000 }).toBe(false);
      expect((await listed()).get('carol')?.last_seen).toEqual(expect.any(String));
    });
  });

  describe('send_mail thread_id', () => {
    it('sends mail in a thread, which the recipient sees', async () => {
      const thread = randomUUID();
      const sent = await mcp.call('send_mail', { to: 'bob', subject: 'threaded', body: 'first', thread_id: thread });
      expect(sent.isError).toBe(false);
      expect(sent.body).toMatchObject({ status: 'delivered', thread_id: thread });
      const inbox = await bobMcp.call('check_inbox', { unread_only: true });
      expect(inbox.body.messages.find((m: { message_id: string }) => m.message_id === sent.body.message_id)).toMatchObject({ thread_id: thread });
      const unthreaded = await mcp.call('send_mail', { to: 'bob', body: 'no thread' });
      expect(unthreaded.body.thread_id).toBeNull();
      const bad = await mcp.call('send_mail', { to: 'bob', body: 'x', thread_id: 'not-a-uuid' });
      expect(bad).toMatchObject({ isError: true, body: { status: 422 } });
    });
  });
});
