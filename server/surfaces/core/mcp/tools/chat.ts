/**
 * Chat for agents: send (optionally waiting for the answer), pending conversations, history,
 * read marks. Arguments go through the HTTP API's own schemas (contract/core/chat.ts).
 *
 * A `chat_send` with `wait` is answered as an SSE stream (runtime.ts, streaming.ts) and, when the
 * client sent a progressToken, reports progress once a second while it waits: a client that
 * resets its timeout on progress can wait longer than its request timeout.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { PLAINTEXT_PARAMETER, plaintextBy } from './plaintext.ts';
import { z } from 'zod';
import { ChatHistory, ChatReadMarked, CreateSessionBody, HistoryQuery, Pending, SendMessageBody, SessionParams } from '../../../../../contract/core/chat.ts';
import { ChatSendToolResult, DEFAULT_TOOL_WAIT_SECONDS, MAX_TOOL_WAIT_SECONDS } from '../../../../../contract/core/mcp.ts';
import { invalid } from '../../../../errors.ts';
import { parseWith } from '../../../../http/validate.ts';
import { portable } from '../portable-schema.ts';
import { toolResult } from '../result.ts';
import { changes, READS } from './annotations.ts';
import { waitForReply } from './chat-wait.ts';
import type { ToolContext } from './context.ts';

/** Progress notifications for the request `ctx` answers, when its client asked for them. */
function progressOf(ctx: ServerContext, total: number): ((elapsed: number) => void) | undefined {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  return (elapsed) => {
    const message = `Waiting for a reply: ${elapsed} s of ${total} s`;
    ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: elapsed, total, message } }).catch(() => {
      // The client is gone: the wait ends with the request (its signal).
    });
  };
}

export function registerChatTools(server: McpServer, { services, principal }: ToolContext): void {
  const { chat, ctx } = services;
  const me = principal.agentId;

  server.registerTool(
    'chat_send',
    {
      title: 'Send a chat message',
      description:
        'Chat with one identity (to_alias, to_address or to_did) or in an existing session (session_id). ' +
        `With wait, blocks until the other side answers, leaves, or wait_seconds pass (default ${DEFAULT_TOOL_WAIT_SECONDS}, at most ${MAX_TOOL_WAIT_SECONDS}); ` +
        'the answer streams, with a progress notification every second when the request carries a progressToken, ' +
        `so a client that resets its timeout on progress can wait longer than its request timeout.`,
      inputSchema: z.object({
        message: z.string(),
        to_alias: z.string().default(''),
        to_address: z.string().default(''),
        to_did: z.string().default(''),
        session_id: z.string().default(''),
        wait: z.boolean().default(false),
        wait_seconds: z.number().int().min(1).max(MAX_TOOL_WAIT_SECONDS).default(DEFAULT_TOOL_WAIT_SECONDS),
        leaving: z.boolean().default(false),
        hang_on: z.boolean().default(false),
        plaintext: z.boolean().default(false).describe(PLAINTEXT_PARAMETER),
      }),
      outputSchema: portable(ChatSendToolResult),
      annotations: changes({ idempotent: false, openWorld: true }),
    },
    (args, request) =>
      toolResult(ChatSendToolResult, async () => {
        const targets = [args.to_alias, args.to_address, args.to_did, args.session_id].filter((value) => value !== '');
        if (targets.length !== 1) throw invalid('SVC_ERR_CHAT_TARGET_INVALID', 'Give exactly one of to_alias, to_address, to_did or session_id');
        const waitSeconds = args.wait && !args.leaving ? args.wait_seconds : undefined;
        const sent = args.session_id
          ? {
              ...chat.send(
                me,
                args.session_id,
                parseWith(SendMessageBody, { body: args.message, leaving: args.leaving, hang_on: args.hang_on, ...plaintextBy(args.plaintext) }),
              ),
              session_id: args.session_id,
              targets_left: [] as string[],
            }
          : chat.createOrSend(
              me,
              parseWith(CreateSessionBody, {
                to_aliases: args.to_alias ? [args.to_alias] : [],
                to_addresses: args.to_address ? [args.to_address] : [],
                to_dids: args.to_did ? [args.to_did] : [],
                message: args.message,
                leaving: args.leaving,
                hang_on: args.hang_on,
                ...plaintextBy(args.plaintext),
                ...(waitSeconds === undefined ? {} : { wait_seconds: waitSeconds }),
              }),
            );
        if (waitSeconds === undefined) return sent;
        if (sent.targets_left.length > 0) return { ...sent, status: 'targets_left' };
        // While it waits, the agent counts as connected: the other side sees sender_waiting.
        const release = chat.connect(sent.session_id, me);
        const outcome = await waitForReply(ctx.bus, chat, chat.viewer(me), {
          sessionId: sent.session_id,
          afterRowId: chat.rowIdOf(sent.message_id),
          seconds: waitSeconds,
          signal: request.mcpReq.signal,
          onTick: progressOf(request, waitSeconds),
        }).finally(release);
        if (outcome.status !== 'timeout') chat.markRead(me, sent.session_id, outcome.reply.message_id);
        return { ...sent, ...outcome };
      }),
  );

  server.registerTool(
    'chat_pending',
    {
      title: 'Pending chats',
      description: 'Conversations with unread messages or someone waiting for you.',
      inputSchema: z.object({}),
      outputSchema: portable(Pending),
      annotations: READS,
    },
    () => toolResult(Pending, () => chat.pending(me)),
  );

  server.registerTool(
    'chat_history',
    {
      title: 'Chat history',
      description: 'Messages of one of your sessions, oldest first.',
      inputSchema: SessionParams.extend({ unread_only: z.boolean().default(false), limit: z.number().int().min(1).max(2000).default(50) }),
      outputSchema: portable(ChatHistory),
      annotations: READS,
    },
    ({ session_id, unread_only, limit }) =>
      toolResult(ChatHistory, () => chat.history(me, session_id, parseWith(HistoryQuery, { unread_only: String(unread_only), limit }, 'query'))),
  );

  server.registerTool(
    'chat_read',
    {
      title: 'Mark chat read',
      description: 'Mark a session read up to a message; it never moves back.',
      inputSchema: SessionParams.extend({ up_to_message_id: z.string().min(1).max(128) }),
      outputSchema: portable(ChatReadMarked),
      annotations: changes({ idempotent: true }),
    },
    ({ session_id, up_to_message_id }) => toolResult(ChatReadMarked, () => chat.markRead(me, session_id, up_to_message_id)),
  );
}
