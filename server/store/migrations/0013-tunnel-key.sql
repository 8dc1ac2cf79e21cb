-- The SSH tunnel authenticates with a key custody holds like any other (server/tunnel/): custody
-- keys gain the purpose 'tunnel'. SQLite cannot change a CHECK in place, so the table is rebuilt
-- (nothing references it by foreign key).
CREATE TABLE custody_keys_v2 (
  key_id       TEXT PRIMARY KEY,
  purpose      TEXT NOT NULL CHECK (purpose IN ('identity', 'namespace', 'team', 'tunnel')),
  did_key      TEXT NOT NULL,
  wrapped_seed BLOB,
  backend      TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  destroyed_at TEXT,
  CHECK ((destroyed_at IS NULL) = (wrapped_seed IS NOT NULL))
) STRICT;
INSERT INTO custody_keys_v2 (key_id, purpose, did_key, wrapped_seed, backend, created_at, destroyed_at)
SELECT key_id, purpose, did_key, wrapped_seed, backend, created_at, destroyed_at FROM custody_keys;
DROP TABLE custody_keys;
ALTER TABLE custody_keys_v2 RENAME TO custody_keys;
CREATE UNIQUE INDEX custody_keys_live_did_key ON custody_keys (did_key) WHERE destroyed_at IS NULL;
