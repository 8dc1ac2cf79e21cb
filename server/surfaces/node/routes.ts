/**
 * The owner API (`/v1/node/...`): what the node's owner does through the UI and the CLI. Only the
 * loopback listener mounts it, and every route but the code exchange needs the owner token.
 */
import type { FastifyInstance } from 'fastify';
import { normalizeDomain } from '../../crypto/dns-txt.ts';
import { conflict, invalid, unauthorized } from '../../errors.ts';
import { CATALOG_TOPIC, docsTopic, mailTopicParts, TEAMS_TOPIC, teamTopic, TUNNEL_TOPIC } from '../../events/bus.ts';
import { openSse, streamDeadline } from '../../http/sse.ts';
import { parseWith } from '../../http/validate.ts';
import type { TunnelService } from '../../tunnel/service.ts';
import type { CoreServices } from '../core/services.ts';
import {
  AgentIdParams,
  CreateIdentityBody,
  CreateNamespaceBody,
  CreateProjectBody,
  ExportIdentityBody,
  ImportIdentityBody,
  SessionBody,
} from './schemas.ts';
import { docsOwnerRoutes } from './docs-routes.ts';
import { peerRoutes } from './peer-routes.ts';
import { setupRoutes } from './setup-routes.ts';
import { teamRoutes } from './team-routes.ts';
import { tunnelRoutes } from './tunnel-routes.ts';

const TEAM_TOPIC_PREFIX = teamTopic('');
const DOCS_TOPIC_PREFIX = docsTopic('');

export interface OwnerApiOptions {
  services: CoreServices;
  tunnel: TunnelService;
  nodeInfo: () => Record<string, unknown>;
  uiLink: () => string;
}

export async function ownerApi(app: FastifyInstance, { services, tunnel, nodeInfo, uiLink }: OwnerApiOptions): Promise<void> {
  const { owner, projects, identities, namespaces, backups, wakeFeed, ctx } = services;

  app.post('/v1/node/session', async (request) => {
    const { code } = parseWith(SessionBody, request.body);
    const token = owner.redeem(code);
    if (token === null) throw unauthorized('This link was already used or is unknown; run `svc-node ui` for a new one');
    return { owner_token: token };
  });

  // Everything registered after this hook needs the owner token.
  app.register(async (scoped) => {
    scoped.addHook('onRequest', async (request) => owner.require(request));

    scoped.post('/v1/node/ui-link', async () => ({ ui_url: uiLink() }));

    scoped.get('/v1/node/info', async () => nodeInfo());

    scoped.get('/v1/node/projects', async () => ({ projects: projects.list() }));

    scoped.post('/v1/node/projects', async (request, reply) => {
      const body = parseWith(CreateProjectBody, request.body);
      const namespace = body.namespace === undefined ? undefined : (normalizeDomain(body.namespace) ?? body.namespace);
      return reply.code(201).send(projects.create({ ...body, namespace }));
    });

    scoped.get('/v1/node/identities', async () => ({ identities: identities.list() }));

    scoped.post('/v1/node/identities', async (request, reply) => {
      const { project_id, ...rest } = parseWith(CreateIdentityBody, request.body);
      return reply.code(201).send(identities.create(project_id, { ...rest, lifetime: 'persistent' }));
    });

    scoped.post('/v1/node/identities/:agent_id/session-key', async (request, reply) => {
      const { agent_id } = parseWith(AgentIdParams, request.params, 'path');
      return reply.code(201).send(identities.issueSessionKey(agent_id));
    });

    // New mail and chat for every identity, live: the UI's badges and highlights; and nudges that
    // something the UI shows changed (whoever changed it), so it re-reads it.
    scoped.get('/v1/node/events/stream', async (request, reply) => {
      const deadline = streamDeadline((request.query as Record<string, unknown>).deadline, ctx.clock.now());
      const stream = openSse(request, reply, deadline);
      stream.send('connected', { node_id: nodeInfo().node_id });
      stream.onClose(wakeFeed.subscribe((item) => stream.send(item.type, item)));
      stream.onClose(
        ctx.bus.subscribeAll((topic) => {
          const mail = mailTopicParts(topic);
          if (mail !== null) stream.send('mail_changed', { agent_id: mail.agentId, message_id: mail.messageId });
          else if (topic === CATALOG_TOPIC) stream.send('catalog_changed', {});
          else if (topic.startsWith(TEAM_TOPIC_PREFIX)) stream.send('library_changed', { team_id: topic.slice(TEAM_TOPIC_PREFIX.length) });
          else if (topic.startsWith(DOCS_TOPIC_PREFIX)) stream.send('docs_changed', { team_id: topic.slice(DOCS_TOPIC_PREFIX.length) });
          else if (topic === TUNNEL_TOPIC) stream.send('tunnel_changed', {});
          else if (topic === TEAMS_TOPIC) stream.send('teams_changed', {});
        }),
      );
      return reply;
    });

    // Identity backup: the seed sealed under the owner's passphrase, with both logs.
    scoped.post('/v1/node/identities/:agent_id/export', async (request) => {
      const { agent_id } = parseWith(AgentIdParams, request.params, 'path');
      return backups.export(agent_id, parseWith(ExportIdentityBody, request.body).passphrase);
    });

    scoped.post('/v1/node/identities/import', async (request, reply) => {
      const { project_id, passphrase, backup } = parseWith(ImportIdentityBody, request.body);
      return reply.code(201).send(backups.import(project_id, backup, passphrase));
    });

    await scoped.register(teamRoutes, { services });
    await scoped.register(docsOwnerRoutes, { services });
    await scoped.register(peerRoutes, { services });
    await scoped.register(tunnelRoutes, { tunnel });
    await scoped.register(setupRoutes, { services, nodeId: String(nodeInfo().node_id) });

    scoped.get('/v1/node/namespaces', async () => ({ namespaces: namespaces.list() }));

    // The owner's consent to a namespace: controlled by an outside key (`controller_did`, which then
    // signs its address writes), or by one this node creates and holds in custody.
    scoped.post('/v1/node/namespaces', async (request, reply) => {
      const body = parseWith(CreateNamespaceBody, request.body);
      const domain = normalizeDomain(body.domain);
      if (domain === null) throw invalid([{ loc: ['body', 'domain'], msg: 'not a valid domain name', type: 'value_error' }]);
      if (body.controller_did !== undefined) {
        const { namespace, created } = await namespaces.registerByOwner(domain, body.controller_did);
        return reply.code(created ? 201 : 200).send(namespace);
      }
      // Asked again for a namespace whose key this node already holds: the same namespace (200), not
      // a new key that would then be "another controller".
      if (namespaces.isLocal(domain)) {
        const held = namespaces.get(domain);
        if (held.node_controlled) return reply.code(200).send(held);
        throw conflict(`${domain} is already on this node, controlled by the outside key ${held.controller_did}; only that key assigns its addresses`);
      }
      const key = ctx.custody.createSigningKey('namespace');
      try {
        const { namespace } = await namespaces.registerByOwner(domain, key.didKey, key.keyId);
        return reply.code(201).send(namespace);
      } catch (error) {
        ctx.custody.destroyKey(key.keyId);
        throw error;
      }
    });
  });
}
