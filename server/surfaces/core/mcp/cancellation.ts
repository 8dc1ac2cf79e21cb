/**
 * Cancellation across POSTs. The server is stateless: every POST gets a fresh server and
 * transport (runtime.ts), so the `notifications/cancelled` a client sends when it gives up on a
 * request (its request timeout, or its host's stop button) arrives in a POST of its own, at a
 * server that never saw the request, and the SDK's cancellation (which looks only at its own
 * server's requests) finds nothing. A cancelled `chat_send` wait ran on to its deadline, the other
 * side seeing `sender_waiting`, because the client keeps the request's stream open until it
 * disconnects.
 *
 * So the node keeps the MCP requests it is answering as a stream (the ones that wait:
 * streaming.ts), by caller and JSON-RPC id, and a cancellation ends the exchange (the POST) that
 * carries its request: closing the transport aborts the request's signal (`ctx.mcpReq.signal`),
 * which ends the wait, and ends the stream, which the SDK would otherwise hold open (it answers
 * no cancelled request).
 *
 * A caller is an identity and the credential it used. With no session, nothing tells apart two
 * clients that share one key: a cancellation from one ends the other's in-flight request if it
 * has the same id. Both are that identity's own requests.
 */
import type { IdentityPrincipal } from '../../../auth/bearer.ts';

/** JSON-RPC ids: 1 and "1" are different requests. */
type RequestId = string | number;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isRequestId = (value: unknown): value is RequestId => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

function messagesOf(body: unknown): Record<string, unknown>[] {
  return (Array.isArray(body) ? body : [body]).filter(isRecord);
}

/** The ids of the requests a POSTed body (one JSON-RPC message or a batch) carries. */
export function requestIdsIn(body: unknown): RequestId[] {
  return messagesOf(body)
    .filter((message) => typeof message.method === 'string' && isRequestId(message.id))
    .map((message) => message.id as RequestId);
}

/** The requests a POSTed body cancels. */
export function cancelledIn(body: unknown): RequestId[] {
  return messagesOf(body)
    .filter((message) => message.method === 'notifications/cancelled' && isRecord(message.params) && isRequestId(message.params.requestId))
    .map((message) => (message.params as { requestId: RequestId }).requestId);
}

export function callerOf(principal: IdentityPrincipal): string {
  return `${principal.agentId}\u0000${principal.apiKeyId}`;
}

const keyOf = (caller: string, id: RequestId): string => `${caller}\u0000${typeof id}\u0000${id}`;

/** The node's MCP requests in flight (one registry per node: routes.ts). */
export class InFlightRequests {
  readonly #byKey = new Map<string, Set<() => void>>();

  /**
   * Notes the requests one exchange carries; `end` closes that exchange. Returns the function
   * that forgets them, called when the exchange ends.
   */
  track(caller: string, ids: readonly RequestId[], end: () => void): () => void {
    const keys = ids.map((id) => keyOf(caller, id));
    for (const key of keys) {
      const ends = this.#byKey.get(key) ?? new Set();
      ends.add(end);
      this.#byKey.set(key, ends);
    }
    return () => {
      for (const key of keys) {
        const ends = this.#byKey.get(key);
        ends?.delete(end);
        if (ends?.size === 0) this.#byKey.delete(key);
      }
    };
  }

  /** Ends the exchanges carrying the caller's request with this id. */
  cancel(caller: string, id: RequestId): void {
    for (const end of [...(this.#byKey.get(keyOf(caller, id)) ?? [])]) end();
  }
}
