-- Linked devices (docs/design/devices-and-recovery.md, "Linked devices"): the person's other
-- nodes that hold the same identities. Each device is known by its own keys, which it made itself
-- and which never leave it: an Ed25519 key that signs its requests to the others (as a did:key)
-- and an X25519 key that the identities' keys are sealed to when it joins. This device is the row
-- whose signing key is custody's device key. A revoked device keeps its row (the list shows when
-- it was revoked) and every request it signs is refused from then on.
-- Owned by server/devices/device-store.ts.
CREATE TABLE devices (
  device_id     TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  sign_key      TEXT NOT NULL UNIQUE,
  box_key       BLOB NOT NULL CHECK (length(box_key) = 32),
  -- Where the device answers, when it said (an always-on node); a laptop behind no listener has none.
  url           TEXT,
  linked_at     TEXT NOT NULL,
  last_seen_at  TEXT,
  revoked_at    TEXT
) STRICT;

-- One-time codes that let a new device join, valid for minutes, used once. The code itself is
-- not kept: the key derived from it is (both sides prove they know the code with MACs under that
-- key, so the code never travels), named by its SHA-256. This device's own: never copied to
-- another. Owned by server/devices/link-code-store.ts.
CREATE TABLE device_link_codes (
  code_id      TEXT PRIMARY KEY,
  link_key     BLOB NOT NULL CHECK (length(link_key) = 32),
  created_at   TEXT NOT NULL,
  expires_at   TEXT NOT NULL,
  used_at      TEXT,
  device_id    TEXT REFERENCES devices(device_id)
) STRICT;
