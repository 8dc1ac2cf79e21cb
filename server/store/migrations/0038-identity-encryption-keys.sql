-- An identity's published assertion (aweb-e2ee-key-v1) for each of its encryption keys: the
-- current one is served; the archived ones keep the key id → custody key map for old messages.
-- key_id is the custody_encryption_keys row of a custodial identity's key, and '' for the key a
-- self-custodial client published (its private key is with the client). A migration cannot sign,
-- so identities older than this table get their first key when the node starts.
-- Owned by server/surfaces/core/identities/store/encryption-keys.ts.
CREATE TABLE identity_encryption_keys (
  agent_id          TEXT NOT NULL REFERENCES agents (agent_id) ON DELETE CASCADE,
  encryption_key_id TEXT NOT NULL,
  key_id            TEXT NOT NULL,
  assertion         TEXT NOT NULL,
  expires_at        TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  archived_at       TEXT,
  PRIMARY KEY (agent_id, encryption_key_id)
) STRICT;

-- At most one current key per identity.
CREATE UNIQUE INDEX identity_encryption_keys_current ON identity_encryption_keys (agent_id) WHERE archived_at IS NULL;
