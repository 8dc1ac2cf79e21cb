/**
 * MCP at `/mcp` (server/surfaces/core/mcp/): the shapes of the tool results that are not already
 * an HTTP answer, and the limits of `chat_send`'s wait. Each tool advertises its result as an
 * `outputSchema` built from these and from the HTTP API's own answers (contract/core/*.ts), so a
 * host can check what it gets.
 */
import { z } from 'zod';
import { ChatMessage, SendChatResult, StartChatResult } from './chat.ts';
import { Identity } from './identities.ts';
import { InboxPage, MailMessage, SendMailResult } from './mail.ts';

/**
 * `chat_send` with `wait`: the default stays inside the 60 s request timeout common MCP clients
 * use; a longer wait (up to the max) needs a client that resets its timeout on the progress
 * notifications the node sends while it waits.
 */
export const DEFAULT_TOOL_WAIT_SECONDS = 50;
export const MAX_TOOL_WAIT_SECONDS = 300;

/** `whoami`: the calling identity. */
export const WhoAmI = Identity.pick({
  agent_id: true,
  alias: true,
  name: true,
  address: true,
  did_key: true,
  did_aw: true,
  lifetime: true,
  project_id: true,
  project_slug: true,
});
export type WhoAmI = z.output<typeof WhoAmI>;

/** `send_mail`: the HTTP answer, and (upstream's) the thread it was sent in, null for none. */
export const SendMailToolResult = SendMailResult.extend({ thread_id: z.string().nullable() });
export type SendMailToolResult = z.output<typeof SendMailToolResult>;

/** `check_inbox`: the inbox page; without `include_bodies` the messages carry no `body`. */
export const InboxToolPage = InboxPage.extend({ messages: z.array(MailMessage.extend({ body: MailMessage.shape.body.optional() })) });
export type InboxToolPage = z.output<typeof InboxToolPage>;

/** How a wait of `chat_send` ended; `targets_left` when every target had already left (no wait). */
export const ChatWaitStatus = z.enum(['replied', 'sender_left', 'timeout', 'targets_left']);
export type ChatWaitStatus = z.output<typeof ChatWaitStatus>;

/**
 * `chat_send`: the send's answer (a new or reused session: `StartChatResult`; a message in a
 * given session: `SendChatResult` with `targets_left` empty), and with `wait` how it ended and the
 * reply (for `replied` and `sender_left`).
 */
export const ChatSendToolResult = z.object({
  ...StartChatResult.partial().shape,
  ...SendChatResult.partial().shape,
  session_id: z.string(),
  message_id: z.string(),
  targets_left: z.array(z.string()),
  status: ChatWaitStatus.optional(),
  reply: ChatMessage.optional(),
});
export type ChatSendToolResult = z.output<typeof ChatSendToolResult>;

/**
 * `list_agents`: an identity of the caller's project (upstream's fields beside ours), with its
 * presence as far as this node knows: online while it has an event stream open or within the
 * presence lifetime of its last `heartbeat`.
 */
export const McpAgent = Identity.pick({
  agent_id: true,
  alias: true,
  name: true,
  human_name: true,
  lifetime: true,
  status: true,
  custody: true,
  did_key: true,
  did_aw: true,
  address: true,
  address_reachability: true,
  role: true,
  program: true,
}).extend({
  /** Upstream's: always `agent` here (the node has no human rows). */
  agent_type: z.literal('agent'),
  /** Upstream's name for the identity's key: its did:key. */
  did: z.string(),
  /** Upstream's spelling of `address_reachability`: `open` (public) or `contacts_only`. */
  access_mode: z.enum(['open', 'contacts_only']),
  online: z.boolean(),
  /** The last sign of life this node saw (heartbeat, event stream); null when none since it started. */
  last_seen: z.string().nullable(),
});
export type McpAgent = z.output<typeof McpAgent>;

export const AgentList = z.object({ project_id: z.string(), agents: z.array(McpAgent) });
export type AgentList = z.output<typeof AgentList>;

/** `heartbeat`: the caller counts as online until `ttl_seconds` after `last_seen`. */
export const Heartbeat = z.object({ agent_id: z.string(), alias: z.string(), last_seen: z.string(), ttl_seconds: z.number().int() });
export type Heartbeat = z.output<typeof Heartbeat>;
