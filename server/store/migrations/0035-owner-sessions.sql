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

-- The day-long identity keys a window mints while signed in with a session (the UI acts for an
-- identity with one): signing the session out deactivates them too, so a revoked window keeps
-- no way in.
CREATE TABLE owner_session_keys (
  api_key_id  TEXT PRIMARY KEY REFERENCES api_keys(api_key_id),
  session_id  TEXT NOT NULL REFERENCES owner_sessions(session_id)
) STRICT;
CREATE INDEX owner_session_keys_by_session ON owner_session_keys (session_id);
