-- X25519 encryption keys held by custody (server/custody/), the end-to-end encryption keys of
-- identities. Like signing seeds, a private key is stored only wrapped (AES-256-GCM under a key
-- derived from the custody master secret, key_id as AAD). A rotated key is archived, not
-- destroyed: messages sealed to it must stay readable, so archived keys still agree; only
-- destroying wipes wrapped_private, keeping the row so the key id stays explainable.
CREATE TABLE custody_encryption_keys (
  key_id          TEXT PRIMARY KEY,
  public_key      BLOB NOT NULL CHECK (length(public_key) = 32),
  wrapped_private BLOB,
  backend         TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  archived_at     TEXT,
  destroyed_at    TEXT,
  CHECK ((destroyed_at IS NULL) = (wrapped_private IS NOT NULL))
) STRICT;
