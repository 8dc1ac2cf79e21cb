/**
 * Identity backup (`/v1/node/identities/.../export`, `/v1/node/identities/import`): a persistent
 * identity's seed sealed under the owner's passphrase, with both logs, and restoring one into a
 * project (core/identities/backup.ts). Schemas: contract/node/identities.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AgentIdParams, ExportIdentityBody, IdentityBackup, ImportedIdentity, ImportIdentityBody } from '../../../../contract/node/identities.ts';
import type { CoreServices } from '../../core/services.ts';

const tags = ['owner'];

export async function backupRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { backups } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/node/identities/:agent_id/export',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: "A persistent identity's backup, its seed and encryption keys sealed under the passphrase",
        params: AgentIdParams,
        body: ExportIdentityBody,
        response: { 200: IdentityBackup },
      },
    },
    async (request) => backups.export(request.params.agent_id, request.body.passphrase),
  );

  api.post(
    '/v1/node/identities/import',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'Restores an identity from its backup into a project (with a fresh API key)',
        body: ImportIdentityBody,
        response: { 201: ImportedIdentity },
      },
    },
    async (request, reply) => {
      const { project_id, passphrase, backup } = request.body;
      return reply.code(201).send(backups.import(project_id, backup, passphrase));
    },
  );
}
