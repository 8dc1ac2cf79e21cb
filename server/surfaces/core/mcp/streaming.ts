/**
 * Which MCP requests are answered as an SSE stream rather than one JSON body (Streamable HTTP lets
 * the server choose per request): those that may wait, so the progress notifications sent while
 * they wait reach the client and keepalive comments hold the connection open. Today that is a
 * `chat_send` with `wait`; everything else answers at once, as JSON.
 */
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function waits(message: unknown): boolean {
  if (!isRecord(message) || message.method !== 'tools/call' || !isRecord(message.params)) return false;
  const { name, arguments: args } = message.params;
  return name === 'chat_send' && isRecord(args) && args.wait === true;
}

/** Whether the POSTed body (one JSON-RPC message or a batch) holds a request that may wait. */
export function answersAsStream(body: unknown): boolean {
  return Array.isArray(body) ? body.some(waits) : waits(body);
}
