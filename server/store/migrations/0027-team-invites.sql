-- One-time join codes (ours): the owner invites an agent to a team under an alias; the agent
-- presents the code with its own did:key, signed with that key, and receives its certificate. The
-- key never leaves the agent; the code is stored only as its SHA-256 and works once, until it expires.
CREATE TABLE team_invites (
  invite_id      TEXT PRIMARY KEY,
  team_id        TEXT NOT NULL REFERENCES teams(team_id),
  code_sha256    TEXT NOT NULL UNIQUE,
  alias          TEXT NOT NULL,
  lifetime       TEXT NOT NULL CHECK (lifetime IN ('persistent', 'ephemeral')),
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL,
  used_at        TEXT,
  certificate_id TEXT REFERENCES team_certificates(certificate_id)
) STRICT;
