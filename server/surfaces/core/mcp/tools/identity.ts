/**
 * Who the calling identity is, and what an address resolves to.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { normalizeDomain } from '../../../../crypto/dns-txt.ts';
import { invalid } from '../../../../errors.ts';
import { toolResult } from '../result.ts';
import type { ToolContext } from './context.ts';

export function registerIdentityTools(server: McpServer, { services, principal }: ToolContext): void {
  server.registerTool(
    'whoami',
    { title: 'Who am I', description: 'The calling identity: alias, address, did:key, did:svc, project.', inputSchema: z.object({}) },
    () =>
      toolResult(() => {
        const me = services.identities.view(services.identities.row(principal.agentId));
        return {
          agent_id: me.agent_id,
          alias: me.alias,
          name: me.name,
          address: me.address,
          did_key: me.did_key,
          did_aw: me.did_aw,
          lifetime: me.lifetime,
          project_id: me.project_id,
          project_slug: me.project_slug,
        };
      }),
  );

  server.registerTool(
    'resolve_address',
    {
      title: 'Resolve an address',
      description: 'Resolve <domain>/<name> to the identity behind it (did:key, did:svc, controller).',
      inputSchema: z.object({ address: z.string().min(3).max(320).describe('An address of the form <domain>/<name>') }),
    },
    ({ address }) =>
      toolResult(() => {
        const slash = address.indexOf('/');
        const domain = slash > 0 ? normalizeDomain(address.slice(0, slash)) : null;
        if (domain === null) throw invalid('SVC_ERR_ADDRESS_MALFORMED', `${address} is not an address of the form <domain>/<name>`);
        return services.identities.resolve(principal, domain, address.slice(slash + 1));
      }),
  );
}
