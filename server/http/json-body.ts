/**
 * JSON bodies are parsed by us so the exact bytes stay available (`request.rawBody`): signed
 * envelopes hash the raw body, and a malformed body must be a 400 with a plain detail.
 */
import type { FastifyInstance } from 'fastify';
import { malformed } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
  }
}

export function installJsonBody(app: FastifyInstance): void {
  // JSON is the only body type the API takes unless a route adds its own (a plain-text body on a
  // JSON route is a 415, not a confusing validation error).
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const raw = body as Buffer;
    request.rawBody = raw;
    if (raw.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(raw.toString('utf8')));
    } catch {
      done(malformed('Request body is not valid JSON'), undefined);
    }
  });
}
