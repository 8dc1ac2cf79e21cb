/**
 * Assets (research B7, C4). Team routes: POST /v1/assets (image, base64 in JSON),
 * POST /v1/assets/video/direct-upload, GET /v1/assets/{asset_id}. Public routes, outside
 * team auth: GET /assets/{asset_id} (the bytes, by id; a video streamed from its file, with
 * Range) and PUT /v1/assets/{asset_id}/upload (the one-time token in the URL is the capability).
 */
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../../http/validate.ts';
import { notFound, ServiceError } from '../../../errors.ts';
import { byteRange } from '../domain/byte-range.ts';
import { VIDEO_TYPES } from '../domain/image-magic.ts';
import { memberWith, type DocsRouteOptions } from './options.ts';

const ImageBody = z.strictObject({ content_type: z.string().max(100), data_base64: z.string() });

const VideoBody = z.strictObject({
  content_type: z.enum(VIDEO_TYPES),
  filename: z.string().min(1).max(255).optional(),
  max_duration_seconds: z.number().int().min(1).max(86_400).optional(),
});

const idOf = (params: unknown): string => String((params as { asset_id?: unknown }).asset_id);

/** Behind team auth. */
export async function assetRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  const { assets } = services;

  app.post('/v1/assets', async (request, reply) => {
    const member = memberWith(request, 'docs:write');
    const input = parseWith(ImageBody, request.body);
    return reply.code(201).send(assets.createImage(member.team_id, input.content_type, input.data_base64));
  });

  app.post('/v1/assets/video/direct-upload', async (request, reply) => {
    const member = memberWith(request, 'docs:write');
    return reply.code(201).send(services.uploads.start(member.team_id, parseWith(VideoBody, request.body)));
  });

  app.get('/v1/assets/:asset_id', async (request) => assets.get(memberWith(request, 'docs:read').team_id, idOf(request.params)));
}

/** Public by id: no team check, never sniffed, never indexed. */
export async function publicAssetRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.get('/assets/:asset_id', async (request, reply) => {
    const content = services.assets.content(idOf(request.params));
    if (!content) throw notFound('No such asset');
    reply
      .header('content-type', content.content_type)
      .header('x-content-type-options', 'nosniff')
      .header('x-robots-tag', 'noindex')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('content-security-policy', "default-src 'none'");
    if ('data' in content) return reply.send(content.data);
    // A video from its file, a piece at a time; players seek with Range.
    reply.header('accept-ranges', 'bytes');
    const range = byteRange(request.headers.range, content.bytes);
    if (range === null) return reply.header('content-length', content.bytes).send(createReadStream(content.file));
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${content.bytes}`)
      .header('content-length', range.end - range.start + 1)
      .send(createReadStream(content.file, { start: range.start, end: range.end }));
  });
}

/** How long a refused upload's client gets to read the refusal while the rest of its body is dropped. */
export const REFUSAL_LINGER_MS = 2_000;

/**
 * A refused upload may still be sending. Closing at once (which Node does after the answer when the
 * client asked to close) would reset the connection with its bytes unread, and the client's system
 * would drop the refusal with them. So the connection stays open and, once the answer is out, the
 * rest of the body is read and dropped for REFUSAL_LINGER_MS, then the connection is cut.
 */
function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): never {
  const body = request.raw;
  if (error instanceof ServiceError && !body.complete && !body.destroyed) {
    reply.header('connection', 'keep-alive');
    reply.raw.once('finish', () => {
      const cut = setTimeout(() => body.destroy(), REFUSAL_LINGER_MS).unref();
      body.once('end', () => clearTimeout(cut));
      body.once('close', () => clearTimeout(cut));
      body.resume();
    });
  }
  throw error;
}

/**
 * PUT of a video's raw bytes to its one-time upload URL. Its own context: the body is not parsed
 * here but streamed to disk by the handler (video-uploads.ts), so no body limit applies and none
 * of it is held in memory; the token, expiry, content type and declared length are checked
 * before any of it is read.
 */
export async function videoUploadRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  // Leave the body unread: the handler consumes request.raw itself.
  app.addContentTypeParser('*', (_request: FastifyRequest, _payload: unknown, done: (error: Error | null, body?: unknown) => void) => done(null));
  const tokenOf = (request: FastifyRequest): unknown => (request.query as { token?: unknown }).token;

  app.put(
    '/v1/assets/:asset_id/upload',
    {
      onRequest: async (request, reply) => {
        try {
          services.uploads.check(idOf(request.params), tokenOf(request), request.headers['content-type'], request.headers['content-length']);
        } catch (error) {
          refuse(request, reply, error);
        }
      },
    },
    async (request, reply) => {
      const { headers } = request;
      try {
        return await services.uploads.receive(idOf(request.params), String(tokenOf(request)), headers['content-type'], headers['content-length'], request.raw);
      } catch (error) {
        return refuse(request, reply, error);
      }
    },
  );
}
