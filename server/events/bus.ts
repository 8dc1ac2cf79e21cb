/**
 * The in-process event bus: services publish a topic the moment a write commits, and open
 * streams re-read what is new for them. Payloads are nudges, not data, so a stream's own query
 * stays the single source of truth and the 1 s poll is only a fallback for a missed nudge.
 */
import { EventEmitter } from 'node:events';

/** Topics: one per identity (wake items and control signals), one per chat session, one per team. */
export const identityTopic = (agentId: string): string => `identity:${agentId}`;
export const sessionTopic = (sessionId: string): string => `session:${sessionId}`;
/** A team's library state changed (its shelf, proposals, bindings): the owner's UI refreshes. */
export const teamTopic = (teamId: string): string => `team:${teamId}`;
/**
 * One of an identity's messages changed in place (read, unread, archived, unarchived, deleted),
 * by whoever did it (an agent, another window): the owner's UI shows it as it is now. New mail
 * has its own wake item, not this.
 */
export const mailTopic = (agentId: string, messageId: string): string => `mail:${agentId}:${messageId}`;
/** The identity and message of a `mailTopic`; null for any other topic. */
export function mailTopicParts(topic: string): { agentId: string; messageId: string } | null {
  const match = /^mail:([^:]+):(.+)$/.exec(topic);
  return match === null ? null : { agentId: match[1]!, messageId: match[2]! };
}
/** A team's documents changed (a document created or given a version): the owner's UI refreshes. */
export const docsTopic = (teamId: string): string => `docs:${teamId}`;
/** The node's tunnel changed state (up, down, reconnecting, configured). */
export const TUNNEL_TOPIC = 'tunnel';
/** A database backup started, moved on (at most a few times a second) or ended: the owner's UI shows how far it is. */
export const BACKUPS_TOPIC = 'backups';
/** The public catalog changed (a blueprint published, retagged or deleted). */
export const CATALOG_TOPIC = 'catalog';
/** The node's teams changed (one created, a member added or revoked): pickers re-read them. */
export const TEAMS_TOPIC = 'teams';

/** The owner's browser sessions changed (one revoked): open owner feeds check theirs at once. */
export const OWNER_SESSIONS_TOPIC = 'owner-sessions';
/** The device list changed: a device linked, joined or revoked. */
export const DEVICES_TOPIC = 'devices';

/** Every publish is also announced here, with its topic: for node-wide feeds. */
const ANY = Symbol('any topic');

export class EventBus {
  readonly #emitter = new EventEmitter();

  constructor() {
    // Hundreds of open streams each listen on their own topic.
    this.#emitter.setMaxListeners(0);
  }

  /** Calls `listener` on every publish to `topic` until the returned function is called. */
  subscribe(topic: string, listener: () => void): () => void {
    this.#emitter.on(topic, listener);
    return () => this.#emitter.off(topic, listener);
  }

  /** Calls `listener` with the topic of every publish, until the returned function is called. */
  subscribeAll(listener: (topic: string) => void): () => void {
    this.#emitter.on(ANY, listener);
    return () => this.#emitter.off(ANY, listener);
  }

  publish(topic: string): void {
    this.#emitter.emit(topic);
    this.#emitter.emit(ANY, topic);
  }

  listenerCount(topic: string): number {
    return this.#emitter.listenerCount(topic);
  }
}
