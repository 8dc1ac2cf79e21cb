-- Signed writes seen inside the timestamp window (server/auth/replay-cache.ts), so a captured
-- signed write is refused after a restart too: the in-memory cache alone forgot them when the
-- process stopped. Reads stay in memory only (they may repeat). `expires_at` is Unix milliseconds,
-- twice the window after the write was first seen; expired rows are swept at start and then
-- at most once per window.
CREATE TABLE replay_signatures (
  signature_key TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX replay_signatures_expiry ON replay_signatures(expires_at);
