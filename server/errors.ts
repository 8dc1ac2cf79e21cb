/**
 * Every refusal the node makes, by name (fastify's lib/errors.js is the model).
 *
 * Handlers throw these; the one error handler in http/error-handler.ts turns them into
 * `{"detail": ..., "code": ...}` with the status below (DESIGN.md §5). Each helper takes a code
 * from the catalogue in contract/errors.ts, and the compiler checks the code is one answered with
 * the helper's status: a code names the situation, the helper the status.
 */
import { errorCatalogue, type ErrorCode, type ErrorCodeWithStatus, type ValidationIssue } from '../contract/errors.ts';

export type { ErrorCode, ValidationIssue };
export type ErrorDetail = string | ValidationIssue[];

export class ServiceError extends Error {
  readonly statusCode: number;
  readonly code: ErrorCode;
  readonly detail: ErrorDetail;
  /** Extra response headers, e.g. WWW-Authenticate or Retry-After. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail: ErrorDetail, headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.name = 'ServiceError';
    this.statusCode = errorCatalogue[code].status;
    this.code = code;
    this.detail = detail;
    this.headers = headers;
  }
}

/**
 * A refusal whose `detail` is an object rather than a message (the document surface's cap
 * refusal, upstream's shape: `{detail: {code, limit, current, max, ..., message}}`). Elsewhere
 * (MCP, logs) it is its `message`.
 */
export interface DetailObject {
  message: string;
  [key: string]: string | number | boolean | null;
}

export class DetailedServiceError extends ServiceError {
  readonly detailObject: Readonly<DetailObject>;

  constructor(code: ErrorCode, detail: DetailObject) {
    super(code, detail.message);
    this.detailObject = detail;
  }
}

/** 400: the request cannot be parsed (malformed JSON, bad encoding). */
export const malformed = (code: ErrorCodeWithStatus<400>, detail: string) => new ServiceError(code, detail);

/** 401: missing or bad credentials, signature or timestamp. */
export const unauthorized = (code: ErrorCodeWithStatus<401>, detail: string, scheme = 'Bearer') =>
  new ServiceError(code, detail, { 'www-authenticate': scheme });

/** 402: over a configured billing cap. */
export const paymentRequired = (code: ErrorCodeWithStatus<402>, detail: string | DetailObject) =>
  typeof detail === 'string' ? new ServiceError(code, detail) : new DetailedServiceError(code, detail);

/** 403: authenticated but not allowed (wrong controller, wrong project, policy). */
export const forbidden = (code: ErrorCodeWithStatus<403>, detail: string) => new ServiceError(code, detail);

/** 404: absent, or not visible to the caller. */
export const notFound = (code: ErrorCodeWithStatus<404>, detail: string) => new ServiceError(code, detail);

/** 409: conflicts with stored state (duplicate name, stale base, wrong lifetime). */
export const conflict = (code: ErrorCodeWithStatus<409>, detail: string | DetailObject) =>
  typeof detail === 'string' ? new ServiceError(code, detail) : new DetailedServiceError(code, detail);

/** 410: was here and is gone for good (an expired upload session). */
export const gone = (code: ErrorCodeWithStatus<410>, detail: string) => new ServiceError(code, detail);

/** 413: body or field too large. */
export const tooLarge = (code: ErrorCodeWithStatus<413>, detail: string) => new ServiceError(code, detail);

/** 415: the body's content type is not the one the route takes. */
export const unsupportedMediaType = (code: ErrorCodeWithStatus<415>, detail: string) => new ServiceError(code, detail);

/** 422: well-formed but invalid. */
export const invalid = (code: ErrorCodeWithStatus<422>, detail: ErrorDetail) => new ServiceError(code, detail);

/** 429: rate limited. */
export const rateLimited = (code: ErrorCodeWithStatus<429>, detail: string, retryAfterSeconds: number) =>
  new ServiceError(code, detail, { 'retry-after': String(retryAfterSeconds) });

/** 503: a dependency (DNS, a peer node) is down, or busy (then with a Retry-After). */
export const unavailable = (code: ErrorCodeWithStatus<503>, detail: string, retryAfterSeconds?: number) =>
  new ServiceError(code, detail, retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) });
