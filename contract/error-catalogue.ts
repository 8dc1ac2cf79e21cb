/**
 * How a part of the error catalogue is written (contract/errors.ts joins them): code → the one
 * status it is answered with and a summary of the situation, as docs/errors.md lists it. Codes are
 * `SVC_ERR_` plus the situation in capitals.
 */

export interface ErrorEntry {
  readonly status: number;
  readonly summary: string;
}

type CodeName = `SVC_ERR_${Uppercase<string>}`;

/** Keeps the literal statuses, so a throw site's status and its code's status are checked to agree. */
export function defineErrors<const T extends Record<CodeName, ErrorEntry>>(entries: T): T {
  return entries;
}
