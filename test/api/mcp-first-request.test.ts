/**
 * The MCP SDK is imported at the first /mcp request (server/surfaces/core/mcp/routes.ts), not at
 * start. This file's node has served no MCP request before: several arriving at once must all be
 * answered, and a refused one still gets the normal JSON error.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
let apiKey: string;

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});
beforeAll(async () => {
  await t.owner('POST', '/v1/node/namespaces', { domain: 'mcp-first.test' });
  const projectKey = (await t.owner('POST', '/v1/node/projects', { slug: 'mcp-first', namespace: 'mcp-first.test' })).body.api_key;
  apiKey = (await t.request('POST', '/v1/workspaces/init', { token: projectKey, body: { lifetime: 'persistent', name: 'first' } })).body.api_key;
});

const initialize = (id: number, token?: string): Promise<Response> =>
  fetch(`${t.url}/mcp/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'first-request', version: '1.0.0' } },
    }),
  });

describe('MCP first requests', () => {
  it('answers concurrent first requests, and refuses a keyless one with the JSON error', async () => {
    const responses = await Promise.all([initialize(1), ...[2, 3, 4, 5].map((id) => initialize(id, apiKey))]);
    const [refused, ...answered] = responses;
    expect(refused!.status).toBe(401);
    expect(await refused!.json()).toEqual({ detail: 'Authentication required', code: 'SVC_ERR_AUTH_MISSING' });
    for (const [index, response] of answered.entries()) {
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: index + 2, result: { serverInfo: { name: 'svc-node' } } });
    }
  });
});
