/**
 * Documents over JSON, upstream's routes: create (raw Markdown or a template), list, read, history,
 * one older version (ours) and template appends. Schemas and scopes are declared; the
 * contract (contract/docs/documents.ts, templates.ts) is the one definition.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  CreateDocumentBody,
  DocumentDetail,
  DocumentListing,
  DocumentListQuery,
  DocumentSaved,
  DocumentVersion,
  SlugParams,
  VersionList,
  VersionParams,
} from '../../../../../contract/docs/documents.ts';
import { TemplateRequest } from '../../../../../contract/docs/templates.ts';
import { memberOf } from '../../../../http/route-scope.ts';
import { authorOf, knownSlug, team, type DocsRouteOptions } from '../../route-options.ts';

const tags = ['documents'];

export async function documentRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  const { documents } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/documents',
    {
      config: team('docs:write'),
      schema: {
        tags,
        summary: 'Creates a document from raw Markdown or a template (exactly one)',
        body: CreateDocumentBody,
        response: { 201: DocumentDetail },
      },
    },
    async (request, reply) => {
      const member = memberOf(request);
      return reply.code(201).send(documents.createFromRequest(member.team_id, request.body, authorOf(request, member, services)));
    },
  );

  // Without `limit`, every document (the spec's array); with it, a page (ours).
  api.get(
    '/v1/documents',
    {
      config: team('docs:read'),
      schema: {
        tags,
        summary: 'The team’s documents, most recently changed first: all of them, or a page with `limit`',
        querystring: DocumentListQuery,
        response: { 200: DocumentListing },
      },
    },
    async (request) => {
      const teamId = memberOf(request).team_id;
      const query = request.query;
      if (query.limit === undefined) return documents.list(teamId, query.q);
      return documents.page(teamId, { limit: query.limit, after: query.after, q: query.q });
    },
  );

  api.get(
    '/v1/documents/:slug',
    {
      config: team('docs:read'),
      preValidation: knownSlug,
      schema: { tags, summary: 'A document with its current body', params: SlugParams, response: { 200: DocumentDetail } },
    },
    async (request) => documents.get(memberOf(request).team_id, request.params.slug),
  );

  api.get(
    '/v1/documents/:slug/versions',
    {
      config: team('docs:read'),
      preValidation: knownSlug,
      schema: { tags, summary: 'The history, newest first, without bodies', params: SlugParams, response: { 200: VersionList } },
    },
    async (request) => documents.versions(memberOf(request).team_id, request.params.slug),
  );

  api.get(
    '/v1/documents/:slug/versions/:n',
    {
      config: team('docs:read'),
      preValidation: knownSlug,
      schema: { tags, summary: 'One version with its body', params: VersionParams, response: { 200: DocumentVersion } },
    },
    async (request) => documents.version(memberOf(request).team_id, request.params.slug, request.params.n),
  );

  api.post(
    '/v1/documents/:slug/versions/template',
    {
      config: team('docs:write'),
      preValidation: knownSlug,
      schema: {
        tags,
        summary: 'Appends a version rendered from a template; the latest text again makes none (200, unchanged)',
        params: SlugParams,
        body: TemplateRequest,
        response: { 200: DocumentSaved, 201: DocumentSaved },
      },
    },
    async (request, reply) => {
      const member = memberOf(request);
      const appended = documents.appendTemplate(member.team_id, request.params.slug, request.body, authorOf(request, member, services));
      return reply.code(appended.unchanged ? 200 : 201).send(appended);
    },
  );
}
