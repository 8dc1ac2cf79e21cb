-- A browser signed in with a one-time link holds a session, not the owner token: the node keeps
-- it across restarts (the owner token changes at every start) and the owner can revoke it. Only
-- the SHA-256 of the secret is stored. A revoked session's row stays until its absolute expiry, so
-- a window still holding it is told it was revoked rather than that it is unknown.
CREATE TABLE owner_sessions (
  session_id     TEXT PRIMARY KEY,
  secret_sha256  TEXT NOT NULL UNIQUE,
  created_at     TEXT NOT NULL,
  last_used_at   TEXT NOT NULL,
  expires_at     TEXT NOT NULL,
  client         TEXT,
  revoked_at     TEXT
) STRICT;
