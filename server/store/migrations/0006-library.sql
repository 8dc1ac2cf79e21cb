-- The blueprint library surface (spec §4.6; docs/adr/0006-library-and-document-surfaces.md), stored
-- as upstream's library stores it, with its quirks fixed: a blueprint_ref belongs to its first
-- publisher, tags live on the ref (a new version keeps them), and every (ref, version) is
-- immutable. "Latest" is the highest `seq`, which new versions only ever raise. File payloads are
-- JSON arrays of {path, content_utf8, sha256}.

-- Teams that called POST /v1/team/register; the first write wins.
CREATE TABLE library_teams (
  team_id       TEXT PRIMARY KEY,
  owner         TEXT,
  display_name  TEXT,
  registered_at TEXT NOT NULL
) STRICT;

CREATE TABLE blueprints (
  blueprint_ref TEXT PRIMARY KEY,
  owner_team    TEXT NOT NULL,
  tags          TEXT NOT NULL DEFAULT '[]',
  created_at    TEXT NOT NULL
) STRICT;

CREATE TABLE blueprint_versions (
  seq                    INTEGER PRIMARY KEY AUTOINCREMENT,
  blueprint_ref          TEXT NOT NULL REFERENCES blueprints (blueprint_ref) ON DELETE CASCADE,
  version                TEXT NOT NULL,
  digest                 TEXT NOT NULL,
  name                   TEXT NOT NULL,
  summary                TEXT,
  description            TEXT,
  recommendations        TEXT NOT NULL,
  runtime_hints          TEXT NOT NULL,
  expected_apps          TEXT NOT NULL,
  first_mission_examples TEXT NOT NULL,
  files                  TEXT NOT NULL,
  created_at             TEXT NOT NULL,
  UNIQUE (blueprint_ref, version)
) STRICT;

CREATE INDEX blueprint_versions_latest ON blueprint_versions (blueprint_ref, seq);

-- Each profile of a blueprint version, profile-relative, so reads and shelf imports need no split.
CREATE TABLE blueprint_profiles (
  version_seq INTEGER NOT NULL REFERENCES blueprint_versions (seq) ON DELETE CASCADE,
  profile_ref TEXT NOT NULL,
  position    INTEGER NOT NULL,
  version     TEXT NOT NULL,
  digest      TEXT NOT NULL,
  files       TEXT NOT NULL,
  PRIMARY KEY (version_seq, profile_ref)
) STRICT;

-- A team's private working copy: record metadata (tags, source pins, merge baselines) per
-- profile; content per version.
CREATE TABLE shelf_profiles (
  team_id                  TEXT NOT NULL,
  profile_ref              TEXT NOT NULL,
  tags                     TEXT NOT NULL DEFAULT '[]',
  source_blueprint_ref     TEXT,
  source_blueprint_version TEXT,
  source_blueprint_digest  TEXT,
  source_profile_ref       TEXT,
  source_profile_version   TEXT,
  source_profile_digest    TEXT,
  part_baselines           TEXT,
  created_at               TEXT NOT NULL,
  PRIMARY KEY (team_id, profile_ref)
) STRICT;

CREATE INDEX shelf_profiles_source ON shelf_profiles (source_blueprint_ref);

CREATE TABLE shelf_versions (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  team_id     TEXT NOT NULL,
  profile_ref TEXT NOT NULL,
  version     TEXT NOT NULL,
  digest      TEXT NOT NULL,
  files       TEXT NOT NULL,
  -- How the version came to be: created, version, import, update-from-source, proposal.
  origin      TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  UNIQUE (team_id, profile_ref, version),
  FOREIGN KEY (team_id, profile_ref) REFERENCES shelf_profiles (team_id, profile_ref) ON DELETE CASCADE
) STRICT;

CREATE INDEX shelf_versions_latest ON shelf_versions (team_id, profile_ref, seq);

CREATE TABLE profile_bindings (
  team_id              TEXT NOT NULL,
  agent_id             TEXT NOT NULL,
  profile_ref          TEXT NOT NULL,
  profile_version      TEXT NOT NULL,
  profile_digest       TEXT NOT NULL,
  source_blueprint_ref TEXT,
  bound_at             TEXT NOT NULL,
  PRIMARY KEY (team_id, agent_id),
  FOREIGN KEY (team_id, profile_ref) REFERENCES shelf_profiles (team_id, profile_ref) ON DELETE CASCADE
) STRICT;

CREATE TABLE proposals (
  proposal_id          TEXT PRIMARY KEY,
  team_id              TEXT NOT NULL,
  target               TEXT NOT NULL,
  profile_ref          TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('open', 'approved', 'rejected')),
  content              TEXT NOT NULL,
  summary              TEXT,
  rationale            TEXT,
  -- The shelf version the changeset was checked against at submission (for review diffs).
  base_profile_version TEXT,
  created_by_alias     TEXT NOT NULL,
  created_at           TEXT NOT NULL,
  decided_by_alias     TEXT,
  decided_at           TEXT,
  decision_reason      TEXT,
  minted               TEXT,
  FOREIGN KEY (team_id, profile_ref) REFERENCES shelf_profiles (team_id, profile_ref) ON DELETE CASCADE
) STRICT;

CREATE INDEX proposals_team ON proposals (team_id, created_at);
