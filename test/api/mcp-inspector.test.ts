/**
 * The MCP Inspector's CLI (support/inspector.ts) against a node, as a developer points it at
 * one: its transport found from the URL, the tools listed, tools called (its SDK 1.x client
 * checks each structured result against the tool's output schema), and no resources.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runInspector } from '../support/inspector.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
let alice: { agent_id: string; api_key: string };

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});
beforeAll(async () => {
  await t.owner('POST', '/v1/node/namespaces', { domain: 'inspector.test' });
  const projectKey = (await t.owner('POST', '/v1/node/projects', { slug: 'inspector', namespace: 'inspector.test' })).body.api_key;
  const init = async (name: string) => (await t.request('POST', '/v1/workspaces/init', { token: projectKey, body: { lifetime: 'persistent', name } })).body;
  alice = await init('alice');
  await init('bob');
  const sent = await t.request('POST', '/v1/messages', {
    token: alice.api_key,
    body: { to_alias: 'bob', subject: 'The contract', body: 'Signed contract attached' },
  });
  expect(sent.status).toBe(200);
});

describe('the MCP Inspector CLI', () => {
  it('finds Streamable HTTP on /mcp and lists every tool with its output schema', async () => {
    const listed = await runInspector(`${t.url}/mcp`, alice.api_key, ['--method', 'tools/list']);
    expect(listed.code, listed.stderr).toBe(0);
    const tools = listed.json.tools as { name: string; outputSchema?: { type?: string } }[];
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['whoami', 'send_mail', 'chat_send', 'search']));
    for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe('object');
  });

  it('finds no portability problem in any tool schema (--strict)', async () => {
    const strict = await runInspector(`${t.url}/mcp`, alice.api_key, ['--method', 'tools/list', '--strict']);
    expect(strict.code, strict.stderr).toBe(0);
    // With --strict every problem is written out in full (Warning:/Error: blocks); none may appear.
    expect(strict.stderr).not.toMatch(/^(Warning|Error):/m);
    expect(strict.json.tools.length).toBeGreaterThan(10);
  });

  it('calls tools, and accepts their structured results: a search with hits too', async () => {
    const whoami = await runInspector(`${t.url}/mcp`, alice.api_key, ['--method', 'tools/call', '--tool-name', 'whoami']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.json.structuredContent).toMatchObject({ agent_id: alice.agent_id, alias: 'alice', address: 'inspector.test/alice' });

    const search = await runInspector(`${t.url}/mcp`, alice.api_key, ['--method', 'tools/call', '--tool-name', 'search', '--tool-arg', 'query=contract']);
    expect(search.code, search.stderr).toBe(0);
    const [hit] = search.json.structuredContent.results;
    expect(hit).toMatchObject({ kind: 'mail', title: 'The contract', folder: 'sent' });
    expect(hit.highlights.map(([start, end]: [number, number]) => hit.snippet.slice(start, end))).toEqual(['contract']);
  });

  it('reaches /mcp/ too, given the transport: it tells the transport from the URL ending in /mcp alone', async () => {
    const whoami = await runInspector(`${t.url}/mcp/`, alice.api_key, ['--transport', 'http', '--method', 'tools/call', '--tool-name', 'whoami']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.json.structuredContent).toMatchObject({ alias: 'alice' });
  });

  it('finds no resources: the node offers tools only', async () => {
    const resources = await runInspector(`${t.url}/mcp`, alice.api_key, ['--method', 'resources/list']);
    expect(resources.code, resources.stderr).toBe(0);
    expect(resources.json).toEqual({ resources: [] });
  });
});
