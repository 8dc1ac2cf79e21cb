/**
 * Everything /mcp needs from the MCP SDK, in one module that routes.ts imports only when the
 * first /mcp request arrives: the SDK costs about 200 ms to import, and most runs of the node
 * never see an MCP client.
 */
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { recordHijackedAnswer } from '../../../http/signed-writes.ts';
import { callerOf, cancelledIn, requestIdsIn, type InFlightRequests } from './cancellation.ts';
import type { ToolContext } from './tools/context.ts';
import { createMcpServer } from './server.ts';
import { answersAsStream } from './streaming.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The SDK's own Host check (on top of the listener's guard): an onRequest hook. */
export const checkHost = hostHeaderValidation(LOOPBACK_NAMES);
/** The SDK's own Origin check: an onRequest hook. */
export const checkOrigin = originValidation(LOOPBACK_NAMES);

/**
 * Answers one POST with a fresh server and transport (stateless Streamable HTTP): as JSON, or as
 * an SSE stream for a request that may wait (streaming.ts). The stream ends with the answer; a
 * client that goes away, or cancels the request in a later POST (cancellation.ts), closes the
 * transport, which cancels the tool's wait.
 */
export async function handleMcp(context: ToolContext, inFlight: InFlightRequests, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const caller = callerOf(context.principal);
  for (const id of cancelledIn(request.body)) inFlight.cancel(caller, id);
  const server = createMcpServer(context);
  const streams = answersAsStream(request.body);
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streams });
  await server.connect(transport);
  // Only an answer that streams can be cancelled: it is the one that waits, and closing ends its
  // stream. A JSON answer comes at once, and is written only when every request in it is
  // answered: closing it midway would leave it unwritten.
  const forget = streams ? inFlight.track(caller, requestIdsIn(request.body), () => void transport.close()) : () => {};
  reply.raw.on('close', () => {
    forget();
    void transport.close();
    void server.close();
  });
  // A DIDKey-signed call is a signed write: its repeat gets this answer (onSend never sees it).
  recordHijackedAnswer(request, reply);
  reply.hijack();
  await transport.handleRequest(request.raw, reply.raw, request.body);
}
