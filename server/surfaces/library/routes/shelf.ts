/**
 * The team's private shelf: profiles, versions, tags, import from the catalog, update from source
 * and publish.
 */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../../http/validate.ts';
import { checkPayloadFiles } from '../domain/payload.ts';
import { normalizeTags } from '../domain/tags.ts';
import {
  AddVersionBody,
  CreateProfileBody,
  ProfileParams,
  ProfileQuery,
  PublishBody,
  RegisterBody,
  ShelfImportBody,
  ShelfQuery,
  TagsBody,
  UpdateFromSourceBody,
} from '../schemas.ts';
import { memberOf, type LibraryRouteOptions } from './options.ts';

export async function shelfRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { shelf, publisher, registrations } = services;
  const team = (request: Parameters<typeof memberOf>[0]): string => memberOf(request).team_id;
  const refOf = (params: unknown): string => parseWith(ProfileParams, params, 'path').profile_ref;

  app.post('/v1/team/register', async (request) => registrations.register(team(request), parseWith(RegisterBody, request.body)));

  app.get('/v1/shelf', async (request) => shelf.list(team(request), parseWith(ShelfQuery, request.query, 'query')));

  app.post('/v1/shelf/import', async (request, reply) => {
    const body = parseWith(ShelfImportBody, request.body);
    const result = shelf.importFromBlueprint(team(request), { ...body, tags: normalizeTags(body.tags ?? []) });
    return reply.code(result.created ? 201 : 200).send(result);
  });

  app.post('/v1/profiles', async (request, reply) => {
    const body = parseWith(CreateProfileBody, request.body);
    const files = checkPayloadFiles(body.files, ['body', 'files']);
    return reply.code(201).send(shelf.create(team(request), files, normalizeTags(body.tags ?? [])));
  });

  app.get('/v1/profiles/:profile_ref', async (request) => {
    const query = parseWith(ProfileQuery, request.query, 'query');
    return shelf.get(team(request), refOf(request.params), { files: query.include === 'files', version: query.version });
  });

  app.get('/v1/profiles/:profile_ref/versions', async (request) => shelf.versions(team(request), refOf(request.params)));

  app.post('/v1/profiles/:profile_ref/versions', async (request, reply) => {
    const files = checkPayloadFiles(parseWith(AddVersionBody, request.body).files, ['body', 'files']);
    return reply.code(201).send(shelf.addVersion(team(request), refOf(request.params), files));
  });

  app.post('/v1/profiles/:profile_ref/update-from-source', async (request) =>
    shelf.updateFromSource(team(request), refOf(request.params), parseWith(UpdateFromSourceBody, request.body)),
  );

  app.post('/v1/profiles/:profile_ref/publish', async (request, reply) => {
    const body = parseWith(PublishBody, request.body);
    const normalized = body.new_blueprint?.tags ? { ...body, new_blueprint: { ...body.new_blueprint, tags: normalizeTags(body.new_blueprint.tags) } } : body;
    return reply.code(201).send(publisher.publish(team(request), refOf(request.params), normalized));
  });

  app.put('/v1/profiles/:profile_ref/tags', async (request) =>
    shelf.setTags(team(request), refOf(request.params), normalizeTags(parseWith(TagsBody, request.body).tags)),
  );

  app.delete('/v1/profiles/:profile_ref', async (request) => shelf.delete(team(request), refOf(request.params)));
}
