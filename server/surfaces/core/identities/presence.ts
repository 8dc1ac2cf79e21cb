/**
 * Presence, as far as this node knows: an identity is online while it has an event stream open,
 * or for PRESENCE_TTL_SECONDS after its last heartbeat (upstream's presence lifetime). In memory:
 * a stream lives in this process and a restart closes every stream, so nothing stale outlives it;
 * a heartbeat is a claim about the next half hour, and a restart forgets it.
 */
import type { Clock } from '../../../clock.ts';

export const PRESENCE_TTL_SECONDS = 1800;

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

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Counts `agentId` online until the returned function is called (once). */
  streamOpened(agentId: string): () => void {
    this.#streams.set(agentId, (this.#streams.get(agentId) ?? 0) + 1);
    this.#seen.set(agentId, this.#now());
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = this.#streams.get(agentId) ?? 0;
      if (count <= 1) this.#streams.delete(agentId);
      else this.#streams.set(agentId, count - 1);
      this.#seen.set(agentId, this.#now());
    };
  }

  heartbeat(agentId: string): { last_seen: string; ttl_seconds: number } {
    const now = this.#now();
    this.#beats.set(agentId, now);
    this.#seen.set(agentId, now);
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
