-- Chat participants and senders on another node get a column of their own. Since 0014
-- they were named `remote:<address>` in the agent-id columns, so those columns lost their foreign
-- key and every query meaning "an identity of this node" had to filter on a string prefix. Now the
-- agent id is null for them, the new column holds their address, and exactly one of the two is
-- set. chat_sessions.participant_key keeps spelling them `remote:<address>`: it only tells sessions
-- apart (two-party sessions are reused through it) and is never read back.

CREATE TABLE chat_participants_v3 (
  session_id TEXT NOT NULL REFERENCES chat_sessions(session_id),
  -- An identity of this node; null for one on another node.
  agent_id TEXT REFERENCES agents(agent_id),
  -- The address (`<domain>/<name>`) of an identity on another node; null for one of this node.
  remote_address TEXT,
  alias TEXT NOT NULL,
  address TEXT,
  did TEXT NOT NULL,
  last_read_id INTEGER NOT NULL DEFAULT 0,
  last_read_at TEXT,
  joined_at TEXT NOT NULL,
  left_at TEXT,
  last_message_id INTEGER NOT NULL DEFAULT 0,
  CHECK ((agent_id IS NULL) <> (remote_address IS NULL)),
  UNIQUE (session_id, agent_id),
  UNIQUE (session_id, remote_address)
);
-- rowid is kept: a session lists its participants in the order they joined.
INSERT INTO chat_participants_v3 (rowid, session_id, agent_id, remote_address, alias, address, did, last_read_id, last_read_at, joined_at, left_at, last_message_id)
SELECT rowid, session_id,
       CASE WHEN substr(agent_id, 1, 7) = 'remote:' THEN NULL ELSE agent_id END,
       CASE WHEN substr(agent_id, 1, 7) = 'remote:' THEN substr(agent_id, 8) END,
       alias, address, did, last_read_id, last_read_at, joined_at, left_at, last_message_id
FROM chat_participants;
DROP TABLE chat_participants;
ALTER TABLE chat_participants_v3 RENAME TO chat_participants;
CREATE INDEX chat_participants_recent ON chat_participants(agent_id, last_message_id);

CREATE TABLE chat_messages_v3 (
  id INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL REFERENCES chat_sessions(session_id),
  -- The sending identity of this node; null for a message from another node.
  from_agent_id TEXT REFERENCES agents(agent_id),
  -- The sender's address when it is on another node; null for a sender of this node.
  from_remote_address TEXT,
  from_alias TEXT NOT NULL,
  from_address TEXT,
  from_did TEXT NOT NULL,
  from_stable_id TEXT,
  to_text TEXT NOT NULL,
  to_did TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL,
  reply_to TEXT,
  sender_leaving INTEGER NOT NULL DEFAULT 0,
  sender_rejoining INTEGER NOT NULL DEFAULT 0,
  hang_on INTEGER NOT NULL DEFAULT 0,
  wait_seconds INTEGER,
  signature TEXT NOT NULL,
  signed_payload TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  created_at TEXT NOT NULL,
  from_namespace_trust TEXT CHECK (from_namespace_trust IN ('verified', 'unverified')),
  CHECK ((from_agent_id IS NULL) <> (from_remote_address IS NULL))
);
INSERT INTO chat_messages_v3 (id, message_id, session_id, from_agent_id, from_remote_address, from_alias, from_address, from_did, from_stable_id,
  to_text, to_did, body, reply_to, sender_leaving, sender_rejoining, hang_on, wait_seconds, signature, signed_payload, timestamp, created_at,
  from_namespace_trust)
SELECT id, message_id, session_id,
       CASE WHEN substr(from_agent_id, 1, 7) = 'remote:' THEN NULL ELSE from_agent_id END,
       CASE WHEN substr(from_agent_id, 1, 7) = 'remote:' THEN substr(from_agent_id, 8) END,
       from_alias, from_address, from_did, from_stable_id, to_text, to_did, body, reply_to, sender_leaving, sender_rejoining, hang_on,
       wait_seconds, signature, signed_payload, timestamp, created_at, from_namespace_trust
FROM chat_messages;
DROP TABLE chat_messages;
ALTER TABLE chat_messages_v3 RENAME TO chat_messages;
CREATE INDEX chat_messages_session ON chat_messages(session_id, id);
CREATE INDEX chat_messages_session_created ON chat_messages(session_id, created_at);
