/**
 * Identity routes (spec §4.3): creation with a project-authority key, the self operations of an
 * identity's own key, address resolution, and the hosted archive/replace transitions, which the
 * owner or the project's authority drive. Schemas and auth are declared; the contract
 * (contract/core/identities.ts) is the one definition.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AgentIdParams,
  AgentLog,
  Archived,
  CreatedIdentity,
  Deleted,
  InitBody,
  Introspection,
  Replaced,
  ReplaceBody,
  ResolveParams,
  Resolved,
  Rotated,
  Settings,
  SettingsBody,
} from '../../../../contract/core/identities.ts';
import { EncryptionKeyAssertion, PublishedEncryptionKey } from '../../../../contract/core/encryption-keys.ts';
import { authenticate } from '../../../auth/bearer.ts';
import { forbidden, notFound } from '../../../errors.ts';
import { identityOf, principalOf } from '../../../http/route-auth.ts';
import type { CoreServices } from '../services.ts';

const tags = ['identities'];

export async function identityRoutes(app: FastifyInstance, { services, ownerListener }: { services: CoreServices; ownerListener: boolean }): Promise<void> {
  const { ctx, identities, lifecycle, owner, teamAgents } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  /**
   * Archive and replace are owner-driven: the node owner (on the loopback listener only), or the
   * project's authority key. They declare `auth: 'key'` with `ownerToo`, so the auth hook leaves a
   * request carrying the owner token to this check: honoured here on the loopback listener; on the
   * peer listener the token is no API key, and authenticating it refuses it (401) as it always has.
   */
  const ownerDriven = (request: FastifyRequest, agentId: string): string => {
    if (ownerListener && owner.isOwner(request)) {
      identities.row(agentId);
      return agentId;
    }
    const principal = request.principal ?? authenticate(ctx, request);
    if (principal.agentId !== null) throw forbidden('SVC_ERR_API_KEY_WRONG_KIND', 'Archive and replace need the project-authority key or the node owner');
    if (identities.row(agentId).project_id !== principal.projectId) throw notFound('SVC_ERR_IDENTITY_NOT_FOUND', 'Identity not found');
    return agentId;
  };

  api.post(
    '/v1/workspaces/init',
    {
      config: { auth: 'project' },
      schema: { tags, summary: "Creates an identity in the key's project; its API key is shown once", body: InitBody, response: { 201: CreatedIdentity } },
    },
    async (request, reply) => reply.code(201).send(identities.create(principalOf(request).projectId, request.body)),
  );

  api.get(
    '/v1/auth/introspect',
    {
      config: { auth: 'key' },
      schema: { tags, summary: 'What the API key is: a project authority, or an identity and its state', response: { 200: Introspection } },
    },
    async (request) => identities.introspect(principalOf(request)),
  );

  api.get(
    '/v1/agents/me/log',
    { config: { auth: 'identity' }, schema: { tags, summary: "The identity's signed audit log and its did:svc log", response: { 200: AgentLog } } },
    async (request) => identities.log(identityOf(request).agentId),
  );

  api.put(
    '/v1/agents/me/rotate',
    {
      config: { auth: 'identity' },
      schema: { tags, summary: "Rotates a persistent identity's key; the retiring key signs the change", response: { 200: Rotated } },
    },
    async (request) => lifecycle.rotate(identityOf(request).agentId),
  );

  api.put(
    '/v1/agents/me/encryption-key',
    {
      config: { auth: 'identity' },
      schema: {
        tags,
        summary:
          "Publishes a self-custodial identity's end-to-end encryption key assertion, verified against its current did:key and did:svc (upstream's PUT /v1/agents/me/encryption-key)",
        body: EncryptionKeyAssertion,
        response: { 200: PublishedEncryptionKey },
      },
    },
    async (request) => {
      const { agentId } = identityOf(request);
      const encryption_key = identities.encryptionKeys.publishSelf(agentId, request.body);
      return { agent_id: agentId, team_id: teamAgents.teamIdOf(agentId) ?? '', alias: identities.row(agentId).alias, encryption_key };
    },
  );

  api.delete(
    '/v1/agents/me',
    { config: { auth: 'identity' }, schema: { tags, summary: 'Deletes an ephemeral identity', response: { 200: Deleted } } },
    async (request) => lifecycle.remove(identityOf(request).agentId),
  );

  api.patch(
    '/v1/agents/me',
    {
      config: { auth: 'identity' },
      schema: {
        tags,
        summary: "Changes the identity's settings and, for a team member, its workspace's hostname and workspace_path (upstream's PATCH /v1/agents/me)",
        body: SettingsBody,
        response: { 200: Settings },
      },
    },
    async (request) => {
      const { agentId } = identityOf(request);
      const { hostname, workspace_path } = request.body;
      // The workspace fields first: an identity without a team workspace is refused (404) before
      // anything changes. role and human_name are the identity's, member or not.
      const workspace =
        hostname !== undefined || workspace_path !== undefined
          ? teamAgents.updateWorkspace(agentId, { hostname, workspace_path })
          : teamAgents.workspaceOf(agentId);
      const settings = identities.updateSettings(agentId, request.body);
      return { ...settings, hostname: workspace?.hostname ?? null, workspace_path: workspace?.workspace_path ?? null };
    },
  );

  api.get(
    '/v1/agents/resolve/:namespace/:name',
    { config: { auth: 'key' }, schema: { tags, summary: 'The identity behind an address', params: ResolveParams, response: { 200: Resolved } } },
    async (request) => identities.resolve(principalOf(request), request.params.namespace, request.params.name),
  );

  api.post(
    '/api/v1/agents/:agent_id/archive',
    {
      config: { auth: 'key', ownerToo: true },
      schema: {
        tags,
        summary: "Archives a persistent identity (the project's authority key, or the owner token on the loopback listener)",
        params: AgentIdParams,
        response: { 200: Archived },
      },
    },
    async (request) => lifecycle.archive(ownerDriven(request, request.params.agent_id)),
  );

  api.post(
    '/api/v1/agents/:agent_id/replace',
    {
      config: { auth: 'key', ownerToo: true },
      schema: {
        tags,
        summary:
          "Replaces a persistent identity with a fresh one that takes its addresses; the body says who holds the successor's key (the project's authority key, or the owner token on the loopback listener)",
        params: AgentIdParams,
        body: ReplaceBody,
        response: { 200: Replaced },
      },
    },
    async (request) => lifecycle.replace(ownerDriven(request, request.params.agent_id), request.body),
  );
}
