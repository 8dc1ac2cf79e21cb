/**
 * Every refusal the node can answer, by name (fastify's lib/errors.js is the model): a stable
 * `code` per situation, not per status, each with the one status it is answered with. Error
 * bodies are `{"detail": ..., "code": ...}`; clients branch on `code`, show `detail`.
 *
 * The catalogue is split by where the situation arises (common: the HTTP edge and auth; one file
 * per surface) and joined here. docs/errors.md lists every code (a test keeps the two equal).
 */
import { z } from 'zod';
import { coreErrors } from './core/errors.ts';
import { federationErrors } from './core/federation-errors.ts';
import { docsErrors } from './docs/errors.ts';
import { libraryErrors } from './library/errors.ts';
import { nodeErrors } from './node/errors.ts';
import { defineErrors } from './error-catalogue.ts';

export { defineErrors, type ErrorEntry } from './error-catalogue.ts';

/** Situations any route can meet: parsing, validation, limits, authentication, routing. */
export const commonErrors = defineErrors({
  SVC_ERR_MALFORMED_JSON: { status: 400, summary: 'The body is not JSON, or not the JSON the route takes' },
  SVC_ERR_JSON_TOO_DEEP: { status: 400, summary: 'The JSON body nests arrays and objects deeper than the node reads' },
  SVC_ERR_MALFORMED_REQUEST: { status: 400, summary: 'The request cannot be parsed (bad URL, bad encoding, bad HTTP)' },
  SVC_ERR_VALIDATION: { status: 422, summary: "The request breaks the route's schema; detail lists each problem as {loc, msg, type}" },
  SVC_ERR_BODY_TOO_LARGE: { status: 413, summary: "The body is over the route's size limit" },
  SVC_ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: "The body's content type is not one the route takes" },
  SVC_ERR_ROUTE_NOT_FOUND: { status: 404, summary: 'No route has this method and path' },
  SVC_ERR_REQUEST_TIMEOUT: { status: 408, summary: 'The request was not received in time' },
  SVC_ERR_RESPONSE_TIMEOUT: { status: 503, summary: 'The peer listener could not answer the request in the time it gives one; try again after Retry-After' },
  SVC_ERR_HEADERS_TOO_LARGE: { status: 431, summary: 'The request headers are too large' },
  SVC_ERR_HOST_REFUSED: { status: 403, summary: "The Host or Origin header is not this node's" },
  SVC_ERR_RATE_LIMITED: { status: 429, summary: 'Too many requests from this client; Retry-After says when to try again' },
  SVC_ERR_AUTH_MISSING: { status: 401, summary: 'The route needs credentials and none were sent' },
  SVC_ERR_AUTH_INVALID: { status: 401, summary: 'The credentials are malformed, unknown or revoked' },
  SVC_ERR_SIGNATURE_INVALID: { status: 401, summary: 'A signature does not verify against the key it names' },
  SVC_ERR_TIMESTAMP_INVALID: { status: 401, summary: "A signed request's timestamp is missing, malformed or outside the allowed skew" },
  SVC_ERR_REPLAYED: {
    status: 401,
    summary: 'A signature was already used, by another request (an identical signed write repeated gets its first answer instead)',
  },
  SVC_ERR_REPLAY_ANSWER_UNAVAILABLE: {
    status: 409,
    summary:
      'An identical signed write was already received and ran at most once, but its first answer is not available to repeat (too large to keep, no longer kept, or the node stopped before answering); check the state, then sign a new request',
  },
  SVC_ERR_OWNER_TOKEN_REQUIRED: { status: 401, summary: "The route is the node owner's, and the request does not carry the owner token" },
  SVC_ERR_API_KEY_WRONG_KIND: {
    status: 403,
    summary: 'The API key is not the kind the route takes: an identity key where a project-authority key is needed, or the other way round',
  },
  SVC_ERR_TEAM_ENVELOPE_MALFORMED: {
    status: 401,
    summary: 'The team-auth signed payload (X-SVC-Signed-Payload) is missing, not canonical JSON, or of an unsupported version',
  },
  SVC_ERR_TEAM_ENVELOPE_MISMATCH: {
    status: 401,
    summary: 'The team-auth signed payload does not pin this request (method, target, body hash, timestamp, audience or team differ)',
  },
  SVC_ERR_TEAM_CERTIFICATE_INVALID: { status: 401, summary: 'The team certificate is missing, malformed, or not for the key that signed the request' },
  SVC_ERR_TEAM_CERTIFICATE_UNKNOWN: {
    status: 401,
    summary: 'The team certificate is not one this node issued: its team is unknown here, the team key did not sign it, or the node has no record of it',
  },
  SVC_ERR_TEAM_CERTIFICATE_REVOKED: { status: 401, summary: 'The team certificate has been revoked' },
  SVC_ERR_SCOPE_MISSING: { status: 403, summary: 'The credentials are valid but lack the scope the route needs' },
  SVC_ERR_INTERNAL: { status: 500, summary: 'A fault in the node (never caused by the request); it is logged' },
});

export const errorCatalogue = { ...commonErrors, ...coreErrors, ...federationErrors, ...nodeErrors, ...libraryErrors, ...docsErrors };

export type ErrorCode = keyof typeof errorCatalogue;
export const ERROR_CODES = Object.keys(errorCatalogue) as [ErrorCode, ...ErrorCode[]];

/** The codes answered with status `S`: what a throw site for that status may name. */
export type ErrorCodeWithStatus<S extends number> = {
  [K in ErrorCode]: (typeof errorCatalogue)[K]['status'] extends S ? K : never;
}[ErrorCode];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCatalogue, value);
}

/** One validation problem: where (`body`, `query`, `path`, `header`, then the field path), what, which rule. */
export const ValidationIssue = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export type ValidationIssue = z.output<typeof ValidationIssue>;

/**
 * Every error body. `detail` is a sentence, a 422's list of issues, or (the document surface's cap
 * refusal, in upstream's shape) an object whose `message` is the sentence.
 */
export const ErrorBody = z.object({
  detail: z.union([z.string(), z.array(ValidationIssue), z.looseObject({ message: z.string() })]),
  code: z.enum(ERROR_CODES),
});
export type ErrorBody = z.output<typeof ErrorBody>;
