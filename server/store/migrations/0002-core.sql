-- The core identity surface: projects, API keys, identities, the did:svc registry, namespaces.
-- Timestamps are ISO 8601 UTC text. Ids are UUIDs unless the spec fixes another form.

CREATE TABLE node_settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- The did:svc registry: current key per stable id, and the append-only log behind it.
CREATE TABLE did_mappings (
  did_aw TEXT PRIMARY KEY,
  current_did_key TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE did_log (
  did_aw TEXT NOT NULL REFERENCES did_mappings(did_aw),
  seq INTEGER NOT NULL CHECK (seq >= 1),
  operation TEXT NOT NULL,
  previous_did_key TEXT,
  new_did_key TEXT NOT NULL,
  prev_entry_hash TEXT,
  entry_hash TEXT NOT NULL UNIQUE,
  state_hash TEXT NOT NULL,
  authorized_by TEXT NOT NULL,
  signature TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (did_aw, seq)
);

-- Append-only is a property of the table, not a convention of its callers.
CREATE TRIGGER did_log_no_update BEFORE UPDATE ON did_log
BEGIN SELECT RAISE(ABORT, 'did_log is append-only'); END;
CREATE TRIGGER did_log_no_delete BEFORE DELETE ON did_log
BEGIN SELECT RAISE(ABORT, 'did_log is append-only'); END;

CREATE TABLE namespaces (
  domain TEXT PRIMARY KEY,
  controller_did TEXT NOT NULL,
  -- Set when this node's custody holds the controller key.
  controller_key_id TEXT,
  verification_status TEXT NOT NULL DEFAULT 'unverified'
    CHECK (verification_status IN ('unverified', 'verified', 'revoked')),
  last_verified_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX namespaces_controller ON namespaces(controller_did);

-- An address bound to a did:svc follows that identity's key through rotations
-- (did_key is read from did_mappings); an address without one holds its own did_key.
CREATE TABLE addresses (
  domain TEXT NOT NULL REFERENCES namespaces(domain),
  name TEXT NOT NULL,
  did_key TEXT NOT NULL,
  did_aw TEXT REFERENCES did_mappings(did_aw),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (domain, name)
);
CREATE INDEX addresses_did_aw ON addresses(did_aw);

CREATE TABLE replacement_announcements (
  announcement_id TEXT PRIMARY KEY,
  domain TEXT NOT NULL,
  address_name TEXT NOT NULL,
  old_did TEXT NOT NULL,
  new_did TEXT NOT NULL,
  controller_did TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  controller_signature TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE projects (
  project_id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  namespace TEXT REFERENCES namespaces(domain),
  created_at TEXT NOT NULL
);

CREATE TABLE agents (
  agent_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  alias TEXT NOT NULL,
  name TEXT,
  lifetime TEXT NOT NULL CHECK (lifetime IN ('ephemeral', 'persistent')),
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived', 'replaced', 'deleted')),
  key_id TEXT NOT NULL,
  did_key TEXT NOT NULL,
  did_aw TEXT REFERENCES did_mappings(did_aw),
  address_reachability TEXT NOT NULL DEFAULT 'public'
    CHECK (address_reachability IN ('public', 'contacts-only')),
  human_name TEXT NOT NULL DEFAULT '',
  role TEXT,
  program TEXT,
  context TEXT,
  successor_agent_id TEXT REFERENCES agents(agent_id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- A deleted identity frees its alias; archived and replaced ones keep it reserved.
CREATE UNIQUE INDEX agents_project_alias ON agents(project_id, alias) WHERE status <> 'deleted';
CREATE INDEX agents_did_aw ON agents(did_aw);

CREATE TABLE api_keys (
  api_key_id TEXT PRIMARY KEY,
  -- sha256 hex of the whole key; the plaintext is shown once and never stored.
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  -- NULL: a project-authority key (may only call POST /v1/workspaces/init).
  agent_id TEXT REFERENCES agents(agent_id),
  is_active INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);

-- The identity's own audit trail (GET /v1/agents/me/log), signed by the identity's key.
CREATE TABLE agent_log (
  log_id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  seq INTEGER NOT NULL,
  operation TEXT NOT NULL,
  old_did TEXT,
  new_did TEXT,
  signed_by TEXT,
  entry_signature TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  UNIQUE (agent_id, seq)
);
CREATE TRIGGER agent_log_no_update BEFORE UPDATE ON agent_log
BEGIN SELECT RAISE(ABORT, 'agent_log is append-only'); END;

CREATE TABLE rotation_announcements (
  announcement_id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  old_did TEXT NOT NULL,
  new_did TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  old_key_signature TEXT NOT NULL,
  created_at TEXT NOT NULL
);
