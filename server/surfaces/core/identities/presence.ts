/**
 * Presence, as far as this node knows: an identity is online while it has an event stream open,
 * or for PRESENCE_TTL_SECONDS after its last heartbeat (upstream's presence lifetime). In memory:
 * a stream lives in this process and a restart closes every stream, so nothing stale outlives it;
 * a heartbeat is a claim about the next half hour, and a restart forgets it.
 */
import type { Clock } from '../../../clock.ts';
import type { EventBus } from '../../../events/bus.ts';

export const PRESENCE_TTL_SECONDS = 1800;
/** Published on every presence change (the owner feed's `agent.online` / `agent.offline`). */
export const PRESENCE_TOPIC = 'presence';
/** How many changes are kept for readers that are behind (a reader is at most a poll behind). */
const CHANGES_KEPT = 1000;

/** One change of an identity's presence, numbered in order. */
export interface PresenceChange {
  seq: number;
  agent_id: string;
  online: boolean;
  /** When the change was seen (for an expired heartbeat: when a sweep noticed it). */
  at: string;
  last_seen: string | null;
}

export interface PresenceState {
  online: boolean;
  /** The last sign of life seen (a heartbeat, a stream opening or still open); null when none. */
  last_seen: string | null;
}

export class IdentityPresence {
  readonly #clock: Clock;
  /** agent_id → open event streams. */
  readonly #streams = new Map<string, number>();
  /** agent_id → ms of the last heartbeat or stream activity. */
  readonly #seen = new Map<string, number>();
  /** agent_id → ms of the last heartbeat. */
  readonly #beats = new Map<string, number>();
  /** The identities last reported online: the set a sweep checks for an expired heartbeat. */
  readonly #reported = new Set<string>();
  readonly #changes: PresenceChange[] = [];
  #seq = 0;
  readonly #bus: EventBus | undefined;

  constructor(clock: Clock, bus?: EventBus) {
    this.#clock = clock;
    this.#bus = bus;
  }

  /** The number of the last change (a new reader starts after it). */
  lastChange(): number {
    return this.#seq;
  }

  /** The changes after `seq`, oldest first (those older than the last CHANGES_KEPT are gone). */
  changesSince(seq: number): PresenceChange[] {
    return this.#changes.filter((c) => c.seq > seq);
  }

  /**
   * Notices heartbeats that expired with no stream open: each such identity goes offline (one
   * change). No timer per identity: the owner feed's pump calls this on each pass (its poll).
   */
  sweep(): void {
    for (const agentId of [...this.#reported]) this.#update(agentId);
  }

  /** Records a change when `agentId`'s presence differs from what was last reported. */
  #update(agentId: string): void {
    const state = this.of(agentId);
    if (state.online === this.#reported.has(agentId)) return;
    if (state.online) this.#reported.add(agentId);
    else this.#reported.delete(agentId);
    this.#changes.push({ seq: ++this.#seq, agent_id: agentId, online: state.online, at: new Date(this.#now()).toISOString(), last_seen: state.last_seen });
    if (this.#changes.length > CHANGES_KEPT) this.#changes.splice(0, this.#changes.length - CHANGES_KEPT);
    this.#bus?.publish(PRESENCE_TOPIC);
  }

  /** Counts `agentId` online until the returned function is called (once). */
  streamOpened(agentId: string): () => void {
    this.#streams.set(agentId, (this.#streams.get(agentId) ?? 0) + 1);
    this.#seen.set(agentId, this.#now());
    this.#update(agentId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = this.#streams.get(agentId) ?? 0;
      if (count <= 1) this.#streams.delete(agentId);
      else this.#streams.set(agentId, count - 1);
      this.#seen.set(agentId, this.#now());
      this.#update(agentId);
    };
  }

  heartbeat(agentId: string): { last_seen: string; ttl_seconds: number } {
    const now = this.#now();
    this.#beats.set(agentId, now);
    this.#seen.set(agentId, now);
    this.#update(agentId);
    return { last_seen: new Date(now).toISOString(), ttl_seconds: PRESENCE_TTL_SECONDS };
  }

  of(agentId: string): PresenceState {
    const now = this.#now();
    const streaming = (this.#streams.get(agentId) ?? 0) > 0;
    const beat = this.#beats.get(agentId);
    const online = streaming || (beat !== undefined && now - beat < PRESENCE_TTL_SECONDS * 1000);
    const seen = streaming ? now : this.#seen.get(agentId);
    return { online, last_seen: seen === undefined ? null : new Date(seen).toISOString() };
  }

  #now(): number {
    return this.#clock.now().getTime();
  }
}
