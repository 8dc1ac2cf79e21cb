/**
 * One identity's event stream (spec §6): `connected`, then every pending item of every wake
 * source (oldest first), then new items the moment the bus nudges the identity's topic; a poll
 * every second is only the fallback for a missed nudge. A failure while polling is an `error`
 * frame, and the stream ends.
 */
import type { IdentityConnected, StreamError } from '../../../../contract/core/events.ts';
import { ServiceError } from '../../../errors.ts';
import { identityTopic, type EventBus } from '../../../events/bus.ts';
import type { SseStream } from '../../../http/sse.ts';
import type { WakeItem, WakeSource } from './sources.ts';

export const POLL_INTERVAL_MS = 1000;

export interface IdentityStreamOptions {
  bus: EventBus;
  agent: { agent_id: string; project_id: string };
  sources: readonly WakeSource[];
  stream: SseStream;
  /** Throws when the identity may no longer use its stream (deleted, archived); run each poll. */
  check?: () => void;
  pollMs?: number;
}

export function runIdentityStream({ bus, agent, sources, stream, check, pollMs = POLL_INTERVAL_MS }: IdentityStreamOptions): void {
  // Per source, the highest row id seen; null until the connect snapshot has been taken.
  const cursors: (number | null)[] = sources.map(() => null);

  const collect = (): WakeItem[] => {
    const batch: WakeItem[] = [];
    sources.forEach((source, index) => {
      let cursor = cursors[index] ?? 0;
      for (const item of source.pending(agent.agent_id, cursors[index] ?? null)) {
        cursor = Math.max(cursor, item.id);
        batch.push(item);
      }
      cursors[index] = cursor;
    });
    // Stable: items of one source keep their order; sources interleave by creation second.
    return batch.sort((a, b) => a.at - b.at);
  };

  const fail = (error: unknown): void => {
    const detail = error instanceof ServiceError ? error.message : `poll failure: ${error instanceof Error ? error.message : String(error)}`;
    stream.send('error', { type: 'error', detail } satisfies StreamError);
    stream.close();
  };

  const pump = (): void => {
    if (stream.closed) return;
    try {
      check?.();
      for (const item of collect()) {
        if (stream.closed) return;
        // At most once: the claim happens only for a live stream, immediately before the write.
        if (item.claim && !item.claim()) continue;
        if (!stream.send(item.event, item.data)) return;
      }
    } catch (error) {
      fail(error);
    }
  };

  let queued = false;
  const nudge = (): void => {
    if (queued || stream.closed) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      pump();
    });
  };

  if (!stream.send('connected', { agent_id: agent.agent_id, project_id: agent.project_id } satisfies IdentityConnected)) return;
  const unsubscribe = bus.subscribe(identityTopic(agent.agent_id), nudge);
  const timer = setInterval(pump, pollMs);
  stream.onClose(() => {
    unsubscribe();
    clearInterval(timer);
  });
  pump();
}
