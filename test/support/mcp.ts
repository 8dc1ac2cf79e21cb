/**
 * The official MCP client, connected over real HTTP with an identity's API key.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export interface McpSession {
  client: Client;
  /** Calls a tool and returns its JSON result (or the error result's JSON, or text, with `isError`). */
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; body: any }>;
  close(): Promise<void>;
}

/** Tool results are JSON; the SDK's own argument-validation errors are plain text. */
function parseText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `path`: the node serves `/mcp` (the documented URL) and `/mcp/` alike. */
export async function connectMcp(coreUrl: string, apiKey: string, path: '/mcp' | '/mcp/' = '/mcp/'): Promise<McpSession> {
  const client = new Client({ name: 'svc-node-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(path, coreUrl), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  return {
    client,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const [first] = result.content as { type: string; text: string }[];
      return { isError: result.isError === true, body: first ? parseText(first.text) : null };
    },
    close: () => client.close(),
  };
}
