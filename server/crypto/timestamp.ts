/**
 * Timestamp shapes shared by the signed objects: upstream's clients sign RFC 3339 UTC at second
 * precision, and its log-head verifier refuses fractional seconds
 * (docs/adr/0001-upstream-wire-primitives.md).
 */

/** RFC 3339 at second precision with an explicit offset: what log entries must carry. */
const SECOND_PRECISION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/;
/** RFC 3339 with optional fractional seconds: what Go's RFC3339/RFC3339Nano parsers accept. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export function isSecondPrecisionTimestamp(value: unknown): value is string {
  return typeof value === 'string' && SECOND_PRECISION.test(value) && Number.isFinite(Date.parse(value));
}

/** Milliseconds since the epoch of an RFC 3339 timestamp, or null when it is not one. */
export function parseRfc3339(value: unknown): number | null {
  if (typeof value !== 'string' || !RFC3339.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
