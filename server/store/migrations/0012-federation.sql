-- Federation between nodes (DESIGN §8): the owner's peer table, the durable outbox of messages to
-- identities on other nodes, and mail that arrives from other nodes (its sender is no local
-- identity, so `from_agent_id` becomes optional) or reports a failed delivery (a bounce).

CREATE TABLE peers (
  -- A namespace domain, lowercase, and the origin of the node that answers for it.
  domain TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE federation_outbox (
  id INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('mail')),
  from_agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  -- The recipient's address and its domain (what the node directory resolves).
  to_address TEXT NOT NULL,
  to_domain TEXT NOT NULL,
  -- The signed message exactly as it is sent (JSON of the wire shape).
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'delivered', 'bounced')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  last_error TEXT,
  -- Where it was delivered (the peer's origin) once it was.
  delivered_to TEXT,
  created_at TEXT NOT NULL,
  settled_at TEXT
);
CREATE INDEX federation_outbox_due ON federation_outbox(next_attempt_at) WHERE status = 'queued';
CREATE INDEX federation_outbox_sender ON federation_outbox(from_agent_id, id DESC);

CREATE TABLE messages_v2 (
  id INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE,
  -- Null for mail from another node and for bounces.
  from_agent_id TEXT REFERENCES agents(agent_id),
  from_alias TEXT NOT NULL,
  from_address TEXT,
  from_did TEXT NOT NULL,
  from_stable_id TEXT,
  to_agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  to_text TEXT NOT NULL,
  to_alias TEXT NOT NULL,
  to_address TEXT,
  to_did TEXT NOT NULL,
  to_stable_id TEXT,
  subject TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL,
  priority TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  signature TEXT NOT NULL,
  signed_payload TEXT NOT NULL,
  created_at TEXT NOT NULL,
  read_at TEXT,
  -- local: sent on this node; remote: arrived from another node (verified on arrival);
  -- bounce: this node reporting that a message to another node was refused.
  origin TEXT NOT NULL DEFAULT 'local' CHECK (origin IN ('local', 'remote', 'bounce')),
  -- The sending node's origin, for remote mail.
  from_node TEXT
);
INSERT INTO messages_v2 (id, message_id, from_agent_id, from_alias, from_address, from_did, from_stable_id, to_agent_id, to_text, to_alias,
  to_address, to_did, to_stable_id, subject, body, priority, signature, signed_payload, created_at, read_at)
SELECT id, message_id, from_agent_id, from_alias, from_address, from_did, from_stable_id, to_agent_id, to_text, to_alias,
  to_address, to_did, to_stable_id, subject, body, priority, signature, signed_payload, created_at, read_at
FROM messages;
DROP TABLE messages;
ALTER TABLE messages_v2 RENAME TO messages;
CREATE INDEX messages_inbox ON messages(to_agent_id, id DESC);
CREATE INDEX messages_unread ON messages(to_agent_id, id) WHERE read_at IS NULL;
