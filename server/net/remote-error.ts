/**
 * Why a request to another node failed, as a kind and a message in our own words. The message
 * never carries the remote answer, the socket error's text or the address connected to: callers
 * show it to whoever asked (an unauthenticated sender node, a local identity's bounce), and a
 * remote body or an errno string would make the node an oracle for what answers where.
 */
export type RemoteErrorKind =
  /** The host resolved to (or connected at) an address a DNS-found node may not have. */
  | 'refused-address'
  /** No connection, or it broke before a whole answer arrived. */
  | 'unreachable'
  | 'timed-out'
  /** The answer is larger than the request's cap. */
  | 'too-large'
  /** The answer is not JSON (content type or syntax). */
  | 'not-json'
  /** A 3xx: redirects are never followed. */
  | 'redirected'
  /** Too many requests to that node (or in all) are already waiting. */
  | 'busy'
  /** An answer, but not the status the caller needed. */
  | 'http-status';

export class RemoteError extends Error {
  readonly kind: RemoteErrorKind;
  /** The HTTP status, for kind 'http-status'. */
  readonly status: number | null;

  constructor(kind: RemoteErrorKind, message: string, status: number | null = null) {
    super(message);
    this.name = 'RemoteError';
    this.kind = kind;
    this.status = status;
  }
}

export const refusedAddress = () => new RemoteError('refused-address', 'refused: its address is not a public one');
export const unreachable = () => new RemoteError('unreachable', 'unreachable');
export const timedOut = () => new RemoteError('timed-out', 'timed out');
export const tooLarge = () => new RemoteError('too-large', 'answer too large');
export const notJson = () => new RemoteError('not-json', 'answer not JSON');
export const redirected = () => new RemoteError('redirected', 'refused: it answered with a redirect, which is never followed');
export const busy = () => new RemoteError('busy', 'too many requests to it are already waiting');
/**
 * The message leaves the status out: told to an unauthenticated caller, the status of whatever
 * answered would be an oracle. Callers that may show it (a local sender's outbox) read `status`.
 */
export const httpStatus = (status: number) => new RemoteError('http-status', 'refused', status);

/** Any failure of a request as a RemoteError: its own errors pass through, the rest are unreachable. */
export function asRemoteError(error: unknown): RemoteError {
  if (error instanceof RemoteError) return error;
  // A response header block over Node's limit (16 KiB) is an answer too large, not a broken link.
  if ((error as { code?: unknown }).code === 'HPE_HEADER_OVERFLOW') return tooLarge();
  return unreachable();
}
