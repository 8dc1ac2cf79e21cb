-- Team-certificate identities on the core (upstream's POST /v1/connect;
-- docs/adr/0004-custody-model.md): a member with a certificate this node issued connects once and
-- becomes a self-custodial identity of its team's project (agents.custody 'self'), with one
-- workspace. Messaging keys rows by identity, so a team is a project here: team_projects says
-- which.
CREATE TABLE team_projects (
  team_id    TEXT PRIMARY KEY REFERENCES teams(team_id),
  project_id TEXT NOT NULL UNIQUE REFERENCES projects(project_id)
) STRICT;

CREATE TABLE team_agents (
  workspace_id   TEXT PRIMARY KEY,
  agent_id       TEXT NOT NULL UNIQUE REFERENCES agents(agent_id),
  team_id        TEXT NOT NULL REFERENCES teams(team_id),
  -- The certificate it last authenticated with; its revocation ends the member's access.
  certificate_id TEXT NOT NULL REFERENCES team_certificates(certificate_id),
  did_key        TEXT NOT NULL,
  alias          TEXT NOT NULL,
  hostname       TEXT NOT NULL DEFAULT '',
  workspace_path TEXT NOT NULL DEFAULT '',
  repo_origin    TEXT NOT NULL DEFAULT '',
  agent_type     TEXT NOT NULL DEFAULT 'agent',
  connected_at   TEXT NOT NULL,
  last_seen_at   TEXT NOT NULL,
  deleted_at     TEXT
) STRICT;
-- Upstream's rules: one live member per alias and per key in a team.
CREATE UNIQUE INDEX team_agents_alias ON team_agents(team_id, alias) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX team_agents_key ON team_agents(team_id, did_key) WHERE deleted_at IS NULL;
CREATE INDEX team_agents_certificate ON team_agents(certificate_id);
