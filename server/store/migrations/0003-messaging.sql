-- Mail, contacts, chat and control signals (spec §4.4, §4.5). Rows carry an integer id so that
-- "newer than what this stream has sent" is one indexed comparison.

CREATE TABLE messages (
  id INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE,
  from_agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  from_alias TEXT NOT NULL,
  from_address TEXT,
  from_did TEXT NOT NULL,
  from_stable_id TEXT,
  to_agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  -- The recipient as the sender addressed it (alias, address or did).
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
  read_at TEXT
);
CREATE INDEX messages_inbox ON messages(to_agent_id, id DESC);
CREATE INDEX messages_unread ON messages(to_agent_id, id) WHERE read_at IS NULL;

CREATE TABLE contacts (
  contact_id TEXT PRIMARY KEY,
  owner_agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  contact_address TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  UNIQUE (owner_agent_id, contact_address)
);

CREATE TABLE chat_sessions (
  session_id TEXT PRIMARY KEY,
  created_by TEXT NOT NULL REFERENCES agents(agent_id),
  -- Sorted participant agent ids joined by ','; two-party sessions are reused through it.
  participant_key TEXT NOT NULL,
  participant_count INTEGER NOT NULL CHECK (participant_count >= 2),
  -- The open wait window of a send-and-wait: who waits, from when, for how long; each hang_on
  -- message while it is open extends it by 300 s.
  wait_seconds INTEGER,
  wait_started_at TEXT,
  wait_started_by TEXT REFERENCES agents(agent_id),
  hang_on_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX chat_sessions_participants ON chat_sessions(participant_key);
-- At most one two-party session per pair: create-or-send reuses it.
CREATE UNIQUE INDEX chat_sessions_pair ON chat_sessions(participant_key) WHERE participant_count = 2;

CREATE TABLE chat_participants (
  session_id TEXT NOT NULL REFERENCES chat_sessions(session_id),
  agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  -- Who the participant was when it joined (responses render the identity as it is now).
  alias TEXT NOT NULL,
  address TEXT,
  did TEXT NOT NULL,
  -- Read watermark: the chat_messages.id up to which this participant has read; only grows.
  last_read_id INTEGER NOT NULL DEFAULT 0,
  last_read_at TEXT,
  joined_at TEXT NOT NULL,
  PRIMARY KEY (session_id, agent_id)
);
CREATE INDEX chat_participants_agent ON chat_participants(agent_id);

CREATE TABLE chat_messages (
  id INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL REFERENCES chat_sessions(session_id),
  from_agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  from_alias TEXT NOT NULL,
  from_address TEXT,
  from_did TEXT NOT NULL,
  from_stable_id TEXT,
  -- The signed `to`: the target as addressed, or the sorted comma-joined targets.
  to_text TEXT NOT NULL,
  to_did TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL,
  reply_to TEXT,
  sender_leaving INTEGER NOT NULL DEFAULT 0,
  hang_on INTEGER NOT NULL DEFAULT 0,
  wait_seconds INTEGER,
  signature TEXT NOT NULL,
  signed_payload TEXT NOT NULL,
  -- The signed timestamp (second precision).
  timestamp TEXT NOT NULL,
  -- When the node stored it (millisecond precision): ordering and the stream's `after`.
  created_at TEXT NOT NULL
);
CREATE INDEX chat_messages_session ON chat_messages(session_id, id);
CREATE INDEX chat_messages_session_created ON chat_messages(session_id, created_at);

CREATE TABLE control_signals (
  id INTEGER PRIMARY KEY,
  signal_id TEXT NOT NULL UNIQUE,
  target_agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  from_agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  signal TEXT NOT NULL CHECK (signal IN ('pause', 'resume', 'interrupt')),
  created_at TEXT NOT NULL,
  -- Set in the same statement that claims the signal for one live stream: at most once.
  consumed_at TEXT
);
CREATE INDEX control_signals_pending ON control_signals(target_agent_id, id) WHERE consumed_at IS NULL;
