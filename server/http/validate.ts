/**
 * Request validation with zod: one schema language for HTTP and MCP. A body that parses but
 * breaks the schema is a 422 with the list of issues, FastAPI-style.
 */
import type { z } from 'zod';
import { invalid, type ValidationIssue } from '../errors.ts';

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'path' = 'body'): z.output<S> {
  const result = schema.safeParse(value ?? (where === 'body' ? {} : value));
  if (result.success) return result.data;
  const issues: ValidationIssue[] = result.error.issues.map((issue) => ({
    loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
  throw invalid(issues);
}
