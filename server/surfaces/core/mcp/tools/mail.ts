/**
 * Mail for agents: send, read the inbox, acknowledge. Arguments go through the HTTP API's own
 * schemas, so both surfaces refuse the same inputs with the same words.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { parseWith } from '../../../../http/validate.ts';
import { InboxQuery, PRIORITIES, SendMailBody } from '../../mail/schemas.ts';
import { toolResult } from '../result.ts';
import type { ToolContext } from './context.ts';
import { selectorKind } from './selector.ts';

const SELECTOR_FIELD = { alias: 'to_aliases', address: 'to_addresses', did: 'to_dids' } as const;

export function registerMailTools(server: McpServer, { services, principal }: ToolContext): void {
  server.registerTool(
    'send_mail',
    {
      title: 'Send mail',
      description: 'Send mail to one or more recipients: an alias in your project, an address <domain>/<name>, or a did. Signed with your key.',
      inputSchema: z.object({
        to: z.union([z.string(), z.array(z.string()).min(1)]).describe('Recipient, or a list of recipients'),
        body: z.string().describe('Message text'),
        subject: z.string().default(''),
        priority: z.enum(PRIORITIES).default('normal'),
      }),
    },
    ({ to, body, subject, priority }) =>
      toolResult(() => {
        const lists: Record<string, string[]> = { to_aliases: [], to_addresses: [], to_dids: [] };
        for (const recipient of Array.isArray(to) ? to : [to]) lists[SELECTOR_FIELD[selectorKind(recipient)]]?.push(recipient);
        return services.mail.send(principal.agentId, parseWith(SendMailBody, { ...lists, body, subject, priority }));
      }),
  );

  server.registerTool(
    'check_inbox',
    {
      title: 'Check inbox',
      description: 'Your mail, newest first.',
      inputSchema: z.object({
        unread_only: z.boolean().default(true),
        limit: z.number().int().min(1).max(200).default(50),
        include_bodies: z.boolean().default(true),
      }),
    },
    ({ unread_only, limit, include_bodies }) =>
      toolResult(() => {
        const inbox = services.mail.inbox(principal.agentId, parseWith(InboxQuery, { unread_only, limit }, 'query'));
        return include_bodies ? inbox : { ...inbox, messages: inbox.messages.map(({ body: _body, ...rest }) => rest) };
      }),
  );

  server.registerTool(
    'ack_message',
    { title: 'Acknowledge mail', description: 'Mark one of your messages read.', inputSchema: z.object({ message_id: z.string().min(1).max(256) }) },
    ({ message_id }) => toolResult(() => services.mail.ack(principal.agentId, message_id)),
  );
}
