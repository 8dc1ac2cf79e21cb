/**
 * One identity's event stream (spec §6): `connected`, then every pending item of every wake
 * source (oldest first), then new items as the identity's bus topic nudges the stream pump
 * (server/events/stream-pump.ts: its poll, keepalive and error frame are every stream's).
 *
 * Every frame's id is the stream's position after it: one cursor per source, the highest row id
 * of that source the client has been sent (null while the source's connect snapshot is still to
 * come). A reconnect with that id as `Last-Event-ID` starts from those cursors instead of the
 * snapshot: what the client saw is not sent again, what came in between is; when some of that can
 * no longer be sent (app events older than their window), `reset` says so and the stream starts
 * as a new connection does. Control signals stay at most once: a signal is claimed by the one
 * stream that writes it, whatever the cursors say. Mail and chat go out under the spec's names,
 * and on a stream opened with upstream's auth each is followed by upstream's (upstream-frames.ts).
 */
import { z } from 'zod';
import type { IdentityConnected, StreamReset } from '../../../../contract/core/events.ts';
import { identityTopic, type EventBus } from '../../../events/bus.ts';
import { Cursor, streamIds } from '../../../events/stream-ids.ts';
import { pumpStream } from '../../../events/stream-pump.ts';
import type { SseStream } from '../../../http/sse.ts';
import type { WakeItem, WakeSource } from './sources.ts';

const RESET_DETAIL = 'Last-Event-ID is further back than this stream can replay: what follows is what a new connection gets; reload what you show';

/** A position: each source's cursor, by source name (a source it does not name starts with its snapshot). */
export type IdentityStreamPosition = Record<string, number | null>;
export const identityStreamIds = streamIds<IdentityStreamPosition>('ev1', z.record(z.string().max(64), Cursor));

export interface IdentityStreamOptions {
  bus: EventBus;
  /** `team_id`: a team identity's team, named in `connected` as upstream's clients expect. */
  agent: { agent_id: string; project_id: string; team_id?: string };
  sources: readonly WakeSource[];
  stream: SseStream;
  /** Throws when the identity may no longer use its stream (deleted, archived); run each pass. */
  check?: () => void;
  /** Where a reconnecting client stopped (its `Last-Event-ID`); null: a fresh connection. */
  resume?: IdentityStreamPosition | null;
  /** Each wake item under upstream's name too, right after the spec's (upstream-frames.ts). */
  upstreamNames?: boolean;
  pollMs?: number;
}

export function runIdentityStream({ bus, agent, sources, stream, check, resume = null, upstreamNames = false, pollMs }: IdentityStreamOptions): void {
  // A resume that cannot be complete (a source's window has moved past its cursor) starts afresh
  // after a `reset` frame, as a new connection would: the client reloads instead of missing items.
  const incomplete =
    resume !== null &&
    sources.some((source) => {
      const cursor = resume[source.name];
      return cursor !== undefined && cursor !== null && source.lost?.(agent.agent_id, cursor) === true;
    });
  const cursors: (number | null)[] = sources.map((source) => (incomplete ? null : (resume?.[source.name] ?? null)));
  const position = (): string => identityStreamIds.encode(Object.fromEntries(sources.map((source, index) => [source.name, cursors[index] ?? null])));
  let connected = false;

  const deliver = (): void => {
    const pending = sources.map((source, index) => source.pending(agent.agent_id, cursors[index] ?? null));
    // A source with nothing pending has been seen up to where it stands (its head; 0 without one).
    pending.forEach((items, index) => {
      if (items.length === 0) cursors[index] = Math.max(cursors[index] ?? 0, sources[index]?.head?.() ?? 0);
    });
    if (!connected) {
      connected = true;
      const hello: IdentityConnected = {
        agent_id: agent.agent_id,
        project_id: agent.project_id,
        ...(agent.team_id === undefined ? {} : { team_id: agent.team_id }),
      };
      if (!stream.send('connected', hello, position())) return;
      if (incomplete && !stream.send('reset', { type: 'reset', detail: RESET_DETAIL } satisfies StreamReset, position())) return;
    }
    check?.();
    for (const { item, index } of oldestFirst(pending)) {
      if (stream.closed) return;
      // The item is the client's once it is written, or once another stream claimed it.
      cursors[index] = item.id;
      // At most once: the claim happens only for a live stream, immediately before the write.
      if (item.claim && !item.claim()) continue;
      if (!stream.send(item.event, item.data, position())) return;
      if (upstreamNames && item.twin !== undefined && !stream.send(item.twin.event, item.twin.data, position())) return;
    }
  };

  pumpStream(stream, { bus, topics: [identityTopic(agent.agent_id)], deliver, pollMs }).pass();
}

/**
 * The sources' items merged oldest first by creation second; each source's own order (its row
 * ids, ascending) is kept, so a cursor never passes an item not yet written. Within one second,
 * sources keep their order.
 */
function* oldestFirst(lists: readonly WakeItem[][]): Generator<{ item: WakeItem; index: number }> {
  const heads = lists.map(() => 0);
  for (;;) {
    let next = -1;
    lists.forEach((items, index) => {
      const item = items[heads[index] ?? 0];
      if (item === undefined) return;
      const best = next < 0 ? undefined : lists[next]?.[heads[next] ?? 0];
      if (best === undefined || item.at < best.at) next = index;
    });
    if (next < 0) return;
    const item = lists[next]?.[heads[next] ?? 0];
    heads[next] = (heads[next] ?? 0) + 1;
    if (item !== undefined) yield { item, index: next };
  }
}
