/**
 * Assets (docs/adr/0006-library-and-document-surfaces.md). Team routes: POST /v1/assets (image,
 * base64 in JSON), POST /v1/assets/video/direct-upload, GET /v1/assets/{asset_id}. Public routes,
 * outside team auth: GET /assets/{asset_id} (the bytes, by id; a video streamed from its file, with
 * Range) and PUT /v1/assets/{asset_id}/upload (the one-time token in the URL is the capability).
 */
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Asset, AssetIdParams, DirectUpload, ImageBody, UploadQuery, VideoBody } from '../../../../contract/docs/assets.ts';
import { notFound, ServiceError } from '../../../errors.ts';
import { byteRange } from '../domain/byte-range.ts';
import { memberOf } from '../../../http/route-scope.ts';
import { team, type DocsRouteOptions } from '../route-options.ts';

const tags = ['assets'];

/** Behind team auth. */
export async function assetRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  const { assets } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/assets',
    { config: team('docs:write'), schema: { tags, summary: 'Stores an image (base64, at most 256 KiB)', body: ImageBody, response: { 201: Asset } } },
    async (request, reply) => reply.code(201).send(assets.createImage(memberOf(request).team_id, request.body.content_type, request.body.data_base64)),
  );

  api.post(
    '/v1/assets/video/direct-upload',
    {
      config: { ...team('docs:write'), answerHoldsSecret: true },
      schema: { tags, summary: 'A pending video and its one-time upload URL', body: VideoBody, response: { 201: DirectUpload } },
    },
    async (request, reply) => reply.code(201).send(services.uploads.start(memberOf(request).team_id, request.body)),
  );

  api.get(
    '/v1/assets/:asset_id',
    { config: team('docs:read'), schema: { tags, summary: 'An asset of the team', params: AssetIdParams, response: { 200: Asset } } },
    async (request) => assets.get(memberOf(request).team_id, request.params.asset_id),
  );
}

/** Public by id: no team check, never sniffed, never indexed. The answer is the asset's bytes, not JSON. */
export async function publicAssetRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/assets/:asset_id',
      { config: { auth: 'public' }, schema: { tags, summary: 'An asset’s bytes, by id (a video with Range)', params: AssetIdParams } },
      async (request, reply) => {
        const content = services.assets.content(request.params.asset_id);
        if (!content) throw notFound('SVC_ERR_ASSET_NOT_FOUND', 'No such asset');
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
      },
    );
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
 * before any of it is read. So no body schema is declared (the bytes are no JSON and are read
 * after validation); the path, the token and the answer are, and by the time the token's schema
 * runs the onRequest check has already accepted it.
 */
export async function videoUploadRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  // Leave the body unread: the handler consumes request.raw itself.
  app.addContentTypeParser('*', (_request: FastifyRequest, _payload: unknown, done: (error: Error | null, body?: unknown) => void) => done(null));
  // Read raw in onRequest, which runs before any schema.
  const idOf = (request: FastifyRequest): string => String((request.params as { asset_id?: unknown }).asset_id);
  const tokenOf = (request: FastifyRequest): unknown => (request.query as { token?: unknown }).token;

  app.withTypeProvider<ZodTypeProvider>().put(
    '/v1/assets/:asset_id/upload',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'The video’s raw bytes, once, to its one-time upload URL (the token is the capability)',
        params: AssetIdParams,
        querystring: UploadQuery,
        response: { 200: Asset },
      },
      onRequest: async (request, reply) => {
        try {
          services.uploads.check(idOf(request), tokenOf(request), request.headers['content-type'], request.headers['content-length']);
        } catch (error) {
          refuse(request, reply, error);
        }
      },
    },
    async (request, reply) => {
      const { headers } = request;
      try {
        return await services.uploads.receive(request.params.asset_id, request.query.token, headers['content-type'], headers['content-length'], request.raw);
      } catch (error) {
        return refuse(request, reply, error);
      }
    },
  );
}
