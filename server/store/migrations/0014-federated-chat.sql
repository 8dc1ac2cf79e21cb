-- Chat across nodes (DESIGN §8): a participant or a sender may be an identity on another node,
-- named in agent-id columns as `remote:<domain>/<name>` (it has no row in agents, so those columns
-- lose their foreign key), and the federation outbox carries chat messages as well as mail.

CREATE TABLE chat_participants_v2 (
  session_id TEXT NOT NULL REFERENCES chat_sessions(session_id),
  -- A local agent_id, or `remote:<address>` for an identity on another node.
  agent_id TEXT NOT NULL,
  alias TEXT NOT NULL,
  address TEXT,
  did TEXT NOT NULL,
  last_read_id INTEGER NOT NULL DEFAULT 0,
  last_read_at TEXT,
  joined_at TEXT NOT NULL,
  PRIMARY KEY (session_id, agent_id)
);
INSERT INTO chat_participants_v2 (rowid, session_id, agent_id, alias, address, did, last_read_id, last_read_at, joined_at)
SELECT rowid, session_id, agent_id, alias, address, did, last_read_id, last_read_at, joined_at FROM chat_participants;
DROP TABLE chat_participants;
ALTER TABLE chat_participants_v2 RENAME TO chat_participants;
CREATE INDEX chat_participants_agent ON chat_participants(agent_id);

CREATE TABLE chat_messages_v2 (
  id INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL REFERENCES chat_sessions(session_id),
  -- A local agent_id, or `remote:<address>` for a message from another node.
  from_agent_id TEXT NOT NULL,
  from_alias TEXT NOT NULL,
  from_address TEXT,
  from_did TEXT NOT NULL,
  from_stable_id TEXT,
  to_text TEXT NOT NULL,
  to_did TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL,
  reply_to TEXT,
  sender_leaving INTEGER NOT NULL DEFAULT 0,
  hang_on INTEGER NOT NULL DEFAULT 0,
  wait_seconds INTEGER,
  signature TEXT NOT NULL,
  signed_payload TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  created_at TEXT NOT NULL
);
INSERT INTO chat_messages_v2 SELECT * FROM chat_messages;
DROP TABLE chat_messages;
ALTER TABLE chat_messages_v2 RENAME TO chat_messages;
CREATE INDEX chat_messages_session ON chat_messages(session_id, id);
CREATE INDEX chat_messages_session_created ON chat_messages(session_id, created_at);

CREATE TABLE federation_outbox_v2 (
  id INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('mail', 'chat')),
  from_agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  to_address TEXT NOT NULL,
  to_domain TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'delivered', 'bounced')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  last_error TEXT,
  delivered_to TEXT,
  created_at TEXT NOT NULL,
  settled_at TEXT
);
INSERT INTO federation_outbox_v2 SELECT * FROM federation_outbox;
DROP TABLE federation_outbox;
ALTER TABLE federation_outbox_v2 RENAME TO federation_outbox;
CREATE INDEX federation_outbox_due ON federation_outbox(next_attempt_at) WHERE status = 'queued';
CREATE INDEX federation_outbox_sender ON federation_outbox(from_agent_id, id DESC);
