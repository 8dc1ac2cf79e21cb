/**
 * The node-wide wake feed: new mail and chat for every identity on the node, for the owner
 * (desktop notifications in main/, unread badges in the UI). It reads the same rows the identity
 * streams read, from global row cursors, whenever the bus says something was written. Its items
 * are the owner feed's `mail_message` and `chat_message` frames (contract/core/events.ts).
 */
import type { NodeWakeItem } from '../../../../contract/core/events.ts';
import type { EventBus } from '../../../events/bus.ts';
import type { ChatService } from '../chat/service.ts';
import type { MailService } from '../mail/service.ts';

const BATCH = 500;

export class NodeWakeFeed {
  readonly #bus: EventBus;
  readonly #mail: MailService;
  readonly #chat: ChatService;
  readonly #listeners = new Set<(item: NodeWakeItem) => void>();
  #mailCursor = 0;
  #chatCursor = 0;
  #stopListening: (() => void) | null = null;
  #scheduled = false;

  constructor(bus: EventBus, mail: MailService, chat: ChatService) {
    this.#bus = bus;
    this.#mail = mail;
    this.#chat = chat;
  }

  /** Delivers every item written from now on, until the returned function is called. */
  subscribe(listener: (item: NodeWakeItem) => void): () => void {
    if (this.#listeners.size === 0) {
      // Nobody listened until now: start from the present, not from history.
      this.#mailCursor = this.#mail.lastId();
      this.#chatCursor = this.#chat.lastMessageRowId();
      this.#stopListening = this.#bus.subscribeAll(() => this.#schedule());
    }
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) {
        this.#stopListening?.();
        this.#stopListening = null;
      }
    };
  }

  /** One read per burst of publishes (a send to many recipients publishes many topics). */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#drain();
    });
  }

  #drain(): void {
    for (let batch = this.#mail.deliveredSince(this.#mailCursor, BATCH); batch.length > 0; batch = this.#mail.deliveredSince(this.#mailCursor, BATCH)) {
      for (const m of batch) {
        this.#mailCursor = m.id;
        this.#emit({
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
    for (let batch = this.#chat.postedSince(this.#chatCursor, BATCH); batch.length > 0; batch = this.#chat.postedSince(this.#chatCursor, BATCH)) {
      for (const c of batch) {
        this.#chatCursor = c.id;
        this.#emit({
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
  }

  #emit(item: NodeWakeItem): void {
    for (const listener of this.#listeners) listener(item);
  }
}
