/**
 * Routes declare their schemas (zod, from contract/) for params, query, body and response, and
 * Fastify runs them: handlers receive parsed, typed input, and the same schemas describe the API
 * (api-description.ts). Two compilers make that fit the node's wire rules:
 *
 * - validation: a request that breaks its schema is the same 422 `{"detail": [{loc, msg, type}]}`
 *   that parseWith has always answered, located in `body`, `query`, `path` or `header`;
 * - serialization: an answer is written as its schema parses it, so only declared fields leave the
 *   node (a zod object drops the keys it does not name: a column added to a row mapper stays in).
 *   With `validateResponses` (the test suites turn it on) an answer outside its schema fails
 *   loudly instead, an undeclared key included, so a route that drifts from its contract fails
 *   its tests.
 *
 * An answer that does not parse in production (a drifted route that no test caught) is logged as
 * an error and answered with its declared part only (response-filter.ts), not with a 500: by the
 * time a handler answers, its write is committed, and a 500 would tell the client it failed, so
 * that it retries (a second mail) or gives up on something that exists. What is sent still holds
 * nothing undeclared.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import type { z } from 'zod';
import { invalid, type ValidationIssue } from '../errors.ts';
import { declaredPart, undeclaredPaths } from './response-filter.ts';

/** Where a problem was, in the words parseWith has always used; by Fastify's name for the part. */
const LOCATION: Record<string, ValidationIssue['loc'][number]> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

export function issuesOf(error: z.ZodError, where: ValidationIssue['loc'][number]): ValidationIssue[] {
  return error.issues.map((issue) => ({
    loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
}

const validatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const where = LOCATION[httpPart ?? 'body'] ?? 'body';
  return (data) => {
    // A route that declares a body also takes none at all as an empty object (parseWith did too).
    const result = schema.safeParse(data ?? (where === 'body' ? {} : data));
    return result.success ? { value: result.data } : { error: invalid('SVC_ERR_VALIDATION', issuesOf(result.error, where)) };
  };
};

/** An answer outside its route's declared response schema, in the test suites: the request fails with a 500. */
class ResponseOutsideSchemaError extends Error {
  constructor(method: string, url: string, problems: string[]) {
    super(`${method} ${url} answered outside its declared response schema: ${problems.join('; ')}`);
    this.name = 'ResponseOutsideSchemaError';
  }
}

const problemsOf = (error: z.ZodError): string[] => issuesOf(error, 'response').map((issue) => `${issue.loc.join('.')}: ${issue.msg}`);

/** Writes the parsed answer; an answer that does not parse is logged and cut to its declared part. */
function filteringSerializer(log: FastifyBaseLogger): FastifySerializerCompiler<z.ZodType> {
  return ({ schema, method, url }) =>
    (data) => {
      const result = schema.safeParse(data);
      if (result.success) return JSON.stringify(result.data);
      // Issue paths and messages only: the values could be anything the handler held.
      log.error({ route: `${method} ${url}`, problems: problemsOf(result.error) }, 'answer outside its declared response schema: sent its declared part');
      return JSON.stringify(declaredPart(schema, data));
    };
}

/** Fails an answer that does not parse or carries a key its schema does not declare: for tests, where drift must fail loudly. */
const checkingSerializer: FastifySerializerCompiler<z.ZodType> =
  ({ schema, method, url }) =>
  (data) => {
    const result = schema.safeParse(data);
    if (!result.success) throw new ResponseOutsideSchemaError(method, url, problemsOf(result.error));
    const undeclared = undeclaredPaths(data, result.data);
    if (undeclared.length > 0)
      throw new ResponseOutsideSchemaError(
        method,
        url,
        undeclared.map((path) => `response.${path}: not declared`),
      );
    return JSON.stringify(result.data);
  };

/** An object answered for a success status its route declares no schema for: nothing says what of it may leave. */
class ResponseWithoutSchemaError extends Error {
  constructor(method: string, url: string, status: number) {
    super(`${method} ${url} answered ${status} with a body, but declares no response schema for ${status}`);
    this.name = 'ResponseWithoutSchemaError';
  }
}

/** Whether a route's `response` declares the schema Fastify writes `status` with: the status, its class (`2xx`) or `default`. */
function declaresAnswer(response: unknown, status: number): boolean {
  if (typeof response !== 'object' || response === null) return false;
  return [String(status), `${String(status)[0]}xx`, 'default'].some((key) => Object.hasOwn(response, key));
}

export interface RouteSchemaOptions {
  /** Fail every answer outside its declared schema, undeclared keys included (tests); production drops what is undeclared. */
  validateResponses?: boolean;
}

export function installRouteSchemas(app: FastifyInstance, options: RouteSchemaOptions = {}): void {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(options.validateResponses ? checkingSerializer : filteringSerializer(app.log));
  // Fastify writes an object with no schema for its status as plain JSON, every key of it: a
  // success answer like that is refused instead (a 500), in production too, since nothing declares
  // any part of it safe to send. Errors are the error handler's `{detail, code}`, built from named
  // errors; routes hidden from the API description (the description itself, its reference page)
  // answer what they build from the route table, and every other route must be described
  // (test/api/api-description.test.ts). Strings, buffers and streams (the UI's files,
  // assets, SSE) never reach this hook.
  app.addHook('preSerialization', async (request, reply, payload) => {
    const schema = request.routeOptions.schema;
    if (reply.statusCode >= 400 || schema?.hide === true || declaresAnswer(schema?.response, reply.statusCode)) return payload;
    throw new ResponseWithoutSchemaError(request.method, request.routeOptions.url ?? request.url, reply.statusCode);
  });
}
