/**
 * Preloaded into the MCP Inspector CLI (support/inspector.ts): adds an identity's Authorization
 * header to its requests to the node under test. The Inspector the project installs (0.15) has no
 * option for request headers (later ones have `--header`), and /mcp takes no call without a key;
 * nothing else of the Inspector changes.
 */
const origin = process.env.SVC_TEST_MCP_ORIGIN;
const authorization = process.env.SVC_TEST_MCP_AUTHORIZATION;

if (origin !== undefined && authorization !== undefined) {
  const send = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.origin !== origin) return send(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('authorization', authorization);
    return send(input, { ...init, headers });
  };
}
