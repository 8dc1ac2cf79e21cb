-- Secrets custody keeps that are neither a signing seed nor an encryption key: each a random
-- 32 bytes for one purpose, wrapped under the custody secret (with its name as associated data, so
-- a wrapped secret cannot be moved under another name). The first is the key that seals encrypted
-- backups: random rather than derived from the custody secret, because a node restored from a
-- recovery kit gets a new custody secret and must still read, and go on writing, the same backups.
-- Owned by server/custody/secret-store.ts; only custody.ts uses it.
CREATE TABLE custody_secrets (
  name       TEXT PRIMARY KEY,
  wrapped    BLOB NOT NULL,
  backend    TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
