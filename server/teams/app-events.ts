/**
 * App events (DESIGN §5; docs/adr/0006-library-and-document-surfaces.md): a surface announces that
 * one of a team's resources changed (today: `docs/doc.changed`, a document gained a version), and
 * every identity that subscribed to it and is still a member of the team sees it on its event
 * stream. Events are metadata only (never a document body) and short-lived: a stream replays the
 * last five minutes and keeps no durable cursor, so replays happen and clients deduplicate by
 * `event_id`. Subscriptions are written by the core surface
 * (surfaces/core/events/subscriptions.ts).
 */
import { randomUUID } from 'node:crypto';
import { APP_EVENT_TYPES, type DocChangeSource } from '../../contract/core/events.ts';
import type { NodeContext } from '../context.ts';
import { appEventsLostAfter, insertAppEvent, lastAppEventId, pruneAppEvents, subscribersOf, visibleAppEvents, type StoredAppEvent } from './app-event-store.ts';
import { identityTopic } from '../events/bus.ts';

export interface DocChangedEvent {
  type: 'docs/doc.changed';
  /** The document's slug: exact-matched against a subscription's resource_ref (null matches all). */
  resource_ref: string;
  payload: { slug: string; version: number; source: DocChangeSource };
}

export type AppEventInput = DocChangedEvent;

/** What a stream replays on connect, and the oldest event it ever delivers (upstream: 5 minutes). */
export const APP_EVENT_LOOKBACK_MS = 5 * 60 * 1000;
/** Rows older than this are pruned on emit. */
export const APP_EVENT_RETENTION_MS = 60 * 60 * 1000;
/** The newest events a connecting stream replays. */
export const APP_EVENT_SNAPSHOT_LIMIT = 50;
/** Events one live read returns; the rest follow on the next read. */
const LIVE_LIMIT = 500;

/** Only these fields of each type's payload are stored, whatever else a caller passes. */
function metadata(event: AppEventInput): Record<string, unknown> {
  const { slug, version, source } = event.payload;
  return { slug, version, source };
}

export class AppEvents {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  /**
   * Records the event and nudges the stream of every identity subscribed to it. Call it after
   * the write it announces has committed.
   */
  emit(teamId: string, event: AppEventInput): void {
    if (!(APP_EVENT_TYPES as readonly string[]).includes(event.type)) throw new Error(`unknown app event type ${event.type}`);
    const { db, clock, bus } = this.#ctx;
    const now = clock.now();
    const recipients = db.transaction(() => {
      pruneAppEvents(db, new Date(now.getTime() - APP_EVENT_RETENTION_MS).toISOString());
      insertAppEvent(db, {
        event_id: randomUUID(),
        team_id: teamId,
        type: event.type,
        resource_ref: event.resource_ref,
        payload: JSON.stringify(metadata(event)),
        created_at: now.toISOString(),
      });
      return this.subscribers(teamId, event.type, event.resource_ref);
    })();
    for (const agentId of recipients) bus.publish(identityTopic(agentId));
  }

  /** The identities subscribed to `type` in the team for `resourceRef` (exactly, or for all). */
  subscribers(teamId: string, type: string, resourceRef: string): string[] {
    return subscribersOf(this.#ctx.db, teamId, type, resourceRef);
  }

  /**
   * The identity's events of the last five minutes, oldest first: with `afterId` null the newest
   * {@link APP_EVENT_SNAPSHOT_LIMIT} (a stream's snapshot on connect), otherwise those after it.
   */
  pending(agentId: string, afterId: number | null): StoredAppEvent[] {
    return visibleAppEvents(this.#ctx.db, agentId, { afterId, since: this.#since(), limit: afterId === null ? APP_EVENT_SNAPSHOT_LIMIT : LIVE_LIMIT });
  }

  /** The newest event id given so far (anyone's). */
  head(): number {
    return lastAppEventId(this.#ctx.db);
  }

  /**
   * Whether a stream resumed from `afterId` has missed events it can no longer be sent: older
   * than the five minutes a stream replays, or pruned.
   */
  lostAfter(agentId: string, afterId: number): boolean {
    return appEventsLostAfter(this.#ctx.db, agentId, afterId, this.#since());
  }

  #since(): string {
    return new Date(this.#ctx.clock.now().getTime() - APP_EVENT_LOOKBACK_MS).toISOString();
  }
}
