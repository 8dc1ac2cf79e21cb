/**
 * Request validation with zod: one schema language for HTTP and MCP. A body that parses but
 * breaks the schema is a 422 with the list of issues, FastAPI-style.
 */
import type { z } from 'zod';
import { invalid } from '../errors.ts';
import { issuesOf } from './route-schemas.ts';

/** For input a route cannot declare (MCP tool arguments, a body read in two steps); routes declare theirs. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'path' = 'body'): z.output<S> {
  const result = schema.safeParse(value ?? (where === 'body' ? {} : value));
  if (result.success) return result.data;
  throw invalid('SVC_ERR_VALIDATION', issuesOf(result.error, where));
}
