/**
 * JSON bodies are parsed by us so the exact bytes stay available (`request.rawBody`): signed
 * envelopes hash the raw body, and a malformed body must be a 400 with a plain detail.
 */
import type { FastifyInstance } from 'fastify';
import { malformed } from '../errors.ts';
import { MAX_JSON_DEPTH } from '../json-depth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * True when the arrays and objects of the JSON text `bytes` nest deeper than `max`: one pass over
 * the bytes, no recursion, so a body nested 100,000 deep is refused before anything parses or
 * walks it (validators, canonical JSON and YAML dumps all recurse). Bytes of multi-byte UTF-8
 * characters are all >= 0x80, so they are never taken for a quote, backslash or bracket. Malformed
 * JSON gets some answer; JSON.parse refuses it afterwards anyway.
 */
export function nestsDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

export function installJsonBody(app: FastifyInstance): void {
  // JSON is the only body type the API takes unless a route adds its own (a plain-text body on a
  // JSON route is a 415, not a confusing validation error).
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const raw = body as Buffer;
    request.rawBody = raw;
    if (raw.length === 0) return done(null, undefined);
    if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
      return done(malformed('SVC_ERR_JSON_TOO_DEEP', `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    try {
      done(null, JSON.parse(raw.toString('utf8')));
    } catch {
      done(malformed('SVC_ERR_MALFORMED_JSON', 'Request body is not valid JSON'), undefined);
    }
  });
}
