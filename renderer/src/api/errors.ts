/**
 * Errors from the node in plain words: every failed call becomes an `ApiError` whose message is
 * the node's `detail` (or our own explanation), and a 422's list of problems is kept field by
 * field, each in words with its field's label ("Slug: use 1-64 letters…", never zod's "Too big:
 * expected string…"), and the node's `code` says which situation it was (contract/errors.ts), for
 * views that act on one. Shared by http.ts and sse.ts; forms use it through useFieldErrors.
 */
import type { ErrorCode } from '../../../contract/errors.ts';
import { plural } from '../lib/format.ts';

/** A failed call, with the node's `detail` (or our own plain explanation) as the message. */
export class ApiError extends Error {
  /** HTTP status; 0 when the node could not be reached at all. */
  readonly status: number;
  /** A 422's problems field by field, so a form can show each next to its field ([] otherwise). */
  readonly issues: readonly FieldIssue[];
  /** The node's code for the situation; null when the node was not reached or sent none. */
  readonly code: ErrorCode | null;

  constructor(status: number, message: string, issues: readonly FieldIssue[] = [], code: ErrorCode | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.issues = issues;
    this.code = code;
  }
}

/** The `code` of an error body (the node's catalogue names every refusal), or null. */
export function errorCode(body: unknown): ErrorCode | null {
  if (typeof body !== 'object' || body === null || !('code' in body)) return null;
  const code = (body as { code: unknown }).code;
  return typeof code === 'string' && code.startsWith('SVC_ERR_') ? (code as ErrorCode) : null;
}

/** One problem the node found with a request: the field it is about (null: the request as a whole) and what is wrong, in words. */
export interface FieldIssue {
  field: string | null;
  message: string;
}

function locField(loc: unknown): string | null {
  if (!Array.isArray(loc)) return null;
  const parts = loc.filter((part) => part !== 'body' && part !== 'query' && part !== 'path').map(String);
  return parts.length === 0 ? null : parts.join('.');
}

/**
 * zod's stock texts ("Too big: expected string to have <=64 characters") in words a person reads
 * after a field's label; the node's own rule texts (contract/core-rules.ts) pass unchanged.
 */
const ZOD_WORDS: [RegExp, (match: RegExpExecArray) => string][] = [
  [/^Invalid input: expected \w+, received undefined$/, () => 'this is required'],
  [/^Too big: expected string to have <=(\d+) characters?$/, (m) => `use at most ${plural(Number(m[1]), 'character')}`],
  [/^Too small: expected string to have >=1 characters?$/, () => 'this is required'],
  [/^Too small: expected string to have >=(\d+) characters?$/, (m) => `use at least ${plural(Number(m[1]), 'character')}`],
  [/^Too big: expected number to be <=(\d+)$/, (m) => `use a number no larger than ${m[1]}`],
  [/^Too small: expected number to be >=(\d+)$/, (m) => `use a number no smaller than ${m[1]}`],
  [/^Too big: expected array to have <=(\d+) items?$/, (m) => `give at most ${m[1]}`],
  [/^Too small: expected array to have >=(\d+) items?$/, (m) => `give at least ${m[1]}`],
  [/^Invalid input: expected (?:int|number), received \w+$/, () => 'use a whole number'],
  [/^Invalid input: expected string, received \w+$/, () => 'use text'],
  [/^Invalid input: expected boolean, received \w+$/, () => 'use yes or no'],
  [/^Invalid (?:input: expected )?url$/i, () => 'use a URL such as https://node.example.com'],
  [/^Invalid UUID$/i, () => 'this is not a valid id'],
  [/^Invalid option: expected one of (.+)$/, (m) => `choose one of ${(m[1] ?? '').replaceAll('"', '').split('|').join(', ')}`],
  [/^Invalid string: must match pattern .*$/, () => 'this has characters the node does not accept'],
  [/^Unrecognized keys?: (.+)$/, (m) => `the node does not take ${m[1]}`],
];

/** A validation message in words (see ZOD_WORDS); any other text as it is. */
export function issueWords(message: string): string {
  for (const [pattern, words] of ZOD_WORDS) {
    const match = pattern.exec(message);
    if (match !== null) return words(match);
  }
  return message;
}

/** The problems in a 422's `detail` list (`[{loc, msg}]`), each in words; [] for any other detail. */
export function detailIssues(detail: unknown): FieldIssue[] {
  if (!Array.isArray(detail)) return [];
  return detail.flatMap((item: unknown): FieldIssue[] => {
    if (typeof item === 'string') return item.trim() === '' ? [] : [{ field: null, message: item }];
    if (typeof item !== 'object' || item === null) return [];
    const { loc, msg } = item as { loc?: unknown; msg?: unknown };
    if (typeof msg !== 'string' || msg === '') return [];
    return [{ field: locField(loc), message: issueWords(msg) }];
  });
}

/** "remote_port" → "Remote port": the label of a field no form named. */
export function fieldLabel(field: string, labels: Readonly<Record<string, string>> = {}): string {
  const named = labels[field];
  if (named !== undefined) return named;
  const words = (field.split('.').pop() ?? field).replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An issue as one sentence with its field's label: "Slug: use 1-64 letters, …". */
export function issueSentence(issue: FieldIssue, labels: Readonly<Record<string, string>> = {}): string {
  const text = issue.message.charAt(0).toUpperCase() + issue.message.slice(1);
  return issue.field === null ? text : `${fieldLabel(issue.field, labels)}: ${issue.message}`;
}

/**
 * The `detail` of an error body as readable text: a string as it is; a validation list as one
 * sentence per problem with its field's label ("Slug: use 1-64 letters…; Name: this is required").
 * Null when there is none.
 */
export function formatDetail(detail: unknown, labels: Readonly<Record<string, string>> = {}): string | null {
  if (typeof detail === 'string') return detail.trim() === '' ? null : detail;
  const issues = detailIssues(detail);
  return issues.length > 0 ? issues.map((issue) => issueSentence(issue, labels)).join('; ') : null;
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

/** The field-by-field problems of a non-2xx response body ([] unless it is a validation list). */
export function errorIssues(body: unknown): FieldIssue[] {
  return typeof body === 'object' && body !== null && 'detail' in body ? detailIssues((body as { detail: unknown }).detail) : [];
}

/** The message for a non-2xx response, from its body when it has a usable `detail`. */
export function errorMessage(status: number, body: unknown): string {
  if (typeof body === 'object' && body !== null && 'detail' in body) {
    const text = formatDetail((body as { detail: unknown }).detail);
    if (text !== null) return text;
  }
  return STATUS_TEXT[status] ?? `The node answered with an error (HTTP ${status}).`;
}
