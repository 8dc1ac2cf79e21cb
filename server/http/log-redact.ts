/**
 * Request URLs as the log shows them. Some URLs carry a capability: a present link's token
 * (`/present/{token}`, and `/v1/present/{token}/revoke`) and a direct upload's one-time token
 * (`?token=`). They are replaced, so whoever can read the logs can neither open nor upload.
 * A search's words (`?q=`) are replaced too: they say what a person looked for in mail, chat and
 * documents, end-to-end encrypted mail included, and logs never carry what messages say.
 */
import type { FastifyRequest } from 'fastify';

const PRESENT_PAGE = /^(\/present\/)[^/?#]+/;
const PRESENT_API = /^(\/v1\/present\/)[A-Za-z0-9_-]{43}(?=\/|$|\?)/;
const TOKEN_PARAM = /([?&]token=)[^&#]*/g;
const QUERY_PARAM = /([?&]q=)[^&#]*/g;

export function redactUrl(url: string): string {
  return url
    .replace(PRESENT_PAGE, '$1[redacted]')
    .replace(PRESENT_API, '$1[redacted]')
    .replace(TOKEN_PARAM, '$1[redacted]')
    .replace(QUERY_PARAM, '$1[redacted]');
}

/** Fastify's request log fields, with the URL redacted. */
export function requestLogFields(request: FastifyRequest): Record<string, unknown> {
  return { method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip, remotePort: request.socket.remotePort };
}
