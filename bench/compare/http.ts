/**
 * The one way the comparison talks to a node: a request whose answer is read to the end, and
 * anything but a 2xx is an error naming the request, since a refused call timed as fast as a real
 * one would make either tree look better than it is.
 */
export class NodeRequestError extends Error {
  override name = 'NodeRequestError';
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Sends `request` to `url` and returns the parsed JSON answer (null for an empty one). A body is
 * JSON unless the headers say otherwise.
 */
export async function call<T = unknown>(url: string, request: CallOptions = {}): Promise<T> {
  const method = request.method ?? 'GET';
  const headers = request.body === undefined ? { ...request.headers } : { 'content-type': 'application/json', ...request.headers };
  const response = await fetch(url, { method, headers, ...(request.body === undefined ? {} : { body: request.body }) });
  const text = await response.text();
  if (!response.ok) throw new NodeRequestError(`${method} ${url}: ${response.status} ${text.slice(0, 500)}`);
  return (text === '' ? null : JSON.parse(text)) as T;
}

/** The owner token or an identity's API key, as the node reads either. */
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
