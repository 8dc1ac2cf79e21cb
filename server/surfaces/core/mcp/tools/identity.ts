/**
 * Who the calling identity is, what an address resolves to, and who else is in its project
 * (with presence: `list_agents`, kept fresh by `heartbeat` or an open event stream).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Resolved } from '../../../../../contract/core/identities.ts';
import { AgentList, Heartbeat, WhoAmI } from '../../../../../contract/core/mcp.ts';
import { normalizeDomain } from '../../../../crypto/dns-txt.ts';
import { invalid } from '../../../../errors.ts';
import { PRESENCE_TTL_SECONDS } from '../../identities/presence.ts';
import { portable } from '../portable-schema.ts';
import { toolResult } from '../result.ts';
import { changes, READS } from './annotations.ts';
import type { ToolContext } from './context.ts';

export function registerIdentityTools(server: McpServer, { services, principal }: ToolContext): void {
  const { identities, presence } = services;

  server.registerTool(
    'whoami',
    {
      title: 'Who am I',
      description: 'The calling identity: alias, address, did:key, did:svc, project.',
      inputSchema: z.object({}),
      outputSchema: portable(WhoAmI),
      annotations: READS,
    },
    () => toolResult(WhoAmI, () => identities.view(identities.row(principal.agentId))),
  );

  server.registerTool(
    'resolve_address',
    {
      title: 'Resolve an address',
      description: 'Resolve <domain>/<name> to the identity behind it (did:key, did:svc, controller).',
      inputSchema: z.object({ address: z.string().min(3).max(320).describe('An address of the form <domain>/<name>') }),
      outputSchema: portable(Resolved),
      annotations: READS,
    },
    ({ address }) =>
      toolResult(Resolved, () => {
        const slash = address.indexOf('/');
        const domain = slash > 0 ? normalizeDomain(address.slice(0, slash)) : null;
        if (domain === null) throw invalid('SVC_ERR_ADDRESS_MALFORMED', `${address} is not an address of the form <domain>/<name>`);
        return identities.resolve(principal, domain, address.slice(slash + 1));
      }),
  );

  server.registerTool(
    'list_agents',
    {
      title: 'List the agents of your project',
      description:
        'The identities of your project (you included), each with online: true while it has an event stream open on this node ' +
        `or sent a heartbeat in the last ${PRESENCE_TTL_SECONDS / 60} minutes, and last_seen.`,
      inputSchema: z.object({}),
      outputSchema: portable(AgentList),
      annotations: READS,
    },
    () =>
      toolResult(AgentList, () => ({
        project_id: principal.projectId,
        agents: identities
          .list()
          .filter((identity) => identity.project_id === principal.projectId)
          .sort((a, b) => a.alias.localeCompare(b.alias))
          .map((identity) => ({
            ...identity,
            agent_type: 'agent',
            did: identity.did_key,
            access_mode: identity.address_reachability === 'public' ? 'open' : 'contacts_only',
            ...presence.of(identity.agent_id),
          })),
      })),
  );

  server.registerTool(
    'heartbeat',
    {
      title: 'Heartbeat',
      description: `Say you are here: list_agents shows you online for ${PRESENCE_TTL_SECONDS / 60} minutes (an open event stream does too).`,
      inputSchema: z.object({}),
      outputSchema: portable(Heartbeat),
      annotations: changes({ idempotent: true }),
    },
    () =>
      toolResult(Heartbeat, () => {
        const me = identities.row(principal.agentId);
        return { agent_id: me.agent_id, alias: me.alias, ...presence.heartbeat(me.agent_id) };
      }),
  );
}
