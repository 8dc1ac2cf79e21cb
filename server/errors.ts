/**
 * Every refusal the node makes, by name (fastify's lib/errors.js is the model).
 *
 * Handlers throw these; the one error handler in http/error-handler.ts turns them into
 * `{"detail": ...}` with the status below. The statuses follow DESIGN.md §5.
 */

export type ErrorDetail = string | ValidationIssue[];

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class ServiceError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly detail: ErrorDetail;
  /** Extra response headers, e.g. WWW-Authenticate or Retry-After. */
  readonly headers: Record<string, string>;

  constructor(statusCode: number, code: string, detail: ErrorDetail, headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.name = 'ServiceError';
    this.statusCode = statusCode;
    this.code = code;
    this.detail = detail;
    this.headers = headers;
  }
}

/** 400: the request cannot be parsed (malformed JSON, bad encoding). */
export const malformed = (detail: string) => new ServiceError(400, 'SVC_ERR_MALFORMED', detail);

/** 401: missing or bad credentials, signature or timestamp. */
export const unauthorized = (detail: string, scheme = 'Bearer') =>
  new ServiceError(401, 'SVC_ERR_UNAUTHORIZED', detail, { 'www-authenticate': scheme });

/**
 * A refusal whose `detail` is an object rather than a message (the document surface's cap refusal,
 * research B8: `{detail: {code, limit, current, max, ..., message}}`). Elsewhere (MCP, logs) it is
 * its `message`.
 */
export interface DetailObject {
  message: string;
  [key: string]: string | number | boolean | null;
}

export class DetailedServiceError extends ServiceError {
  readonly detailObject: Readonly<DetailObject>;

  constructor(statusCode: number, code: string, detail: DetailObject) {
    super(statusCode, code, detail.message);
    this.detailObject = detail;
  }
}

/** 402: over a configured billing cap. */
export const paymentRequired = (detail: string | DetailObject) =>
  typeof detail === 'string' ? new ServiceError(402, 'SVC_ERR_PAYMENT_REQUIRED', detail) : new DetailedServiceError(402, 'SVC_ERR_PAYMENT_REQUIRED', detail);

/** 403: authenticated but not allowed (wrong controller, wrong project, policy). */
export const forbidden = (detail: string) => new ServiceError(403, 'SVC_ERR_FORBIDDEN', detail);

/** 404: absent, or not visible to the caller. */
export const notFound = (detail: string) => new ServiceError(404, 'SVC_ERR_NOT_FOUND', detail);

/** 409: conflicts with stored state (duplicate name, stale base, wrong lifetime). */
export const conflict = (detail: string) => new ServiceError(409, 'SVC_ERR_CONFLICT', detail);

/** 413: body or field too large. */
export const tooLarge = (detail: string) => new ServiceError(413, 'SVC_ERR_TOO_LARGE', detail);

/** 415: the body's content type is not the one the route takes. */
export const unsupportedMediaType = (detail: string) => new ServiceError(415, 'SVC_ERR_UNSUPPORTED_MEDIA_TYPE', detail);

/** 422: well-formed but invalid. */
export const invalid = (detail: ErrorDetail) => new ServiceError(422, 'SVC_ERR_INVALID', detail);

/** 429: rate limited. */
export const rateLimited = (detail: string, retryAfterSeconds: number) =>
  new ServiceError(429, 'SVC_ERR_RATE_LIMITED', detail, { 'retry-after': String(retryAfterSeconds) });

/** 503: a dependency (DNS, a peer node) is down, or busy (then with a Retry-After). */
export const unavailable = (detail: string, retryAfterSeconds?: number) =>
  new ServiceError(503, 'SVC_ERR_UNAVAILABLE', detail, retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) });
