-- Teams whose key this node holds, and the certificates it issued with that key (DESIGN §4;
-- docs/adr/0003-request-authentication.md). The node is its own registry: a presented certificate
-- is accepted only when its signature verifies against teams.team_did_key and its certificate_id is
-- a row here that has not been revoked.

CREATE TABLE teams (
  team_id              TEXT PRIMARY KEY,           -- "<name>:<domain>"
  name                 TEXT NOT NULL,
  domain               TEXT NOT NULL,
  key_id               TEXT NOT NULL,              -- custody key (purpose 'team') that signs certificates
  team_did_key         TEXT NOT NULL,
  -- The member the node's owner acts through (no FK: the certificate row references the team).
  owner_certificate_id TEXT NOT NULL,
  created_at           TEXT NOT NULL,
  UNIQUE (name, domain)
) STRICT;

CREATE TABLE team_certificates (
  certificate_id TEXT PRIMARY KEY,
  team_id        TEXT NOT NULL REFERENCES teams (team_id),
  member_did_key TEXT NOT NULL,
  member_did_aw  TEXT,
  member_address TEXT,
  alias          TEXT NOT NULL,
  lifetime       TEXT NOT NULL CHECK (lifetime IN ('persistent', 'ephemeral')),
  issued_at      TEXT NOT NULL,
  -- The exact certificate JSON as issued (signature included): handed out as standard base64.
  certificate    TEXT NOT NULL,
  -- Node-local authorisation (DESIGN §4): a JSON array such as ["docs:read","docs:write"].
  scopes         TEXT NOT NULL DEFAULT '[]',
  -- Set only when the node holds the member's key too (the owner member).
  member_key_id  TEXT,
  revoked_at     TEXT
) STRICT;

CREATE INDEX team_certificates_team ON team_certificates (team_id, issued_at);

-- Upstream's "Alias already active in team": one live certificate per alias; revoked ones free it.
CREATE UNIQUE INDEX team_certificates_active_alias ON team_certificates (team_id, alias) WHERE revoked_at IS NULL;
