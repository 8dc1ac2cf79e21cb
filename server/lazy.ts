/**
 * A module loaded at first use rather than at start: heavy dependencies that only some requests
 * need (the MCP SDK, the Markdown renderer) would otherwise slow every start of the node.
 * Concurrent first callers share one import; a failed import is retried by the next caller.
 */
export function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };
}
