/**
 * Errors from the node in plain words: every failed call becomes an `ApiError` whose message is
 * the node's `detail` (or our own explanation). Shared by client.ts and sse.ts.
 */

/** A failed call, with the node's `detail` (or our own plain explanation) as the message. */
export class ApiError extends Error {
  /** HTTP status; 0 when the node could not be reached at all. */
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

function locLabel(loc: unknown): string {
  if (!Array.isArray(loc)) return '';
  const parts = loc.filter((part) => part !== 'body' && part !== 'query' && part !== 'path').map(String);
  return parts.join('.');
}

/**
 * The `detail` of an error body as one readable sentence: a string as it is; a validation list
 * (`[{loc, msg}]`) as "name: Field required; slug: too long". Null when there is none.
 */
export function formatDetail(detail: unknown): string | null {
  if (typeof detail === 'string') return detail.trim() === '' ? null : detail;
  if (Array.isArray(detail)) {
    const lines = detail
      .map((item: unknown) => {
        if (typeof item === 'string') return item;
        if (typeof item !== 'object' || item === null) return '';
        const { loc, msg } = item as { loc?: unknown; msg?: unknown };
        const text = typeof msg === 'string' ? msg : '';
        const label = locLabel(loc);
        return label && text ? `${label}: ${text}` : text;
      })
      .filter((line) => line !== '');
    return lines.length > 0 ? lines.join('; ') : null;
  }
  return null;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'The node could not use that request.',
  401: 'The node did not accept this session.',
  403: 'The node refused this request.',
  404: 'The node does not know that item.',
  409: 'That already exists.',
  413: 'That is too large for the node.',
  422: 'Some fields are not valid.',
  429: 'Too many requests; wait a moment and try again.',
};

/** The message for a non-2xx response, from its body when it has a usable `detail`. */
export function errorMessage(status: number, body: unknown): string {
  if (typeof body === 'object' && body !== null && 'detail' in body) {
    const text = formatDetail((body as { detail: unknown }).detail);
    if (text !== null) return text;
  }
  return STATUS_TEXT[status] ?? `The node answered with an error (HTTP ${status}).`;
}
