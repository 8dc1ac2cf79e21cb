/**
 * Documents over JSON (research B2): create (raw Markdown or a template), list, read, history,
 * one older version (ours, C7) and template appends.
 */
import type { FastifyInstance } from 'fastify';
import { invalid } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import { renderTemplate } from '../domain/templates.ts';
import { CreateDocumentBody, DocumentListQuery, TemplateRequest, VersionParams } from '../schemas.ts';
import { authorOf, memberWith, slugOf, type DocsRouteOptions } from './options.ts';

export async function documentRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  const { documents } = services;

  app.post('/v1/documents', async (request, reply) => {
    const member = memberWith(request, 'docs:write');
    // Key presence decides, so `body: ""` next to a template is refused too.
    const raw = request.body;
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && Object.hasOwn(raw, 'body') === Object.hasOwn(raw, 'template')) {
      throw invalid([{ loc: ['body'], msg: 'Provide exactly one of body or template', type: 'value_error' }]);
    }
    const input = parseWith(CreateDocumentBody, request.body);
    const fromTemplate = input.template !== undefined;
    const markdown = fromTemplate ? renderTemplate(input.template!, ['body', 'template']) : input.body!;
    const created = documents.create(
      member.team_id,
      { slug: input.slug, title: input.title, body: Buffer.from(markdown, 'utf8'), source: fromTemplate ? 'template' : 'api' },
      authorOf(request, member, services),
    );
    return reply.code(201).send(created);
  });

  // Without `limit`, every document (the spec's array); with it, a page (ours).
  app.get('/v1/documents', async (request) => {
    const teamId = memberWith(request, 'docs:read').team_id;
    const query = parseWith(DocumentListQuery, request.query, 'query');
    if (query.limit === undefined) {
      if (query.after !== undefined) throw invalid([{ loc: ['query', 'after'], msg: 'after pages a listing: give limit too', type: 'value_error' }]);
      return documents.list(teamId, query.q);
    }
    return documents.page(teamId, { limit: query.limit, after: query.after, q: query.q });
  });

  app.get('/v1/documents/:slug', async (request) => documents.get(memberWith(request, 'docs:read').team_id, slugOf(request.params)));

  app.get('/v1/documents/:slug/versions', async (request) =>
    documents.versions(memberWith(request, 'docs:read').team_id, slugOf(request.params)),
  );

  app.get('/v1/documents/:slug/versions/:n', async (request) => {
    const member = memberWith(request, 'docs:read');
    const slug = slugOf(request.params);
    return documents.version(member.team_id, slug, parseWith(VersionParams, request.params, 'path').n);
  });

  app.post('/v1/documents/:slug/versions/template', async (request, reply) => {
    const member = memberWith(request, 'docs:write');
    const slug = slugOf(request.params);
    const markdown = renderTemplate(parseWith(TemplateRequest, request.body), ['body']);
    return reply.code(201).send(documents.append(member.team_id, slug, Buffer.from(markdown, 'utf8'), 'template', authorOf(request, member, services)));
  });
}
