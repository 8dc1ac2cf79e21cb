/**
 * The owner's identities (`/v1/node/identities`): every identity of the node with its encryption
 * key's health, a new persistent one, the settings the owner decides for one (whether it accepts
 * plaintext mail), a new signing key for one (core/identities/lifecycle.ts), a fresh encryption key for one
 * (core/identities/encryption-keys.ts, which also sums up each key's health), and a key acting as
 * one for the UI (core/identities/service.ts). Schemas:
 * contract/node/identities.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CreatedIdentity, Rotated } from '../../../../contract/core/identities.ts';
import { AgentIdParams, CreateIdentityBody, IdentityList, NodeIdentity, NodeSettingsBody, SessionKey } from '../../../../contract/node/identities.ts';
import { EncryptionKeyRotated } from '../../../../contract/core/encryption-keys.ts';
import type { CoreServices } from '../../core/services.ts';

const tags = ['owner'];

export async function identityRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { owner, identities, encryptionKeys, lifecycle } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/node/identities',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Every identity of the node, oldest first, each with its encryption key’s health', response: { 200: IdentityList } },
    },
    async () => ({ identities: identities.list() }),
  );

  api.post(
    '/v1/node/identities',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'Creates a persistent identity in a project; its API key is shown once',
        body: CreateIdentityBody,
        response: { 201: CreatedIdentity },
      },
    },
    async (request, reply) => {
      const { project_id, ...rest } = request.body;
      return reply.code(201).send(identities.create(project_id, { ...rest, lifetime: 'persistent' }));
    },
  );

  api.patch(
    '/v1/node/identities/:agent_id',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'Changes the settings the owner decides for an identity: whether it accepts plaintext mail from senders that do not encrypt end to end',
        params: AgentIdParams,
        body: NodeSettingsBody,
        response: { 200: NodeIdentity },
      },
    },
    async (request) => identities.updateByOwner(request.params.agent_id, request.body),
  );

  api.post(
    '/v1/node/identities/:agent_id/rotate',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary:
          "Gives a custodial persistent identity a new signing key (as PUT /v1/agents/me/rotate does): the retiring key signs the did:svc log's entry and is destroyed, on every linked device too",
        params: AgentIdParams,
        response: { 200: Rotated },
      },
    },
    async (request) => lifecycle.rotate(request.params.agent_id),
  );

  api.post(
    '/v1/node/identities/:agent_id/encryption-key/rotate',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'Gives a custodial identity a fresh end-to-end encryption key; the old one is archived in custody, so what was sealed to it stays readable',
        params: AgentIdParams,
        response: { 200: EncryptionKeyRotated },
      },
    },
    async (request) => encryptionKeys.rotate(request.params.agent_id),
  );

  api.post(
    '/v1/node/identities/:agent_id/session-key',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'A key acting as the identity for 24 h (the UI holds it in memory only)', params: AgentIdParams, response: { 201: SessionKey } },
    },
    async (request, reply) => {
      const key = identities.issueSessionKey(request.params.agent_id);
      // Minted for a browser window: it ends when that window's session is signed out.
      if (request.ownerSession) owner.sessions.bindKey(request.ownerSession, key.api_key_id);
      return reply.code(201).send(key);
    },
  );
}
