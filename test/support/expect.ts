/**
 * Assertions every API test shares: a refusal is its status and a JSON body that is exactly
 * `{"detail": ..., "code": ...}` (DESIGN §5): a detail string, or for a 422 validation failure a
 * list of issues, and a code from the catalogue (contract/errors.ts) answered with that status.
 */
import { expect } from 'vitest';
import { errorCatalogue, isErrorCode, type ErrorCode } from '../../contract/errors.ts';
import { ServiceError, type ValidationIssue } from '../../server/errors.ts';
import type { ApiResponse } from './node.ts';

function detailText(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  return (detail as { loc: unknown[]; msg: string }[]).map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
}

/**
 * `status`, a JSON `{detail, code}` body whose code the catalogue answers with `status`, and (when
 * given) a detail that matches `detail` and the code `code`.
 */
export function expectRefusal(response: ApiResponse, status: number, detail?: RegExp, code?: ErrorCode): void {
  expect(response.status, `body: ${JSON.stringify(response.body)}`).toBe(status);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(response.body).toBeTypeOf('object');
  expect(Object.keys(response.body as object)).toEqual(['detail', 'code']);
  const answered = (response.body as { code: unknown }).code;
  expect(isErrorCode(answered), `${String(answered)} is in the error catalogue`).toBe(true);
  expect(errorCatalogue[answered as ErrorCode].status, `the catalogue's status for ${String(answered)}`).toBe(status);
  if (code !== undefined) expect(answered).toBe(code);
  const value = (response.body as { detail: unknown }).detail;
  if (Array.isArray(value)) {
    expect(status, 'only a 422 carries a list of issues').toBe(422);
    expect(value.length).toBeGreaterThan(0);
    for (const issue of value) {
      expect(issue).toMatchObject({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
    }
  } else {
    expect(value).toBeTypeOf('string');
    expect((value as string).length).toBeGreaterThan(0);
  }
  if (detail) expect(detailText(value)).toMatch(detail);
}

/** A 422 whose detail is the list of validation issues, one of them about `field`. */
export function expectValidation(response: ApiResponse, field: string): void {
  expectRefusal(response, 422, undefined, 'SVC_ERR_VALIDATION');
  const issues = (response.body as { detail: unknown }).detail;
  expect(Array.isArray(issues), `expected a list of issues, got ${JSON.stringify(issues)}`).toBe(true);
  // A field that should not be there is reported on the object, naming the field in the message.
  const names = (issue: { loc: unknown[]; msg: string }) => issue.loc.includes(field) || issue.msg.includes(`"${field}"`);
  expect((issues as { loc: unknown[]; msg: string }[]).some(names), JSON.stringify(issues)).toBe(true);
}

/** A 2xx with a JSON body; returns the body. */
export function expectOk<T = any>(response: ApiResponse<T>, status = 200): T {
  expect(response.status, `body: ${JSON.stringify(response.body)}`).toBe(status);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  return response.body;
}

/** The list of issues of the 422 that `fn` throws (a ServiceError from server/errors.ts). */
export function validationIssues(fn: () => unknown): ValidationIssue[] {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  if (!(caught instanceof ServiceError)) throw new Error('expected a 422', { cause: caught });
  expect(caught.statusCode).toBe(422);
  expect(Array.isArray(caught.detail)).toBe(true);
  return caught.detail as ValidationIssue[];
}
