/**
 * Assertions every API test shares: a refusal is its status and a JSON body that is exactly
 * `{"detail": ...}` (DESIGN §5): a string, or for a 422 validation failure a list of issues.
 */
import { expect } from 'vitest';
import { ServiceError, type ValidationIssue } from '../../server/errors.ts';
import type { ApiResponse } from './node.ts';

function detailText(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  return (detail as { loc: unknown[]; msg: string }[]).map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
}

/** `status`, a JSON `{detail}` body, and (when given) a detail that matches `detail`. */
export function expectRefusal(response: ApiResponse, status: number, detail?: RegExp): void {
  expect(response.status, `body: ${JSON.stringify(response.body)}`).toBe(status);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(response.body).toBeTypeOf('object');
  expect(Object.keys(response.body as object)).toEqual(['detail']);
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
  expectRefusal(response, 422);
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
