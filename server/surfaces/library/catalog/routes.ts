/**
 * The catalog: three public reads anyone may make without a certificate, as upstream serves them,
 * and the owner team's writes (import, tags, delete). Schemas and auth are declared; the contract
 * (contract/library/catalog.ts) is the one definition.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  BlueprintDeleted,
  BlueprintDetail,
  BlueprintImportResult,
  BlueprintList,
  BlueprintParams,
  BlueprintProfileParams,
  BlueprintTags,
  CatalogQuery,
  ImportBody,
  PublicProfile,
  VersionQuery,
} from '../../../../contract/library/catalog.ts';
import { TagsBody } from '../../../../contract/library/common.ts';
import { memberOf, teamRoute } from '../../../http/route-scope.ts';
import { type LibraryRouteOptions } from '../route-options.ts';

const tags = ['catalog'];

export async function publicCatalogRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { catalog } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/blueprints',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'The latest version of every blueprint, newest first; tags match any',
        querystring: CatalogQuery,
        response: { 200: BlueprintList },
      },
    },
    async (request) => catalog.list(request.query.tags),
  );

  api.get(
    '/v1/blueprints/:blueprint_ref',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'A blueprint at a version (default latest): profiles, files and every version',
        params: BlueprintParams,
        querystring: VersionQuery,
        response: { 200: BlueprintDetail },
      },
    },
    async (request) => catalog.get(request.params.blueprint_ref, request.query.version),
  );

  api.get(
    '/v1/blueprints/:blueprint_ref/profiles/:profile_ref',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'One profile of a blueprint version: its manifest fields and files',
        params: BlueprintProfileParams,
        querystring: VersionQuery,
        response: { 200: PublicProfile },
      },
    },
    async (request) => catalog.publicProfile(request.params.blueprint_ref, request.params.profile_ref, request.query.version),
  );
}

export async function catalogWriteRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { catalog } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/blueprints/import',
    {
      config: teamRoute('library:publish'),
      schema: {
        tags,
        summary: 'Publishes a blueprint payload as the team (201; 200 when identical content is already published)',
        body: ImportBody,
        response: { 200: BlueprintImportResult, 201: BlueprintImportResult },
      },
    },
    async (request, reply) => {
      const result = catalog.importPayload(memberOf(request).team_id, request.body.files);
      return reply.code(result.created ? 201 : 200).send(result);
    },
  );

  api.put(
    '/v1/blueprints/:blueprint_ref/tags',
    {
      config: teamRoute('library:publish'),
      schema: { tags, summary: 'Replaces the tags of a blueprint the team owns', params: BlueprintParams, body: TagsBody, response: { 200: BlueprintTags } },
    },
    async (request) => catalog.setTags(memberOf(request).team_id, request.params.blueprint_ref, request.body.tags),
  );

  api.delete(
    '/v1/blueprints/:blueprint_ref',
    {
      config: teamRoute('library:publish'),
      schema: {
        tags,
        summary: 'Deletes every version of a blueprint the team owns; shelf copies tracking it are detached',
        params: BlueprintParams,
        response: { 200: BlueprintDeleted },
      },
    },
    async (request) => catalog.delete(memberOf(request).team_id, request.params.blueprint_ref),
  );
}
