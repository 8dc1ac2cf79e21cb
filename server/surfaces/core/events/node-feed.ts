/**
 * The owner's node-wide feed: new mail and chat for every identity on the node (desktop
 * notifications in main/, unread badges in the UI), and a nudge whenever something the UI shows
 * changed, whoever changed it. Each reader (an SSE feed, RunningNode.onWake) keeps its own row
 * cursors from the moment it opened and re-reads on every publish through the stream pump
 * (server/events/stream-pump.ts). The frames are contract/core/events.ts's NodeFeedFrames.
 */
import type { NodeChangeKind, NodeWakeItem } from '../../../../contract/core/events.ts';
import { CATALOG_TOPIC, docsTopic, mailTopicParts, TEAMS_TOPIC, teamTopic, TUNNEL_TOPIC, type EventBus } from '../../../events/bus.ts';
import { EVERY_TOPIC, pumpStream, startPump } from '../../../events/stream-pump.ts';
import type { SseStream } from '../../../http/sse.ts';
import type { ChatService } from '../chat/service.ts';
import type { MailService } from '../mail/service.ts';

const BATCH = 500;
const TEAM_TOPIC_PREFIX = teamTopic('');
const DOCS_TOPIC_PREFIX = docsTopic('');

export class NodeWakeFeed {
  readonly #bus: EventBus;
  readonly #mail: MailService;
  readonly #chat: ChatService;

  constructor(bus: EventBus, mail: MailService, chat: ChatService) {
    this.#bus = bus;
    this.#mail = mail;
    this.#chat = chat;
  }

  /** Drives the owner's SSE feed until it closes: `connected`, then what is written from now on. */
  attach(stream: SseStream, nodeId: string): void {
    stream.send('connected', { node_id: nodeId });
    const read = this.#reader();
    pumpStream(stream, {
      bus: this.#bus,
      topics: EVERY_TOPIC,
      deliver: (nudges) => {
        for (const topic of nudges) {
          const change = changeOf(topic);
          if (change !== null) stream.send(change.event, change.data);
        }
        read((item) => stream.send(item.type, item));
      },
    });
  }

  /**
   * Delivers every item written from now on, until the returned function is called
   * (RunningNode.onWake). A failed read ends the subscription and is reported to `onError`.
   */
  subscribe(listener: (item: NodeWakeItem) => void, onError: (error: unknown) => void = reportStopped): () => void {
    const read = this.#reader();
    return startPump({ bus: this.#bus, topics: EVERY_TOPIC, deliver: () => read(listener), onError }).stop;
  }

  /** A reader from the present, not from history: each call hands on what was written since the last. */
  #reader(): (emit: (item: NodeWakeItem) => void) => void {
    let mailCursor = this.#mail.lastId();
    let chatCursor = this.#chat.lastMessageRowId();
    return (emit) => {
      for (let batch = this.#mail.deliveredSince(mailCursor, BATCH); batch.length > 0; batch = this.#mail.deliveredSince(mailCursor, BATCH)) {
        for (const m of batch) {
          mailCursor = m.id;
          emit({
            agent_id: m.to_agent_id,
            type: 'mail_message',
            message_id: m.message_id,
            from_alias: m.from_alias,
            from_address: m.from_address,
            subject: m.subject,
            priority: m.priority,
            created_at: m.created_at,
          });
        }
      }
      for (let batch = this.#chat.postedSince(chatCursor, BATCH); batch.length > 0; batch = this.#chat.postedSince(chatCursor, BATCH)) {
        for (const c of batch) {
          chatCursor = c.id;
          emit({
            agent_id: c.to_agent_id,
            type: 'chat_message',
            message_id: c.message_id,
            from_alias: c.from_alias,
            from_address: c.from_address,
            session_id: c.session_id,
            preview: c.preview,
            sender_leaving: c.sender_leaving,
            sender_rejoining: c.sender_rejoining,
            created_at: c.created_at,
          });
        }
      }
    };
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
  return null;
}

/** The in-process subscriber had no handler of its own: the failure goes to stderr, not a crash. */
function reportStopped(error: unknown): void {
  console.error('svc-node: the wake feed stopped after a failed read', error);
}
