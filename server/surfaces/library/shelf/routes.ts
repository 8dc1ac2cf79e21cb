/**
 * The team's private shelf: profiles, versions, tags, import from the catalog, update from source
 * and publish. Schemas and auth are declared; the contract (contract/library/shelf.ts,
 * profiles.ts) is the one definition.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { TagsBody } from '../../../../contract/library/common.ts';
import {
  AddVersionBody,
  AuthoredProfile,
  CreateProfileBody,
  ProfileDeleted,
  ProfileParams,
  ProfileQuery,
  ProfileRead,
  ProfileTags,
  ProfileVersions,
  PublishBody,
  PublishResult,
  UpdateFromSourceBody,
  UpdateFromSourceResult,
} from '../../../../contract/library/profiles.ts';
import { RegisterBody, Registration, ShelfImportBody, ShelfImportResult, ShelfPage, ShelfQuery } from '../../../../contract/library/shelf.ts';
import { memberOf, teamRoute } from '../../../http/route-scope.ts';
import { type LibraryRouteOptions } from '../route-options.ts';

const tags = ['shelf'];

export async function shelfRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { shelf, publisher, registrations } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const team = (request: Parameters<typeof memberOf>[0]): string => memberOf(request).team_id;

  api.post(
    '/v1/team/register',
    {
      config: teamRoute('team:admin'),
      schema: {
        tags,
        summary: "The team's public owner and display name in the catalog; first write wins per field",
        body: RegisterBody,
        response: { 200: Registration },
      },
    },
    async (request) => registrations.register(team(request), request.body),
  );

  api.get(
    '/v1/shelf',
    {
      config: teamRoute('library:read'),
      schema: {
        tags,
        summary: "The team's profiles at their latest versions, in profile_ref order; paged by limit and after",
        querystring: ShelfQuery,
        response: { 200: ShelfPage },
      },
    },
    async (request) => shelf.list(team(request), request.query),
  );

  api.post(
    '/v1/shelf/import',
    {
      config: teamRoute('library:write'),
      schema: {
        tags,
        summary: 'Copies a catalog profile onto the shelf (201; 200 when it is there already from that source)',
        body: ShelfImportBody,
        response: { 200: ShelfImportResult, 201: ShelfImportResult },
      },
    },
    async (request, reply) => {
      const result = shelf.importFromBlueprint(team(request), request.body);
      return reply.code(result.created ? 201 : 200).send(result);
    },
  );

  api.post(
    '/v1/profiles',
    {
      config: teamRoute('library:write'),
      schema: { tags, summary: "A new profile made on the shelf; profile.yaml's id is its ref", body: CreateProfileBody, response: { 201: AuthoredProfile } },
    },
    async (request, reply) => reply.code(201).send(shelf.create(team(request), request.body.files, request.body.tags)),
  );

  api.get(
    '/v1/profiles/:profile_ref',
    {
      config: teamRoute('library:read'),
      schema: {
        tags,
        summary: 'A profile at its latest (or the given) version; include=files adds its files and proposal digests',
        params: ProfileParams,
        querystring: ProfileQuery,
        response: { 200: ProfileRead },
      },
    },
    async (request) => shelf.get(team(request), request.params.profile_ref, { files: request.query.include === 'files', version: request.query.version }),
  );

  api.get(
    '/v1/profiles/:profile_ref/versions',
    {
      config: teamRoute('library:read'),
      schema: { tags, summary: "A profile's versions, newest first", params: ProfileParams, response: { 200: ProfileVersions } },
    },
    async (request) => shelf.versions(team(request), request.params.profile_ref),
  );

  api.post(
    '/v1/profiles/:profile_ref/versions',
    {
      config: teamRoute('library:write'),
      schema: { tags, summary: 'A new version from whole files', params: ProfileParams, body: AddVersionBody, response: { 201: AuthoredProfile } },
    },
    async (request, reply) => reply.code(201).send(shelf.addVersion(team(request), request.params.profile_ref, request.body.files)),
  );

  api.post(
    '/v1/profiles/:profile_ref/update-from-source',
    {
      config: teamRoute('library:write'),
      schema: {
        tags,
        summary: "Merges the source blueprint's newer profile in, keeping local edits (dry_run: only report)",
        params: ProfileParams,
        body: UpdateFromSourceBody,
        response: { 200: UpdateFromSourceResult },
      },
    },
    async (request) => shelf.updateFromSource(team(request), request.params.profile_ref, request.body),
  );

  api.post(
    '/v1/profiles/:profile_ref/publish',
    {
      config: teamRoute('library:publish'),
      schema: {
        tags,
        summary: 'Publishes a profile version as a new blueprint or the next version of one the team owns',
        params: ProfileParams,
        body: PublishBody,
        response: { 201: PublishResult },
      },
    },
    async (request, reply) => reply.code(201).send(publisher.publish(team(request), request.params.profile_ref, request.body)),
  );

  api.put(
    '/v1/profiles/:profile_ref/tags',
    {
      config: teamRoute('library:write'),
      schema: {
        tags,
        summary: "Replaces a profile's tags (record metadata: no new version)",
        params: ProfileParams,
        body: TagsBody,
        response: { 200: ProfileTags },
      },
    },
    async (request) => shelf.setTags(team(request), request.params.profile_ref, request.body.tags),
  );

  api.delete(
    '/v1/profiles/:profile_ref',
    {
      config: teamRoute('library:write'),
      schema: { tags, summary: 'Deletes a profile with every version, binding and proposal', params: ProfileParams, response: { 200: ProfileDeleted } },
    },
    async (request) => shelf.delete(team(request), request.params.profile_ref),
  );
}
