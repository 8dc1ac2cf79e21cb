/**
 * The recovery kit (`/v1/node/recovery-kit`): made inside the node under the owner's passphrase
 * (server/recovery/kit/), and whether the last one still holds every key. Schemas:
 * contract/node/recovery-kit.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CreateRecoveryKitBody, RecoveryKitCreated, RecoveryKitStatus } from '../../../../contract/node/recovery-kit.ts';
import type { RecoveryKits } from '../../../recovery/kit/service.ts';

const tags = ['owner'];

export async function recoveryKitRoutes(app: FastifyInstance, { kits }: { kits: RecoveryKits }): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/node/recovery-kit',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: "A recovery kit: every key and the identities' state, sealed under the passphrase",
        body: CreateRecoveryKitBody,
        response: { 201: RecoveryKitCreated },
      },
    },
    async (request, reply) => reply.code(201).send(kits.create(request.body.passphrase)),
  );

  api.get(
    '/v1/node/recovery-kit',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'When the last recovery kit was made, and whether a key changed since', response: { 200: RecoveryKitStatus } },
    },
    async () => kits.status(),
  );
}
