/**
 * The ±300 s window every signed request's timestamp must fall in (spec §5, §8).
 */
import { unauthorized } from '../errors.ts';

export const REPLAY_WINDOW_SECONDS = 300;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Parses a signed-request timestamp and refuses one without a zone or outside the window. */
export function checkRequestTimestamp(value: string | undefined, header: string, now: Date, scheme: string): Date {
  if (!value) throw unauthorized('SVC_ERR_TIMESTAMP_INVALID', `Missing ${header} header`, scheme);
  if (!RFC3339.test(value)) throw unauthorized('SVC_ERR_TIMESTAMP_INVALID', `${header} must be an RFC 3339 timestamp with a timezone`, scheme);
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw unauthorized('SVC_ERR_TIMESTAMP_INVALID', `${header} is not a valid timestamp`, scheme);
  if (Math.abs(now.getTime() - at.getTime()) > REPLAY_WINDOW_SECONDS * 1000) {
    throw unauthorized('SVC_ERR_TIMESTAMP_INVALID', `${header} is outside the allowed ${REPLAY_WINDOW_SECONDS} s window`, scheme);
  }
  return at;
}
