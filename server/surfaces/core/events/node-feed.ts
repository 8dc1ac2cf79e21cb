/**
 * The owner's node-wide feed: new mail and chat for every identity on the node (desktop
 * notifications in main/, unread badges in the UI), and a nudge whenever something the UI shows
 * changed, whoever changed it. Each reader (an SSE feed, RunningNode.onWake) keeps its own row
 * cursors from the moment it opened and re-reads on every publish through the stream pump
 * (server/events/stream-pump.ts). The frames are contract/core/events.ts's NodeFeedFrames.
 *
 * Every frame's id is the feed's position after it (its mail and chat cursors): a reconnect with
 * it as `Last-Event-ID` gets the mail and chat written in between, not what it saw; when more
 * than {@link FEED_REPLAY_LIMIT} of either came in between, it gets `reset` instead and the feed
 * goes on from the present, so the client reloads rather than silently missing some. The change
 * nudges are not replayed: a client that reconnects re-reads what it shows. The owner keeps at
 * most STREAMS_PER_HOLDER feeds open (events/stream-cap.ts).
 */
import type { NodeAgentPresence, NodeChangeKind, NodeWakeItem, StreamReset } from '../../../../contract/core/events.ts';
import {
  BACKUPS_TOPIC,
  CATALOG_TOPIC,
  DEVICES_TOPIC,
  docsTopic,
  mailTopicParts,
  TEAMS_TOPIC,
  teamTopic,
  TUNNEL_TOPIC,
  type EventBus,
} from '../../../events/bus.ts';
import { z } from 'zod';
import { streamIds } from '../../../events/stream-ids.ts';
import { EVERY_TOPIC, pumpStream, startPump } from '../../../events/stream-pump.ts';
import { StreamCap } from '../../../events/stream-cap.ts';
import type { SseStream } from '../../../http/sse.ts';
import type { ChatService } from '../chat/service.ts';
import type { MailService } from '../mail/service.ts';
import type { IdentityPresence } from '../identities/presence.ts';

const BATCH = 500;
/**
 * How far back a resumed feed goes, in rows of each kind: a feed that was away longer gets
 * `reset` and starts from the present (the client reloads what it shows).
 */
export const FEED_REPLAY_LIMIT = 500;
const RESET_DETAIL = `Last-Event-ID is more than ${FEED_REPLAY_LIMIT} mails or chat messages back: the feed goes on from now; reload what you show`;
/** The feeds' holder: every owner feed counts against one cap (events/stream-cap.ts). */
const OWNER = 'owner';

/** The feed's position: the last mail and chat row it sent. */
export interface FeedPosition {
  mail: number;
  chat: number;
}
const RowId = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
export const feedIds = streamIds<FeedPosition>('nf1', z.object({ mail: RowId, chat: RowId }));
const TEAM_TOPIC_PREFIX = teamTopic('');
const DOCS_TOPIC_PREFIX = docsTopic('');

export class NodeWakeFeed {
  readonly #bus: EventBus;
  readonly #mail: MailService;
  readonly #chat: ChatService;
  readonly #presence: IdentityPresence | undefined;
  readonly #cap = new StreamCap();

  constructor(bus: EventBus, mail: MailService, chat: ChatService, presence?: IdentityPresence) {
    this.#bus = bus;
    this.#mail = mail;
    this.#chat = chat;
    this.#presence = presence;
  }

  /**
   * Drives the owner's SSE feed until it closes: `connected`, then what is written from now on,
   * or, for a reconnect, from where `resume` says it stopped. `credential` throws once what the
   * stream was opened with no longer holds (a revoked browser session): the stream then ends.
   */
  attach(stream: SseStream, nodeId: string, resume: FeedPosition | null = null, credential?: () => void): void {
    this.#cap.admit(OWNER, stream);
    const complete = resume === null || this.#replayable(resume);
    const start = resume === null || !complete ? undefined : resume;
    const read = this.#reader(start);
    stream.send('connected', { node_id: nodeId }, feedIds.encode(read.position()));
    if (!complete) stream.send('reset', { type: 'reset', detail: RESET_DETAIL } satisfies StreamReset);
    const presence = this.#presenceReader();
    const pump = pumpStream(stream, {
      bus: this.#bus,
      topics: EVERY_TOPIC,
      deliver: (nudges) => {
        credential?.();
        for (const topic of nudges) {
          const change = changeOf(topic);
          if (change !== null) stream.send(change.event, change.data);
        }
        presence((frame) => stream.send(frame.type, frame));
        read.next((item, position) => stream.send(item.type, item, feedIds.encode(position)));
      },
    });
    if (start !== undefined) pump.pass();
  }

  /**
   * Delivers every item written from now on, until the returned function is called
   * (RunningNode.onWake). A failed read ends the subscription and is reported to `onError`.
   */
  subscribe(listener: (item: NodeWakeItem) => void, onError: (error: unknown) => void = reportStopped): () => void {
    const read = this.#reader();
    return startPump({ bus: this.#bus, topics: EVERY_TOPIC, deliver: () => read.next((item) => listener(item)), onError }).stop;
  }

  /**
   * Presence changes from now on (not replayed on resume: presence lives in memory). Each pass
   * first sweeps for expired heartbeats: the pump's poll makes expiry observable without a timer.
   */
  #presenceReader(): (emit: (frame: NodeAgentPresence) => void) => void {
    const presence = this.#presence;
    if (presence === undefined) return () => {};
    let cursor = presence.lastChange();
    return (emit) => {
      presence.sweep();
      for (const change of presence.changesSince(cursor)) {
        cursor = change.seq;
        const type = change.online ? 'agent.online' : 'agent.offline';
        emit({ agent_id: change.agent_id, type, online: change.online, at: change.at, last_seen: change.last_seen });
      }
    };
  }

  /**
   * Whether a feed resumed from `resume` can be sent everything since: at most the replay limit of
   * rows of each kind behind, and not ahead of them (an id from before a restore, or forged).
   */
  #replayable(resume: FeedPosition): boolean {
    const within = (cursor: number, last: number): boolean => cursor <= last && last - cursor <= FEED_REPLAY_LIMIT;
    return within(resume.mail, this.#mail.lastId()) && within(resume.chat, this.#chat.lastMessageRowId());
  }

  /**
   * A reader from `start` (by default the present, not history): each `next` hands on what was
   * written since the last, each item with the reader's position after it.
   */
  #reader(start?: FeedPosition): { position(): FeedPosition; next(emit: (item: NodeWakeItem, position: FeedPosition) => void): void } {
    let mailCursor = start?.mail ?? this.#mail.lastId();
    let chatCursor = start?.chat ?? this.#chat.lastMessageRowId();
    const position = (): FeedPosition => ({ mail: mailCursor, chat: chatCursor });
    const next = (emit: (item: NodeWakeItem, position: FeedPosition) => void): void => {
      for (let batch = this.#mail.deliveredSince(mailCursor, BATCH); batch.length > 0; batch = this.#mail.deliveredSince(mailCursor, BATCH)) {
        for (const m of batch) {
          mailCursor = m.id;
          const item: NodeWakeItem = {
            agent_id: m.to_agent_id,
            type: 'mail_message',
            message_id: m.message_id,
            from_alias: m.from_alias,
            from_address: m.from_address,
            // As stored: an encrypted mail's row holds no subject, and this feed is not its reader's.
            subject: m.subject,
            end_to_end: m.content_mode === 'encrypted_v2',
            priority: m.priority,
            created_at: m.created_at,
          };
          emit(item, position());
        }
      }
      for (let batch = this.#chat.postedSince(chatCursor, BATCH); batch.length > 0; batch = this.#chat.postedSince(chatCursor, BATCH)) {
        for (const c of batch) {
          chatCursor = c.id;
          const item: NodeWakeItem = {
            agent_id: c.to_agent_id,
            type: 'chat_message',
            message_id: c.message_id,
            from_alias: c.from_alias,
            from_address: c.from_address,
            session_id: c.session_id,
            // As stored: an encrypted message's row holds no text (the preview is empty).
            preview: c.preview,
            end_to_end: c.end_to_end,
            sender_leaving: c.sender_leaving,
            sender_rejoining: c.sender_rejoining,
            created_at: c.created_at,
          };
          emit(item, position());
        }
      }
    };
    return { position, next };
  }
}

/** The feed's nudge for a published topic; null for topics the UI does not show. */
function changeOf(topic: string): { event: NodeChangeKind; data: Record<string, string> } | null {
  const mail = mailTopicParts(topic);
  if (mail !== null) return { event: 'mail_changed', data: { agent_id: mail.agentId, message_id: mail.messageId } };
  if (topic === CATALOG_TOPIC) return { event: 'catalog_changed', data: {} };
  if (topic.startsWith(TEAM_TOPIC_PREFIX)) return { event: 'library_changed', data: { team_id: topic.slice(TEAM_TOPIC_PREFIX.length) } };
  if (topic.startsWith(DOCS_TOPIC_PREFIX)) return { event: 'docs_changed', data: { team_id: topic.slice(DOCS_TOPIC_PREFIX.length) } };
  if (topic === TUNNEL_TOPIC) return { event: 'tunnel_changed', data: {} };
  if (topic === TEAMS_TOPIC) return { event: 'teams_changed', data: {} };
  if (topic === DEVICES_TOPIC) return { event: 'devices_changed', data: {} };
  if (topic === BACKUPS_TOPIC) return { event: 'backups_changed', data: {} };
  return null;
}

/** The in-process subscriber had no handler of its own: the failure goes to stderr, not a crash. */
function reportStopped(error: unknown): void {
  console.error('svc-node: the wake feed stopped after a failed read', error);
}
