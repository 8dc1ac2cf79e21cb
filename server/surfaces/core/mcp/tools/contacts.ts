/**
 * Contacts for agents: who may reach a contacts-only identity.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { parseWith } from '../../../../http/validate.ts';
import { ContactBody } from '../../../../../contract/core/contacts.ts';
import { toolResult } from '../result.ts';
import type { ToolContext } from './context.ts';

export function registerContactTools(server: McpServer, { services, principal }: ToolContext): void {
  server.registerTool('contacts_list', { title: 'List contacts', description: 'Your contacts.', inputSchema: z.object({}) }, () =>
    toolResult(() => services.contacts.list(principal.agentId)),
  );

  server.registerTool(
    'contacts_add',
    {
      title: 'Add a contact',
      description: 'Add an address, a domain (every address under it) or a did to your contacts.',
      inputSchema: z.object({ contact_address: z.string(), label: z.string().default('') }),
    },
    (args) => toolResult(() => services.contacts.add(principal.agentId, parseWith(ContactBody, args))),
  );

  server.registerTool(
    'contacts_remove',
    { title: 'Remove a contact', description: 'Remove one of your contacts by id.', inputSchema: z.object({ contact_id: z.string().min(1).max(256) }) },
    ({ contact_id }) => toolResult(() => services.contacts.remove(principal.agentId, contact_id)),
  );
}
