/**
 * The official MCP clients, connected over real HTTP with an identity's API key: the newer
 * `@modelcontextprotocol/client` (2.x) and `@modelcontextprotocol/sdk` 1.x, which most hosts
 * still embed. They check a tool's structured result against its output schema with different
 * validators (1.x reads schemas as draft-07), so every MCP suite runs with both.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Each MCP suite runs once per client: `describe.each(MCP_CLIENTS)`. */
export const MCP_CLIENTS = ['client 2.x', 'sdk 1.x'] as const;
export type McpClientName = (typeof MCP_CLIENTS)[number];

export interface McpTool {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, object> };
  outputSchema?: { type?: unknown; properties?: Record<string, object> };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export interface McpToolResult {
  isError?: boolean;
  content: unknown[];
  structuredContent?: Record<string, unknown>;
}

export interface McpCallOptions {
  timeout?: number;
  resetTimeoutOnProgress?: boolean;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  signal?: AbortSignal;
}

/** What the suites use of either client, called the same way. */
export interface McpClient {
  listTools(): Promise<{ tools: McpTool[] }>;
  /** Checks the structured result against the tool's output schema, as the client does for a host. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }, options?: McpCallOptions): Promise<McpToolResult>;
  serverCapabilities(): { tools?: { listChanged?: boolean }; resources?: object } | undefined;
  close(): Promise<void>;
}

export interface McpSession {
  name: McpClientName;
  client: McpClient;
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

async function connectClient(name: McpClientName, url: URL, apiKey: string): Promise<McpClient> {
  const requestInit = { headers: { authorization: `Bearer ${apiKey}` } };
  const info = { name: `svc-node-test (${name})`, version: '1.0.0' };
  if (name === 'sdk 1.x') {
    const client = new ClientV1(info);
    await client.connect(new StreamableHTTPClientTransportV1(url, { requestInit }));
    return {
      listTools: async () => ({ tools: (await client.listTools()).tools as McpTool[] }),
      callTool: async (params, options) => (await client.callTool(params, undefined, options)) as McpToolResult,
      serverCapabilities: () => client.getServerCapabilities(),
      close: () => client.close(),
    };
  }
  const client = new Client(info);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return {
    listTools: async () => ({ tools: (await client.listTools()).tools as McpTool[] }),
    callTool: async (params, options) => (await client.callTool(params, options)) as McpToolResult,
    serverCapabilities: () => client.getServerCapabilities(),
    close: () => client.close(),
  };
}

export interface ConnectOptions {
  /** The node serves `/mcp` (the documented URL) and `/mcp/` alike. */
  path?: '/mcp' | '/mcp/';
  client?: McpClientName;
}

/**
 * Connects and lists the tools, as a host does: SDK 1.x checks structured results only against
 * the output schemas of tools it has listed.
 */
export async function connectMcp(coreUrl: string, apiKey: string, { path = '/mcp/', client: name = 'client 2.x' }: ConnectOptions = {}): Promise<McpSession> {
  const client = await connectClient(name, new URL(path, coreUrl), apiKey);
  await client.listTools();
  return {
    name,
    client,
    async call(tool, args = {}) {
      const result = await client.callTool({ name: tool, arguments: args });
      const [first] = result.content as { type: string; text: string }[];
      return { isError: result.isError === true, body: first ? parseText(first.text) : null };
    },
    close: () => client.close(),
  };
}
