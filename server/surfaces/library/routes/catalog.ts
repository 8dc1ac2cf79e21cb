/**
 * The catalog: three public reads anyone may make without a certificate (research A9), and the
 * owner team's writes (import, tags, delete).
 */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../../http/validate.ts';
import { checkPayloadFiles } from '../domain/payload.ts';
import { normalizeTags } from '../domain/tags.ts';
import { BlueprintParams, BlueprintProfileParams, CatalogQuery, ImportBody, TagsBody, VersionQuery } from '../schemas.ts';
import { memberOf, type LibraryRouteOptions } from './options.ts';

export async function publicCatalogRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { catalog } = services;

  app.get('/v1/blueprints', async (request) => {
    const { tags } = parseWith(CatalogQuery, request.query, 'query');
    return catalog.list(normalizeTags(tags));
  });

  app.get('/v1/blueprints/:blueprint_ref', async (request) => {
    const { blueprint_ref } = parseWith(BlueprintParams, request.params, 'path');
    return catalog.get(blueprint_ref, parseWith(VersionQuery, request.query, 'query').version);
  });

  app.get('/v1/blueprints/:blueprint_ref/profiles/:profile_ref', async (request) => {
    const { blueprint_ref, profile_ref } = parseWith(BlueprintProfileParams, request.params, 'path');
    return catalog.publicProfile(blueprint_ref, profile_ref, parseWith(VersionQuery, request.query, 'query').version);
  });
}

export async function catalogWriteRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { catalog, registrations } = services;

  app.post('/v1/blueprints/import', async (request, reply) => {
    const member = memberOf(request);
    const body = parseWith(ImportBody, request.body);
    const files = checkPayloadFiles(body.files, ['body', 'files']);
    registrations.register(member.team_id, {});
    const result = catalog.publish(member.team_id, files);
    return reply.code(result.created ? 201 : 200).send(result);
  });

  app.put('/v1/blueprints/:blueprint_ref/tags', async (request) => {
    const { blueprint_ref } = parseWith(BlueprintParams, request.params, 'path');
    return catalog.setTags(memberOf(request).team_id, blueprint_ref, normalizeTags(parseWith(TagsBody, request.body).tags));
  });

  app.delete('/v1/blueprints/:blueprint_ref', async (request) => {
    const { blueprint_ref } = parseWith(BlueprintParams, request.params, 'path');
    return catalog.delete(memberOf(request).team_id, blueprint_ref);
  });
}
