/**
 * The `app_events` table and the `event_subscriptions` that say who sees them (migration 0008).
 * The only module that reads or writes them. Which events an identity may see is one query: its
 * subscription, team membership by the teams' rule (teams/store.ts) and the scope the type needs.
 */
import type { Db } from '../context.ts';
import { APP_EVENT_SCOPES } from './scopes.ts';
import { grantsScopeSql, membershipSql } from './store.ts';
import type { AppEventType, EventSubscription } from '../../contract/core/events.ts';

export interface AppEventRow {
  /** The stream's cursor. */
  id: number;
  event_id: string;
  team_id: string;
  type: AppEventType;
  resource_ref: string;
  /** JSON of the event's metadata. */
  payload: string;
  created_at: string;
}

export interface StoredAppEvent extends Omit<AppEventRow, 'payload'> {
  payload: Record<string, unknown>;
}

export interface EventSubscriptionRow extends EventSubscription {
  agent_id: string;
}

export function toStoredAppEvent(row: AppEventRow): StoredAppEvent {
  return { ...row, payload: JSON.parse(row.payload) as Record<string, unknown> };
}

/*
 * The events an identity may see: it subscribed to the event's (team, type) for that resource or
 * for all, and it is still a member of the team whose certificate holds the scope the type needs
 * (APP_EVENT_SCOPES: docs:read for docs/doc.changed). Checked at every delivery, so a
 * subscription outlives neither the certificate nor the scope it was made with; a type without
 * a scope reaches nobody.
 */
const SEEN_BY = `
  FROM app_events e JOIN agents a ON a.agent_id = @agent
  WHERE e.id > @after
    AND EXISTS (SELECT 1 FROM event_subscriptions s
                WHERE s.agent_id = a.agent_id AND s.team_id = e.team_id AND s.type = e.type
                  AND (s.resource_ref IS NULL OR s.resource_ref = e.resource_ref))
    AND EXISTS (SELECT 1 FROM team_certificates c
                WHERE c.team_id = e.team_id AND ${membershipSql('c', 'a.did_key', 'a.did_aw')}
                  AND ${grantsScopeSql('c', '(SELECT t.value FROM json_each(@scopes) t WHERE t.key = e.type)')})`;
const VISIBLE = `${SEEN_BY} AND e.created_at >= @since`;
const EVENT_SCOPES_JSON = JSON.stringify(APP_EVENT_SCOPES);

/** Drops the events created before `before`. */
export function pruneAppEvents(db: Db, before: string): void {
  db.prepare(`DELETE FROM app_events WHERE created_at < ?`).run(before);
}

export function insertAppEvent(db: Db, row: Omit<AppEventRow, 'id'>): void {
  db.prepare(
    `INSERT INTO app_events (event_id, team_id, type, resource_ref, payload, created_at) VALUES (@event_id, @team_id, @type, @resource_ref, @payload, @created_at)`,
  ).run(row);
}

/**
 * The events the identity may see created at `since` or later, oldest first: with `afterId` null
 * the newest `limit` of them, otherwise the first `limit` after that row.
 */
export function visibleAppEvents(db: Db, agentId: string, query: { afterId: number | null; since: string; limit: number }): StoredAppEvent[] {
  const params = { agent: agentId, after: query.afterId ?? 0, since: query.since, scopes: EVENT_SCOPES_JSON, limit: query.limit };
  const rows =
    query.afterId === null
      ? (db.prepare(`SELECT e.* ${VISIBLE} ORDER BY e.id DESC LIMIT +@limit`).all(params) as AppEventRow[]).reverse()
      : (db.prepare(`SELECT e.* ${VISIBLE} ORDER BY e.id LIMIT +@limit`).all(params) as AppEventRow[]);
  return rows.map(toStoredAppEvent);
}

/** The newest id an event was ever given (ids are never reused: AUTOINCREMENT); 0 before the first. */
export function lastAppEventId(db: Db): number {
  return (db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'app_events'`).pluck().get() as number | undefined) ?? 0;
}

/**
 * Whether events after row `afterId` are out of reach of a stream: one the identity may see that
 * is older than `since` (still stored), or any event after the cursor already pruned (whose
 * audience is no longer known).
 */
export function appEventsLostAfter(db: Db, agentId: string, afterId: number, since: string): boolean {
  const stored = db.prepare(`SELECT count(*) FROM app_events WHERE id > ?`).pluck().get(afterId) as number;
  if (stored < lastAppEventId(db) - afterId) return true;
  const params = { agent: agentId, after: afterId, since, scopes: EVENT_SCOPES_JSON };
  return db.prepare(`SELECT 1 ${SEEN_BY} AND e.created_at < @since LIMIT 1`).get(params) !== undefined;
}

/** The identities subscribed to `type` in the team for `resourceRef` (exactly, or for all), by id. */
export function subscribersOf(db: Db, teamId: string, type: string, resourceRef: string): string[] {
  return db
    .prepare(
      `SELECT DISTINCT agent_id FROM event_subscriptions
       WHERE team_id = ? AND type = ? AND (resource_ref IS NULL OR resource_ref = ?) ORDER BY agent_id`,
    )
    .pluck()
    .all(teamId, type, resourceRef) as string[];
}

const SUBSCRIPTION_COLUMNS = `subscription_id, type, team_id, resource_ref, created_at`;

/** The identity's subscription to exactly this (team, type, resource), a null resource_ref meaning all. */
export function findSubscription(db: Db, agentId: string, key: Pick<EventSubscription, 'team_id' | 'type' | 'resource_ref'>): EventSubscription | undefined {
  return db
    .prepare(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM event_subscriptions WHERE agent_id = ? AND team_id = ? AND type = ? AND ifnull(resource_ref, '') = ifnull(?, '')`,
    )
    .get(agentId, key.team_id, key.type, key.resource_ref) as EventSubscription | undefined;
}

export function insertSubscription(db: Db, row: EventSubscriptionRow): void {
  db.prepare(
    `INSERT INTO event_subscriptions (${SUBSCRIPTION_COLUMNS}, agent_id) VALUES (@subscription_id, @type, @team_id, @resource_ref, @created_at, @agent_id)`,
  ).run(row);
}

/** The identity's subscriptions, in the order they were made. */
export function subscriptionsOf(db: Db, agentId: string): EventSubscription[] {
  return db
    .prepare(`SELECT ${SUBSCRIPTION_COLUMNS} FROM event_subscriptions WHERE agent_id = ? ORDER BY created_at, rowid`)
    .all(agentId) as EventSubscription[];
}

/** Deletes the identity's subscription; false when it has none with that id. */
export function deleteSubscription(db: Db, agentId: string, subscriptionId: string): boolean {
  return db.prepare(`DELETE FROM event_subscriptions WHERE subscription_id = ? AND agent_id = ?`).run(subscriptionId, agentId).changes > 0;
}
