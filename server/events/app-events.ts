/**
 * App events (DESIGN §5; research anchor-library-docs B9): a surface announces that one of a
 * team's resources changed (today: `docs/doc.changed`, a document gained a version), and every
 * identity that subscribed to it and is still a member of the team sees it on its event stream.
 * Events are metadata only (never a document body) and short-lived: a stream replays the last
 * five minutes and keeps no durable cursor, so replays happen and clients deduplicate by
 * `event_id`. Subscriptions are written by the core surface (surfaces/core/events/subscriptions.ts).
 */
import { randomUUID } from 'node:crypto';
import { APP_EVENT_TYPES, type AppEventType, type DocChangeSource } from '../../contract/core/events.ts';
import type { NodeContext } from '../context.ts';
import { APP_EVENT_SCOPES } from '../teams/scopes.ts';
import { identityTopic } from './bus.ts';

// The app event types a subscription may name, and their frames: contract/core/events.ts.
export type { AppEventType };

export interface DocChangedEvent {
  type: 'docs/doc.changed';
  /** The document's slug: exact-matched against a subscription's resource_ref (null matches all). */
  resource_ref: string;
  payload: { slug: string; version: number; source: DocChangeSource };
}

export type AppEventInput = DocChangedEvent;

export interface StoredAppEvent {
  /** Row id: the stream's cursor. */
  id: number;
  event_id: string;
  team_id: string;
  type: AppEventType;
  resource_ref: string;
  payload: Record<string, unknown>;
  created_at: string;
}

/** What a stream replays on connect, and the oldest event it ever delivers (upstream: 5 minutes). */
export const APP_EVENT_LOOKBACK_MS = 5 * 60 * 1000;
/** Rows older than this are pruned on emit. */
export const APP_EVENT_RETENTION_MS = 60 * 60 * 1000;
/** The newest events a connecting stream replays. */
export const APP_EVENT_SNAPSHOT_LIMIT = 50;
/** Events one live read returns; the rest follow on the next read. */
const LIVE_LIMIT = 500;

interface AppEventRow {
  id: number;
  event_id: string;
  team_id: string;
  type: AppEventType;
  resource_ref: string;
  payload: string;
  created_at: string;
}

/** Only these fields of each type's payload are stored, whatever else a caller passes. */
function metadata(event: AppEventInput): Record<string, unknown> {
  const { slug, version, source } = event.payload;
  return { slug, version, source };
}

/*
 * The events an identity may see: it subscribed to the event's (team, type) for that resource or
 * for all, and it is still a member of the team (an unrevoked certificate for its current
 * did:key or its did:svc: the rule of TeamService.teamsOf) whose certificate holds the scope the
 * type needs (APP_EVENT_SCOPES: docs:read for docs/doc.changed). Checked at every delivery, so a
 * subscription outlives neither the certificate nor the scope it was made with; a type without
 * a scope reaches nobody.
 */
const VISIBLE = `
  FROM app_events e JOIN agents a ON a.agent_id = @agent
  WHERE e.id > @after AND e.created_at >= @since
    AND EXISTS (SELECT 1 FROM event_subscriptions s
                WHERE s.agent_id = a.agent_id AND s.team_id = e.team_id AND s.type = e.type
                  AND (s.resource_ref IS NULL OR s.resource_ref = e.resource_ref))
    AND EXISTS (SELECT 1 FROM team_certificates c
                WHERE c.team_id = e.team_id AND c.revoked_at IS NULL
                  AND (c.member_did_key = a.did_key OR c.member_did_aw = a.did_aw)
                  AND EXISTS (SELECT 1 FROM json_each(c.scopes) g
                              WHERE g.value = (SELECT t.value FROM json_each(@scopes) t WHERE t.key = e.type)))`;
const EVENT_SCOPES_JSON = JSON.stringify(APP_EVENT_SCOPES);

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
      db.prepare(`DELETE FROM app_events WHERE created_at < ?`).run(new Date(now.getTime() - APP_EVENT_RETENTION_MS).toISOString());
      db.prepare(`INSERT INTO app_events (event_id, team_id, type, resource_ref, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)`).run(
        randomUUID(),
        teamId,
        event.type,
        event.resource_ref,
        JSON.stringify(metadata(event)),
        now.toISOString(),
      );
      return this.subscribers(teamId, event.type, event.resource_ref);
    })();
    for (const agentId of recipients) bus.publish(identityTopic(agentId));
  }

  /** The identities subscribed to `type` in the team for `resourceRef` (exactly, or for all). */
  subscribers(teamId: string, type: string, resourceRef: string): string[] {
    return this.#ctx.db
      .prepare(
        `SELECT DISTINCT agent_id FROM event_subscriptions
         WHERE team_id = ? AND type = ? AND (resource_ref IS NULL OR resource_ref = ?) ORDER BY agent_id`,
      )
      .pluck()
      .all(teamId, type, resourceRef) as string[];
  }

  /**
   * The identity's events of the last five minutes, oldest first: with `afterId` null the newest
   * {@link APP_EVENT_SNAPSHOT_LIMIT} (a stream's snapshot on connect), otherwise those after it.
   */
  pending(agentId: string, afterId: number | null): StoredAppEvent[] {
    const since = new Date(this.#ctx.clock.now().getTime() - APP_EVENT_LOOKBACK_MS).toISOString();
    const params = { agent: agentId, after: afterId ?? 0, since, scopes: EVENT_SCOPES_JSON };
    const rows =
      afterId === null
        ? (this.#ctx.db.prepare(`SELECT e.* ${VISIBLE} ORDER BY e.id DESC LIMIT ${APP_EVENT_SNAPSHOT_LIMIT}`).all(params) as AppEventRow[]).reverse()
        : (this.#ctx.db.prepare(`SELECT e.* ${VISIBLE} ORDER BY e.id LIMIT ${LIVE_LIMIT}`).all(params) as AppEventRow[]);
    return rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) as Record<string, unknown> }));
  }
}
