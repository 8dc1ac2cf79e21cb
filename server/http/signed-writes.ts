/**
 * Signed writes over HTTP (DIDKey operations, team-signed requests; DESIGN §5): after the
 * signature verified, the write is claimed in the replay cache (auth/replay-cache.ts). The first
 * time it runs, and its answer is recorded in onSend, before a byte of it is sent; the identical
 * request again gets that answer (status, content type, body) and runs no second time; the
 * signature with another request is a 401. GET and HEAD are reads and are not claimed: they may
 * repeat.
 *
 * The signature covers different parts per mode (a DIDKey operation covers its fields, not the
 * body; a team envelope covers method, target and body hash, not the content type or the
 * certificate), so the claim carries a fingerprint of the whole request: method, raw target,
 * content type, body hash and whatever else the mode names (the team certificate). The same
 * signature with another fingerprint is another request.
 *
 * A route whose answer holds a secret shown once (a present-link token, a one-time upload URL:
 * the node keeps only their hashes) declares `answerHoldsSecret` in its config: its answer is not
 * kept, so a repeat of it is a 409 rather than the secret stored in the clear.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ANSWER_LIMITS, type FirstAnswer, type RepeatOutcome, type ReplayCache } from '../auth/replay-cache.ts';
import type { Clock } from '../clock.ts';
import { bodySha256Hex } from '../crypto/encoding.ts';
import { conflict, unauthorized } from '../errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The answer holds a secret shown once: a signed write's answer is not kept for repeats. */
    answerHoldsSecret?: boolean;
  }
  interface FastifyRequest {
    /** Set on a signed write claimed now: records its first answer (null: it had none). */
    settleSignedWrite?: (answer: FirstAnswer | null) => void;
  }
}

const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** GET and HEAD change nothing: signed reads may repeat. */
export const isReadMethod = (method: string): boolean => READ_METHODS.has(method.toUpperCase());

export interface SignedWrite {
  replay: ReplayCache;
  clock: Clock;
  /** The signature, prefixed by its mode (`team:`, `didkey:`). */
  key: string;
  /** The auth scheme a refusal names (WWW-Authenticate). */
  scheme: string;
  /** More of the request that the signature does not cover (the team certificate's id). */
  extra?: string;
}

/**
 * The key a signature claims its write under. A signature that binds no method or target (a
 * compact v1 one) is the same bytes for two empty-bodied writes signed in one second: the target
 * is part of its key, and the same bytes at another target are another write.
 */
export function signedReplayKey(prefix: string, signature: string, bindsTarget: boolean, request: FastifyRequest): string {
  return bindsTarget ? `${prefix}:${signature}` : `${prefix}:${signature}\n${request.method.toUpperCase()} ${request.raw.url ?? request.url}`;
}

function header(request: FastifyRequest, name: string): string {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** What makes two requests with one signature the same request. */
function fingerprintOf(request: FastifyRequest, extra: string): string {
  const parts = [
    request.method.toUpperCase(),
    request.raw.url ?? request.url,
    header(request, 'content-type'),
    bodySha256Hex(request.rawBody ?? Buffer.alloc(0)),
    extra,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * Claims the signed write: true the first time (the caller runs it); false when this is a repeat
 * and its first answer has been sent (the caller returns `reply`). A repeat whose first answer is
 * not available is a 409; the signature used by another request is a 401.
 */
export async function claimSignedWrite(request: FastifyRequest, reply: FastifyReply, write: SignedWrite): Promise<boolean> {
  const { replay, clock } = write;
  const claim = replay.claim(write.key, fingerprintOf(request, write.extra ?? ''), clock.now().getTime());
  if (claim.kind === 'replayed') throw unauthorized('SVC_ERR_REPLAYED', 'This signature was already used by another request; sign this one anew', write.scheme);
  if (claim.kind === 'first') {
    request.settleSignedWrite = (answer) => replay.settle(claim.ticket, answer, clock.now().getTime());
    return true;
  }
  sendRepeat(reply, await claim.outcome);
  return false;
}

function sendRepeat(reply: FastifyReply, outcome: RepeatOutcome): void {
  if (outcome.kind === 'not_kept') {
    throw conflict(
      'SVC_ERR_REPLAY_ANSWER_UNAVAILABLE',
      `This signed write was already received and answered ${outcome.status}; that answer is not kept (too large to keep, a secret shown once, or no longer kept), and the write does not run twice. Sign a new request to ask again`,
    );
  }
  if (outcome.kind === 'unanswered') {
    throw conflict(
      'SVC_ERR_REPLAY_ANSWER_UNAVAILABLE',
      'This signed write was already received, but the node stopped before answering it (or the answer was lost), so whether it took effect is unknown; it does not run again. Check the state, then sign a new request',
    );
  }
  const { status, contentType, body } = outcome.answer;
  reply.code(status);
  if (contentType !== null) reply.header('content-type', contentType);
  reply.send(body);
}

/** What was sent, as the replay cache keeps it; a streamed body or a secret is not kept. */
function answerOf(request: FastifyRequest, reply: FastifyReply, payload: unknown): FirstAnswer {
  const type = reply.getHeader('content-type');
  const contentType = type === undefined ? null : String(type);
  let body: Buffer | null = null;
  if (request.routeOptions.config.answerHoldsSecret === true) body = null;
  else if (typeof payload === 'string') body = Buffer.from(payload, 'utf8');
  else if (Buffer.isBuffer(payload)) body = payload;
  else if (payload === null || payload === undefined) body = Buffer.alloc(0);
  return { status: reply.statusCode, contentType, body };
}

/**
 * For a route that writes its answer to the raw response itself (`reply.hijack()`: MCP, whose SDK
 * transport answers as JSON or as a short SSE stream), so onSend never sees it: records what it
 * writes as the first answer, when the response ends and before its last bytes go out. A body
 * past the size kept is not kept (its repeat is a 409, as for any answer that size).
 */
export function recordHijackedAnswer(request: FastifyRequest, reply: FastifyReply): void {
  const settle = request.settleSignedWrite;
  if (settle === undefined) return;
  const raw = reply.raw;
  const chunks: Buffer[] = [];
  let bytes = 0;
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || bytes > ANSWER_LIMITS.maxAnswerBytes) return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array);
    bytes += buffer.length;
    chunks.push(buffer);
  };
  // writeHead's own headers never reach getHeader: the content type is taken as it passes.
  let contentType: string | null = null;
  const writeHead = raw.writeHead.bind(raw) as (...args: unknown[]) => ServerResponse;
  raw.writeHead = ((...args: unknown[]) => {
    const headers = args.find((arg): arg is Record<string, unknown> => typeof arg === 'object' && arg !== null && !Array.isArray(arg));
    const named = headers === undefined ? undefined : Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    if (named !== undefined) contentType = String(named);
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
  const write = raw.write.bind(raw) as (...args: unknown[]) => boolean;
  const end = raw.end.bind(raw) as (...args: unknown[]) => ServerResponse;
  raw.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as ServerResponse['write'];
  raw.end = ((...args: unknown[]) => {
    if (request.settleSignedWrite !== undefined) {
      keep(args[0], args[1]);
      request.settleSignedWrite = undefined;
      const type = raw.getHeader('content-type');
      const body = bytes > ANSWER_LIMITS.maxAnswerBytes ? null : Buffer.concat(chunks);
      try {
        settle({ status: raw.statusCode, contentType: contentType ?? (type === undefined ? null : String(type)), body });
      } catch (error) {
        request.log.error({ err: error }, 'could not record the answer of a signed write');
      }
    }
    return end(...args);
  }) as ServerResponse['end'];
}

/**
 * In a context whose routes claim signed writes: records each first answer before it is sent (a
 * crash after the client saw it cannot lose it), and, should a claimed write end without onSend,
 * records that it has none, so its repeats do not wait forever.
 */
export function installSignedWriteAnswers(app: FastifyInstance): void {
  const settle = (request: FastifyRequest, answer: FirstAnswer | null): void => {
    const done = request.settleSignedWrite;
    if (done === undefined) return;
    request.settleSignedWrite = undefined;
    try {
      done(answer);
    } catch (error) {
      // Not recorded: a repeat will be told the answer is unknown, never run the write again.
      request.log.error({ err: error }, 'could not record the answer of a signed write');
    }
  };
  app.addHook('onSend', async (request, reply, payload) => {
    settle(request, answerOf(request, reply, payload));
    return payload;
  });
  app.addHook('onResponse', async (request) => settle(request, null));
}
