/**
 * Contacts for agents: who may reach a contacts-only identity.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { parseWith } from '../../../../http/validate.ts';
import { Contact, ContactBody, ContactList, ContactRemoved } from '../../../../../contract/core/contacts.ts';
import { portable } from '../portable-schema.ts';
import { toolResult } from '../result.ts';
import { changes, READS } from './annotations.ts';
import type { ToolContext } from './context.ts';

export function registerContactTools(server: McpServer, { services, principal }: ToolContext): void {
  server.registerTool(
    'contacts_list',
    { title: 'List contacts', description: 'Your contacts.', inputSchema: z.object({}), outputSchema: portable(ContactList), annotations: READS },
    () => toolResult(ContactList, () => services.contacts.list(principal.agentId)),
  );

  server.registerTool(
    'contacts_add',
    {
      title: 'Add a contact',
      description: 'Add an address, a domain (every address under it) or a did to your contacts.',
      inputSchema: z.object({ contact_address: z.string(), label: z.string().default('') }),
      outputSchema: portable(Contact),
      // Adding the same contact again changes nothing (it is refused as a duplicate).
      annotations: changes({ idempotent: true }),
    },
    (args) => toolResult(Contact, () => services.contacts.add(principal.agentId, parseWith(ContactBody, args))),
  );

  server.registerTool(
    'contacts_remove',
    {
      title: 'Remove a contact',
      description: 'Remove one of your contacts by id.',
      inputSchema: z.object({ contact_id: z.string().min(1).max(256) }),
      outputSchema: portable(ContactRemoved),
      annotations: changes({ destructive: true, idempotent: true }),
    },
    ({ contact_id }) => toolResult(ContactRemoved, () => services.contacts.remove(principal.agentId, contact_id)),
  );
}
