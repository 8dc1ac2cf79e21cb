-- App events on the core event stream (DESIGN §5; docs/adr/0006-library-and-document-surfaces.md):
-- an identity subscribes to a type of event in a team it is a member of, for one resource (a
-- document slug) or, with a null resource_ref, for all of them. Events are metadata only (never a
-- document body) and short-lived: a stream replays the last five minutes, and rows older than an
-- hour are pruned.

CREATE TABLE event_subscriptions (
  subscription_id TEXT PRIMARY KEY,
  agent_id        TEXT NOT NULL REFERENCES agents (agent_id),
  team_id         TEXT NOT NULL REFERENCES teams (team_id),
  type            TEXT NOT NULL,
  resource_ref    TEXT,                          -- NULL: every resource of the type
  created_at      TEXT NOT NULL
) STRICT;

-- Upstream's uniqueness: (team, agent, type, resource_ref), a null resource_ref counting as one value.
CREATE UNIQUE INDEX event_subscriptions_unique ON event_subscriptions (agent_id, team_id, type, ifnull(resource_ref, ''));
-- The fan-out an emit does: who subscribed to this (team, type, resource).
CREATE INDEX event_subscriptions_match ON event_subscriptions (team_id, type, resource_ref);

CREATE TABLE app_events (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,  -- the stream's cursor
  event_id     TEXT NOT NULL UNIQUE,               -- what clients deduplicate replays by
  team_id      TEXT NOT NULL,
  type         TEXT NOT NULL,
  resource_ref TEXT NOT NULL,
  payload      TEXT NOT NULL,                      -- JSON metadata, e.g. {slug, version, source}
  created_at   TEXT NOT NULL
) STRICT;

CREATE INDEX app_events_created ON app_events (created_at);
