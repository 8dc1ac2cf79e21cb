/**
 * The owner's projects (`/v1/node/projects`): the node's projects, and a new one whose authority
 * key is shown once (core/projects/service.ts). Schemas: contract/node/owner.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CreatedProject, CreateProjectBody, ProjectList } from '../../../../contract/node/owner.ts';
import type { CoreServices } from '../../core/services.ts';

const tags = ['owner'];

export async function projectRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { projects } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/node/projects',
    { config: { auth: 'owner' }, schema: { tags, summary: "The node's projects, oldest first", response: { 200: ProjectList } } },
    async () => ({ projects: projects.list() }),
  );

  api.post(
    '/v1/node/projects',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Creates a project; its authority key is shown once', body: CreateProjectBody, response: { 201: CreatedProject } },
    },
    async (request, reply) => reply.code(201).send(projects.create(request.body)),
  );
}
