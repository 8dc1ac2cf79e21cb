/**
 * The one place errors become responses: `{"detail": ...}` with a 4xx status for anything the
 * client did, never an HTML page, and never a 500 for bad input.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DetailedServiceError, ServiceError } from '../errors.ts';

/** Fastify's own client errors (bad JSON, body too large, wrong media type) keep their 4xx. */
function fastifyClientStatus(error: FastifyError): number | null {
  const status = error.statusCode;
  return status !== undefined && status >= 400 && status < 500 ? status : null;
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    if (error instanceof ServiceError) {
      const detail = error instanceof DetailedServiceError ? error.detailObject : error.detail;
      return reply.code(error.statusCode).headers(error.headers).send({ detail });
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

/**
 * Errors Fastify raises before routing (an undecodable URL such as `/v1/did/%ZZ/key`, an overlong
 * path parameter): the same `{"detail"}` shape as everything else, instead of Fastify's own body.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  reply.code(status).send({ detail: error.message });
}

/**
 * A request the HTTP parser rejects never reaches Fastify; answer it with a JSON `{"detail"}` too
 * (Fastify's default writes its own body shape), then close the connection.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request timed out']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request headers are too large']
        : [400, 'Malformed HTTP request'];
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
