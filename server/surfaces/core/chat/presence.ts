/**
 * Who has a chat session's stream open right now (upstream's "waiting" set): what
 * `sender_waiting` and `targets_connected` mean. In memory: a stream lives in this process, and
 * a restart closes every stream, so nothing stale can outlive its connection.
 */
export class ChatPresence {
  /** session_id → agent_id → number of open streams. */
  readonly #sessions = new Map<string, Map<string, number>>();

  /** Marks `agentId` connected to `sessionId` until the returned function is called (once). */
  connect(sessionId: string, agentId: string): () => void {
    let viewers = this.#sessions.get(sessionId);
    if (!viewers) {
      viewers = new Map();
      this.#sessions.set(sessionId, viewers);
    }
    viewers.set(agentId, (viewers.get(agentId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const current = this.#sessions.get(sessionId);
      const count = current?.get(agentId) ?? 0;
      if (!current || count <= 1) {
        current?.delete(agentId);
        if (current?.size === 0) this.#sessions.delete(sessionId);
      } else {
        current.set(agentId, count - 1);
      }
    };
  }

  isConnected(sessionId: string, agentId: string): boolean {
    return (this.#sessions.get(sessionId)?.get(agentId) ?? 0) > 0;
  }
}
