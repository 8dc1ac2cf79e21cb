/**
 * The transport of the two team surfaces (library and documents): the renderer holds no keys, so
 * for each request it asks the node (owner API, `NodeClient.signAsTeam`) to sign the exact
 * method, request target and body as the team's owner member, then sends that request itself
 * with the returned headers. A signature works once, so every call signs afresh.
 */
import { fetchJson } from './http.ts';
import type { SignedTeamRequest, TeamRequestToSign } from './owner.ts';
import type { FetchLike } from './sse.ts';

/** Signs one request as a team member; NodeClient.signAsTeam for the owner member. */
export type TeamSigner = (request: TeamRequestToSign) => Promise<SignedTeamRequest>;

export type Method = TeamRequestToSign['method'];

/** A request body as sent: JSON, or raw text with its own content type (Markdown appends). */
export type RequestBody = { json: unknown } | { text: string; contentType: string };

/** Signs exactly what is sent (target with its query, body text), then sends it once. */
export async function sendSigned<T>(fetchImpl: FetchLike, sign: TeamSigner, method: Method, path: string, body?: RequestBody): Promise<T> {
  const text = body === undefined ? undefined : 'json' in body ? JSON.stringify(body.json) : body.text;
  const signed = await sign(text === undefined ? { method, path } : { method, path, body: text });
  const headers: Record<string, string> = { accept: 'application/json', ...signed.headers };
  if (body !== undefined) headers['content-type'] = 'json' in body ? 'application/json' : body.contentType;
  return fetchJson<T>(fetchImpl, signed.url, { method, headers, body: text });
}
