/**
 * The request core every client shares (owner.ts, identity-keys.ts, team-request.ts): one JSON
 * request whose failure of any kind becomes an `ApiError` in plain words (errors.ts), and the
 * small URL helpers the clients build their targets with.
 */
import { ApiError, errorCode, errorIssues, errorMessage } from './errors.ts';
import type { FetchLike } from './sse.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * One request whose answer is JSON: a failure of any kind becomes an `ApiError` in plain words.
 * The team surfaces call it with their own signed headers (team-request.ts).
 */
export async function fetchJson<T>(
  fetchImpl: FetchLike,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | undefined },
): Promise<T> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: init.method,
      headers: init.headers,
      body: init.body,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, `Could not reach the node at ${new URL(url).origin}. Is it still running?`);
  }
  const data = await readJson(response);
  if (!response.ok) throw new ApiError(response.status, errorMessage(response.status, data), errorIssues(data), errorCode(data));
  if (data === null) throw new ApiError(response.status, 'The node sent an empty or unreadable answer.');
  return data as T;
}

/** A JSON request with a bearer credential (the owner token, or a session key; none for the code exchange). */
export function requestJson<T>(fetchImpl: FetchLike, url: string, method: HttpMethod, token: string | null, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetchJson<T>(fetchImpl, url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** `?a=1&b=2` from defined values; arrays repeat the key (`tags=a&tags=b`). */
export function query(params: Record<string, string | number | boolean | readonly string[] | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
