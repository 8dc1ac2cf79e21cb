-- Signing keys held by custody (server/custody/). Seeds are stored only wrapped (AES-256-GCM
-- under a key derived from the custody master secret, key_id as AAD); destroying a key wipes
-- wrapped_seed and keeps the row so the key_id and did_key stay explainable in history.
CREATE TABLE custody_keys (
  key_id       TEXT PRIMARY KEY,
  purpose      TEXT NOT NULL CHECK (purpose IN ('identity', 'namespace', 'team')),
  did_key      TEXT NOT NULL,
  wrapped_seed BLOB,
  backend      TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  destroyed_at TEXT,
  CHECK ((destroyed_at IS NULL) = (wrapped_seed IS NOT NULL))
) STRICT;

-- A public key is held at most once while alive, so an import finds the existing key.
CREATE UNIQUE INDEX custody_keys_live_did_key ON custody_keys (did_key) WHERE destroyed_at IS NULL;
