/**
 * One identity's event stream (spec §6): `connected`, then every pending item of every wake
 * source (oldest first), then new items as the identity's bus topic nudges the stream pump
 * (server/events/stream-pump.ts: its poll, keepalive and error frame are every stream's).
 */
import type { IdentityConnected } from '../../../../contract/core/events.ts';
import { identityTopic, type EventBus } from '../../../events/bus.ts';
import { pumpStream } from '../../../events/stream-pump.ts';
import type { SseStream } from '../../../http/sse.ts';
import type { WakeItem, WakeSource } from './sources.ts';

export interface IdentityStreamOptions {
  bus: EventBus;
  agent: { agent_id: string; project_id: string };
  sources: readonly WakeSource[];
  stream: SseStream;
  /** Throws when the identity may no longer use its stream (deleted, archived); run each pass. */
  check?: () => void;
  pollMs?: number;
}

export function runIdentityStream({ bus, agent, sources, stream, check, pollMs }: IdentityStreamOptions): void {
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

  const deliver = (): void => {
    check?.();
    for (const item of collect()) {
      if (stream.closed) return;
      // At most once: the claim happens only for a live stream, immediately before the write.
      if (item.claim && !item.claim()) continue;
      if (!stream.send(item.event, item.data)) return;
    }
  };

  if (!stream.send('connected', { agent_id: agent.agent_id, project_id: agent.project_id } satisfies IdentityConnected)) return;
  pumpStream(stream, { bus, topics: [identityTopic(agent.agent_id)], deliver, pollMs }).pass();
}
