/**
 * The one place errors become responses: `{"detail": ...}` with a 4xx status for anything the
 * client did, never an HTML page, and never a 500 for bad input.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { ServiceError } from '../errors.ts';

/** Fastify's own client errors (bad JSON, body too large, wrong media type) keep their 4xx. */
function fastifyClientStatus(error: FastifyError): number | null {
  const status = error.statusCode;
  return status !== undefined && status >= 400 && status < 500 ? status : null;
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    if (error instanceof ServiceError) {
      return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
    }
    const status = fastifyClientStatus(error);
    if (status !== null) {
      const detail = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'Request body is too large' : error.message;
      return reply.code(status).send({ detail });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'Internal error' });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `No route ${request.method} ${request.url.split('?')[0]}` });
  });
}
