/**
 * Routes declare their schemas (zod, from contract/) for params, query, body and response, and
 * Fastify runs them: handlers receive parsed, typed input, and the same schemas describe the API
 * (api-description.ts). Two compilers make that fit the node's wire rules:
 *
 * - validation: a request that breaks its schema is the same 422 `{"detail": [{loc, msg, type}]}`
 *   that parseWith has always answered, located in `body`, `query`, `path` or `header`;
 * - serialization: responses are written with JSON.stringify, as before, so declaring a response
 *   costs nothing per request. With `validateResponses` (the test suites turn it on) every answer
 *   is checked against its declared schema first, so a route that drifts from its contract fails
 *   its tests instead of surprising a client.
 */
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import type { z } from 'zod';
import { invalid, type ValidationIssue } from '../errors.ts';

type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

/** Where a problem was, in the words parseWith has always used. */
const LOCATION: Record<HttpPart, ValidationIssue['loc'][number]> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

export function issuesOf(error: z.ZodError, where: ValidationIssue['loc'][number]): ValidationIssue[] {
  return error.issues.map((issue) => ({
    loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
}

const validatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const where = LOCATION[(httpPart ?? 'body') as HttpPart] ?? 'body';
  return (data) => {
    // A route that declares a body also takes none at all as an empty object (parseWith did too).
    const result = schema.safeParse(data ?? (where === 'body' ? {} : data));
    return result.success ? { value: result.data } : { error: invalid('SVC_ERR_VALIDATION', issuesOf(result.error, where)) };
  };
};

const plainSerializer: FastifySerializerCompiler<z.ZodType> = () => (data) => JSON.stringify(data);

/** Checks each answer against its schema: for tests, where drift must fail loudly. */
const checkingSerializer: FastifySerializerCompiler<z.ZodType> = ({ schema, method, url }) => (data) => {
  const result = schema.safeParse(data);
  if (!result.success) {
    const problems = issuesOf(result.error, 'response').map((issue) => `${issue.loc.join('.')}: ${issue.msg}`);
    throw new Error(`${method} ${url} answered outside its declared response schema: ${problems.join('; ')}`);
  }
  return JSON.stringify(data);
};

export interface RouteSchemaOptions {
  /** Check every response against its declared schema (tests); off in production. */
  validateResponses?: boolean;
}

export function installRouteSchemas(app: FastifyInstance, options: RouteSchemaOptions = {}): void {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(options.validateResponses ? checkingSerializer : plainSerializer);
}
