/**
 * The owner API (`/v1/node/...`): what the node's owner does through the UI and the CLI. Only the
 * loopback listener mounts it. Every route but the code exchange declares `auth: 'owner'` (the
 * owner token or a browser session, checked by the auth hook before validation); schemas are the
 * contract's (contract/node/).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EventStreamQuery, NodeFeedFrames, StreamResumeHeaders } from '../../../contract/core/events.ts';
import { CreatedIdentity } from '../../../contract/core/identities.ts';
import { Namespace, NamespaceList } from '../../../contract/core/namespaces.ts';
import {
  AgentIdParams,
  CreateIdentityBody,
  ExportIdentityBody,
  IdentityBackup,
  IdentityList,
  ImportedIdentity,
  ImportIdentityBody,
  SessionKey,
} from '../../../contract/node/identities.ts';
import { CreatedProject, CreateNamespaceBody, CreateProjectBody, NodeInfo, ProjectList, UiLink } from '../../../contract/node/owner.ts';
import { endOfStream, openSse, streamWindow } from '../../http/sse.ts';
import type { TunnelService } from '../../tunnel/service.ts';
import { feedIds } from '../core/events/node-feed.ts';
import type { CoreServices } from '../core/services.ts';
import { docsOwnerRoutes } from './docs-routes.ts';
import { peerRoutes } from './peer-routes.ts';
import { ownerSearchRoutes } from './search-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { setupRoutes } from './setup-routes.ts';
import { teamRoutes } from './team-routes.ts';
import { tunnelRoutes } from './tunnel-routes.ts';

const tags = ['owner'];

export interface OwnerApiOptions {
  services: CoreServices;
  tunnel: TunnelService;
  nodeInfo: () => NodeInfo;
  uiLink: () => string;
}

export async function ownerApi(app: FastifyInstance, { services, tunnel, nodeInfo, uiLink }: OwnerApiOptions): Promise<void> {
  const { owner, projects, identities, namespaces, backups, wakeFeed, ctx } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  await app.register(sessionRoutes, { services });

  api.post(
    '/v1/node/ui-link',
    { config: { auth: 'owner' }, schema: { tags, summary: 'A fresh one-time link that opens the UI in a browser', response: { 200: UiLink } } },
    async () => ({ ui_url: uiLink() }),
  );

  api.get(
    '/v1/node/info',
    { config: { auth: 'owner' }, schema: { tags, summary: "The node's id, version, URLs, data folder and custody backend", response: { 200: NodeInfo } } },
    async () => nodeInfo(),
  );

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

  api.get(
    '/v1/node/identities',
    { config: { auth: 'owner' }, schema: { tags, summary: 'Every identity of the node, oldest first', response: { 200: IdentityList } } },
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

  // New mail and chat for every identity, live: the UI's badges and highlights; and nudges that
  // something the UI shows changed (whoever changed it), so it re-reads it. An SSE stream: its
  // `deadline` is checked as every stream's is (http/sse.ts); its frames are NodeFeedFrames
  // (core/events/node-feed.ts). `Last-Event-ID` resumes the mail and chat after that frame.
  api.get(
    '/v1/node/events/stream',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'The owner feed (SSE): new mail and chat for every identity, and what changed (contract/core/events.ts)',
        querystring: EventStreamQuery,
        headers: StreamResumeHeaders,
      },
    },
    async (request, reply) => {
      const window = streamWindow(request, request.query.deadline, ctx.clock.now());
      if (window === null) return endOfStream(reply);
      const resume = feedIds.decode(request.headers['last-event-id']);
      // A browser session revoked meanwhile ends the stream; the owner token lasts the process.
      const session = request.ownerSession ?? null;
      const credential = session === null ? undefined : () => owner.sessions.check(session);
      wakeFeed.attach(openSse(request, reply, window, NodeFeedFrames), nodeInfo().node_id, resume, credential);
      return reply;
    },
  );

  // Identity backup: the seed sealed under the owner's passphrase, with both logs.
  api.post(
    '/v1/node/identities/:agent_id/export',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: "A persistent identity's backup, its seed sealed under the passphrase",
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

  await app.register(teamRoutes, { services });
  await app.register(docsOwnerRoutes, { services });
  await app.register(peerRoutes, { services });
  await app.register(ownerSearchRoutes, { services });
  await app.register(tunnelRoutes, { tunnel });
  await app.register(setupRoutes, { services, nodeId: nodeInfo().node_id });

  api.get(
    '/v1/node/namespaces',
    { config: { auth: 'owner' }, schema: { tags, summary: "The node's namespaces, by domain", response: { 200: NamespaceList } } },
    async () => ({ namespaces: namespaces.list() }),
  );

  // The owner's consent to a namespace: controlled by an outside key (`controller_did`, which then
  // signs its address writes), or by one this node creates and holds in custody.
  api.post(
    '/v1/node/namespaces',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: "The owner's consent to a namespace, controlled by an outside key or one the node holds (201; 200 when it already is)",
        body: CreateNamespaceBody,
        response: { 200: Namespace, 201: Namespace },
      },
    },
    async (request, reply) => {
      const { namespace, created } = await namespaces.consentByOwner(request.body.domain, request.body.controller_did);
      return reply.code(created ? 201 : 200).send(namespace);
    },
  );
}
