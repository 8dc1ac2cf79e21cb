/**
 * Mail for agents: send, read the inbox (or the archive), acknowledge; list what was sent;
 * archive, unarchive, delete and mark unread. Arguments go through the HTTP API's own
 * schemas (contract/core/mail.ts) and services, so both surfaces refuse the same inputs with the
 * same words.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { PLAINTEXT_PARAMETER, plaintextBy } from './plaintext.ts';
import { z } from 'zod';
import {
  DEFAULT_MAIL_PAGE,
  InboxQuery,
  MailAcknowledged,
  MailDeleted,
  MailFolder,
  MailFolderState,
  MAX_MAIL_PAGE,
  MessageIdParams,
  Priority,
  SendMailBody,
  SentPage,
  SentQuery,
} from '../../../../../contract/core/mail.ts';
import { InboxToolPage, SendMailToolResult } from '../../../../../contract/core/mcp.ts';
import { parseWith } from '../../../../http/validate.ts';
import { portable } from '../portable-schema.ts';
import { toolResult } from '../result.ts';
import { changes, READS } from './annotations.ts';
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
        priority: Priority.default('normal'),
        thread_id: z.string().default('').describe('The thread this mail belongs to (a UUID: by convention the message_id of its first mail); empty for none'),
        plaintext: z.boolean().default(false).describe(PLAINTEXT_PARAMETER),
      }),
      outputSchema: portable(SendMailToolResult),
      // A recipient may be on another node; every call sends again.
      annotations: changes({ idempotent: false, openWorld: true }),
    },
    ({ to, body, subject, priority, thread_id, plaintext }) =>
      toolResult(SendMailToolResult, () => {
        const lists: Record<string, string[]> = { to_aliases: [], to_addresses: [], to_dids: [] };
        for (const recipient of Array.isArray(to) ? to : [to]) lists[SELECTOR_FIELD[selectorKind(recipient)]]?.push(recipient);
        const thread = thread_id === '' ? {} : { thread_id };
        return {
          ...services.mail.send(principal.agentId, parseWith(SendMailBody, { ...lists, body, subject, priority, ...thread, ...plaintextBy(plaintext) })),
          thread_id: thread_id || null,
        };
      }),
  );

  server.registerTool(
    'check_inbox',
    {
      title: 'Check inbox',
      description: 'Your mail, newest first: the inbox, or with folder "archive" what you archived.',
      inputSchema: z.object({
        unread_only: z.boolean().default(true),
        limit: z.number().int().min(1).max(MAX_MAIL_PAGE).default(DEFAULT_MAIL_PAGE),
        include_bodies: z.boolean().default(true),
        folder: MailFolder.default('inbox'),
      }),
      outputSchema: portable(InboxToolPage),
      annotations: READS,
    },
    ({ unread_only, limit, include_bodies, folder }) =>
      toolResult(InboxToolPage, () => {
        const inbox = services.mail.inbox(principal.agentId, parseWith(InboxQuery, { unread_only, limit, folder }, 'query'));
        return include_bodies ? inbox : { ...inbox, messages: inbox.messages.map(({ body: _body, ...rest }) => rest) };
      }),
  );

  server.registerTool(
    'ack_message',
    {
      title: 'Acknowledge mail',
      description: 'Mark one of your messages read.',
      inputSchema: MessageIdParams,
      outputSchema: portable(MailAcknowledged),
      annotations: changes({ idempotent: true }),
    },
    ({ message_id }) => toolResult(MailAcknowledged, () => services.mail.ack(principal.agentId, message_id)),
  );

  server.registerTool(
    'list_sent',
    {
      title: 'Sent mail',
      description:
        'Mail you sent, newest first, one item per recipient, with its delivery state: delivered (on this node, or taken by the other node), queued (on its way to another node) or bounced (with the reason).',
      inputSchema: z.object({
        limit: z.number().int().min(1).max(MAX_MAIL_PAGE).default(DEFAULT_MAIL_PAGE),
        before: SentQuery.shape.before.describe('next_before of the previous page'),
      }),
      outputSchema: portable(SentPage),
      annotations: READS,
    },
    ({ limit, before }) => toolResult(SentPage, () => services.mail.sent.list(principal.agentId, parseWith(SentQuery, { limit, before }, 'query'))),
  );

  const folders = services.mail.folders;
  const actions: [name: string, title: string, description: string, act: (messageId: string) => unknown, destructive: boolean][] = [
    [
      'archive_message',
      'Archive mail',
      'Move one of your messages out of the inbox into the archive (it is marked read).',
      (id) => folders.archive(principal.agentId, id),
      false,
    ],
    ['unarchive_message', 'Unarchive mail', 'Move an archived message back to your inbox.', (id) => folders.unarchive(principal.agentId, id), false],
    [
      'mark_unread',
      'Mark mail unread',
      'Mark one of your messages unread again (an archived one goes back to the inbox).',
      (id) => folders.markUnread(principal.agentId, id),
      false,
    ],
    [
      'delete_message',
      'Delete mail',
      'Delete one of your messages from your inbox or archive for good; the sender keeps its copy.',
      (id) => folders.remove(principal.agentId, id),
      true,
    ],
  ];
  for (const [name, title, description, act, destructive] of actions) {
    const result = destructive ? MailDeleted : MailFolderState;
    server.registerTool(
      name,
      { title, description, inputSchema: MessageIdParams, outputSchema: portable(result), annotations: changes({ destructive, idempotent: true }) },
      ({ message_id }) => toolResult(result, () => act(message_id)),
    );
  }
}
