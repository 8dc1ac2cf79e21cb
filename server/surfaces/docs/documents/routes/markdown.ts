/**
 * POST /v1/documents/{slug}/versions: the one route whose body is not JSON but the raw UTF-8
 * Markdown itself (`Content-Type: text/markdown`, charset utf-8 if one is named). This context
 * replaces the JSON parser with one that keeps every body's exact bytes in `request.rawBody`,
 * so the team-auth envelope can check body_sha256 before the handler refuses a wrong type (415).
 * The body is therefore not declared as a schema: it is bytes, not JSON, and its checks (type
 * 415, UTF-8 400) come after the envelope's; the path and the answer are declared.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppendQuery, DocumentSaved, SlugParams } from '../../../../../contract/docs/documents.ts';
import { malformed, unsupportedMediaType } from '../../../../errors.ts';
import { decodeUtf8 } from '../service.ts';
import { memberOf } from '../../../../http/route-scope.ts';
import { authorOf, knownSlug, team, type DocsRouteOptions } from '../../route-options.ts';

const WANTED = 'this route takes the raw Markdown body with Content-Type: text/markdown; charset=utf-8';

/** Whether the request's content type is text/markdown, naming no charset or UTF-8. */
export function isMarkdownContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...params] = header.split(';').map((part) => part.trim());
  if (type?.toLowerCase() !== 'text/markdown') return false;
  for (const param of params) {
    if (param === '') continue;
    const [name, value = ''] = param.split('=').map((part) => part.trim());
    if (name?.toLowerCase() !== 'charset') continue;
    if (!['utf-8', 'utf8'].includes(value.replace(/^"|"$/g, '').toLowerCase())) return false;
  }
  return true;
}

export async function markdownRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer | string, done) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    request.rawBody = bytes;
    done(null, bytes);
  });

  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/documents/:slug/versions',
    {
      config: team('docs:write'),
      preValidation: knownSlug,
      schema: {
        tags: ['documents'],
        summary:
          'Appends a version: the raw UTF-8 Markdown body (Content-Type: text/markdown), over `base_version` when given; the latest text again makes none (200, unchanged)',
        params: SlugParams,
        querystring: AppendQuery,
        response: { 200: DocumentSaved, 201: DocumentSaved },
      },
    },
    async (request, reply) => {
      const member = memberOf(request);
      const type = request.headers['content-type'];
      if (!isMarkdownContentType(type)) throw unsupportedMediaType('SVC_ERR_UNSUPPORTED_MEDIA_TYPE', `Unsupported content type ${type ?? '(none)'}: ${WANTED}`);
      const bytes = request.rawBody ?? Buffer.alloc(0);
      if (decodeUtf8(bytes) === null) throw malformed('SVC_ERR_MALFORMED_REQUEST', 'The request body is not valid UTF-8');
      const saved = services.documents.append(
        member.team_id,
        request.params.slug,
        bytes,
        'api',
        authorOf(request, member, services),
        request.query.base_version,
      );
      return reply.code(saved.unchanged ? 200 : 201).send(saved);
    },
  );
}
