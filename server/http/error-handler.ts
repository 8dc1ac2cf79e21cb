/**
 * The one place errors become responses: `{"detail": ..., "code": ...}` with a 4xx status for
 * anything the client did, never an HTML page, and never a 500 for bad input. Every code is in
 * the catalogue (contract/errors.ts), Fastify's own refusals included.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorCatalogue, type ErrorCode } from '../../contract/errors.ts';
import { DetailedServiceError, ServiceError } from '../errors.ts';

/**
 * Fastify's own client errors (bad JSON, body too large, wrong media type) by situation; null for
 * a fault of ours. A status Fastify answers that the catalogue has no code for is a malformed request.
 */
function fastifyClientCode(error: FastifyError): ErrorCode | null {
  const status = error.statusCode;
  if (status === undefined || status < 400 || status >= 500) return null;
  if (status === 413) return 'SVC_ERR_BODY_TOO_LARGE';
  if (status === 415) return 'SVC_ERR_UNSUPPORTED_MEDIA_TYPE';
  if (status === 408) return 'SVC_ERR_REQUEST_TIMEOUT';
  // Typed as always there, but any error with a 4xx statusCode arrives here, with or without a code.
  if ((error.code as string | undefined)?.includes('JSON')) return 'SVC_ERR_MALFORMED_JSON';
  return 'SVC_ERR_MALFORMED_REQUEST';
}

function sendError(reply: FastifyReply, code: ErrorCode, detail: unknown): FastifyReply {
  return reply.code(errorCatalogue[code].status).send({ detail, code });
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    if (error instanceof ServiceError) {
      const detail = error instanceof DetailedServiceError ? error.detailObject : error.detail;
      return sendError(reply.headers(error.headers), error.code, detail);
    }
    const code = fastifyClientCode(error);
    if (code !== null) {
      const detail = code === 'SVC_ERR_BODY_TOO_LARGE' ? 'Request body is too large' : error.message;
      return sendError(reply, code, detail);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 'SVC_ERR_INTERNAL', 'Internal error');
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(reply, 'SVC_ERR_ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`);
  });
}

/**
 * Errors Fastify raises before routing (an undecodable URL such as `/v1/did/%ZZ/key`, an overlong
 * path parameter): the same `{"detail"}` shape as everything else, instead of Fastify's own body.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  sendError(reply, fastifyClientCode(error) ?? 'SVC_ERR_MALFORMED_REQUEST', error.message);
}

/**
 * A request the HTTP parser rejects never reaches Fastify; answer it with a JSON `{"detail"}` too
 * (Fastify's default writes its own body shape), then close the connection.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, detail]: [ErrorCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['SVC_ERR_REQUEST_TIMEOUT', 'Request timed out']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ['SVC_ERR_HEADERS_TOO_LARGE', 'Request headers are too large']
        : ['SVC_ERR_MALFORMED_REQUEST', 'Malformed HTTP request'];
  const status = errorCatalogue[code].status;
  const body = JSON.stringify({ detail, code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
