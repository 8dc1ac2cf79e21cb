/**
 * Assets (research B7, C4). Team routes: POST /v1/assets (image, base64 in JSON),
 * POST /v1/assets/video/direct-upload, GET /v1/assets/{asset_id}. Public routes, outside
 * team auth: GET /assets/{asset_id} (the bytes, by id) and PUT /v1/assets/{asset_id}/upload
 * (the one-time token in the URL is the capability).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../../http/validate.ts';
import { notFound } from '../../../errors.ts';
import { VIDEO_MAX_BYTES } from '../assets.ts';
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
    return reply.code(201).send(assets.startVideo(member.team_id, parseWith(VideoBody, request.body)));
  });

  app.get('/v1/assets/:asset_id', async (request) => assets.get(memberWith(request, 'docs:read').team_id, idOf(request.params)));
}

/** Public by id: no team check, never sniffed, never indexed. */
export async function publicAssetRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.get('/assets/:asset_id', async (request, reply) => {
    const content = services.assets.content(idOf(request.params));
    if (!content) throw notFound('No such asset');
    return reply
      .header('content-type', content.content_type)
      .header('x-content-type-options', 'nosniff')
      .header('x-robots-tag', 'noindex')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('content-security-policy', "default-src 'none'")
      .send(content.data);
  });
}

/**
 * PUT of a video's raw bytes to its one-time upload URL. Its own context: the raw-body parser
 * and the larger body limit apply here only, and the token, expiry and content type are checked
 * before the body is read.
 */
export async function videoUploadRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: VIDEO_MAX_BYTES }, (_request: FastifyRequest, body: Buffer | string, done) => {
    done(null, typeof body === 'string' ? Buffer.from(body) : body);
  });
  const tokenOf = (request: FastifyRequest): unknown => (request.query as { token?: unknown }).token;

  app.put(
    '/v1/assets/:asset_id/upload',
    {
      bodyLimit: VIDEO_MAX_BYTES,
      onRequest: async (request) => {
        services.assets.checkUpload(idOf(request.params), tokenOf(request), request.headers['content-type']);
      },
    },
    async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return services.assets.completeUpload(idOf(request.params), String(tokenOf(request)), request.headers['content-type'], body);
    },
  );
}
