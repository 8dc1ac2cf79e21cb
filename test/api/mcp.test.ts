/**
 * MCP at /mcp/ driven by the SDK's own client over real HTTP.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpSession } from '../support/mcp.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
let alice: { agent_id: string; api_key: string; address: string; did_key: string; did_aw: string };
let projectKey: string;
let mcp: McpSession;

beforeAll(async () => {
  t = await startTestNode();
  await t.owner('POST', '/v1/node/namespaces', { domain: 'mcp.test' });
  projectKey = (await t.owner('POST', '/v1/node/projects', { slug: 'mcp', namespace: 'mcp.test' })).body.api_key;
  alice = (await t.request('POST', '/v1/workspaces/init', { token: projectKey, body: { lifetime: 'persistent', name: 'alice' } })).body;
  mcp = await connectMcp(t.url, alice.api_key);
});

afterAll(async () => {
  await mcp?.close();
  await t?.stop();
});

describe('MCP transport and auth', () => {
  it('lists the tools', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['whoami', 'resolve_address']));
  });

  it('refuses a missing or wrong key, and a project key', async () => {
    await expect(connectMcp(t.url, 'svc_sk_' + '0'.repeat(64))).rejects.toThrow();
    const response = await fetch(`${t.url}/mcp/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ detail: 'Authentication required' });
    await expect(connectMcp(t.url, projectKey)).rejects.toThrow();
  });

  it('refuses a rebinding Host with 403', async () => {
    const { port } = new URL(t.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp/', method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
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
    expect(missing).toEqual({ isError: true, body: { error: 'Address not found', status: 404 } });
    const malformed = await mcp.call('resolve_address', { address: 'no-slash' });
    expect(malformed.isError).toBe(true);
    expect(malformed.body.status).toBe(422);
  });
});
