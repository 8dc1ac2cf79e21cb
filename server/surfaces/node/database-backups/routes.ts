/**
 * Backups of the node's database (`/v1/node/backups`): one now into a folder the owner chooses,
 * the last one's time and folder, the schedule the node keeps, and the backup being written now
 * (`/v1/node/backups/running`: shown in the status, cancelled by deleting it) (service.ts).
 * Schemas: contract/node/backups.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { BackupResult, BackupScheduleBody, BackupStatus, StartBackupBody } from '../../../../contract/node/backups.ts';
import type { DatabaseBackups } from './service.ts';

const tags = ['owner'];

export async function databaseBackupRoutes(app: FastifyInstance, { backups }: { backups: DatabaseBackups }): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/node/backups',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: "Backs the node's database up now into a folder (an absolute path, made 0700 when absent): sealed chunks, only the new ones written",
        body: StartBackupBody,
        response: { 200: BackupResult },
      },
    },
    async (request) => backups.backUp(request.body.to),
  );

  api.get(
    '/v1/node/backups',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'When the last backup was written and where, the schedule, and how far the backup being written is',
        response: { 200: BackupStatus },
      },
    },
    async () => backups.status(),
  );

  api.delete(
    '/v1/node/backups/running',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'Cancels the backup being written (no backup is added to its folder) and answers the status once it stopped; 404 when none is',
        response: { 200: BackupStatus },
      },
    },
    async () => backups.cancel(),
  );

  api.put(
    '/v1/node/backups/schedule',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'Backs up into a folder every so many hours (0 stops it); the node runs it while it runs',
        body: BackupScheduleBody,
        response: { 200: BackupStatus },
      },
    },
    async (request) => backups.schedule(request.body),
  );
}
