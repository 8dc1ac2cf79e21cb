/**
 * Timestamp shapes shared by the signed objects: upstream's clients sign RFC 3339 UTC at second
 * precision, and its log-head verifier refuses fractional seconds
 * (docs/adr/0001-upstream-wire-primitives.md).
 */

/** RFC 3339 at second precision with an explicit offset: what log entries must carry. */
const SECOND_PRECISION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/;

export function isSecondPrecisionTimestamp(value: unknown): value is string {
  return typeof value === 'string' && SECOND_PRECISION.test(value) && Number.isFinite(Date.parse(value));
}

/** RFC 3339 is read by the contract's rule (contract/core-rules.ts), which request schemas use too. */
export { parseRfc3339 } from '../../contract/core-rules.ts';
