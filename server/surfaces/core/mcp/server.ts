/**
 * The MCP server an identity's agent talks to: one per request (stateless Streamable HTTP), its
 * tools bound to the identity whose key authenticated the request.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { NODE_VERSION } from '../../../version.ts';
import type { ToolContext } from './tools/context.ts';
import { registerChatTools } from './tools/chat.ts';
import { registerContactTools } from './tools/contacts.ts';
import { registerControlTools } from './tools/control.ts';
import { registerIdentityTools } from './tools/identity.ts';
import { registerMailTools } from './tools/mail.ts';
import { registerSearchTools } from './tools/search.ts';

export function createMcpServer(context: ToolContext): McpServer {
  const server = new McpServer(
    { name: 'svc-node', version: NODE_VERSION },
    {
      instructions: 'Mail, chat, contacts, control signals and search for the identity whose API key you use. Tool results are JSON.',
      // The tool list never changes while a client is connected, and (stateless) there is no
      // stream to announce a change on: GET /mcp answers 405.
      capabilities: { tools: { listChanged: false } },
    },
  );
  registerIdentityTools(server, context);
  registerMailTools(server, context);
  registerChatTools(server, context);
  registerContactTools(server, context);
  registerControlTools(server, context);
  registerSearchTools(server, context);
  return server;
}
