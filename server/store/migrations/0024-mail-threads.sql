-- Wire parity with upstream (docs/adr/0001-upstream-wire-primitives.md): mail threads,
-- client-chosen message ids as idempotency keys, and the lookups the new read fields make.

-- The thread a mail was sent in (upstream E1's `thread_id`: by convention the id of the thread's
-- first message, which itself carries none). Every recipient's copy of a send carries the same.
ALTER TABLE messages ADD COLUMN thread_id TEXT;
CREATE INDEX messages_thread ON messages(thread_id) WHERE thread_id IS NOT NULL;

-- Sends that named their own message_id: what they said (a hash over their content, not their
-- timestamp) and the answer they got, so the same send again gets the same answer and sends
-- nothing. The message tables' own unique message_id is what makes a second send impossible; this
-- row is only the first answer, kept for a week (pruned as new rows arrive).
CREATE TABLE message_sends (
  message_id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents(agent_id),
  -- `mail`, `chat-create` (POST /v1/chat/sessions) or `chat-send` (into a session).
  kind TEXT NOT NULL CHECK (kind IN ('mail', 'chat-create', 'chat-send')),
  content_sha256 TEXT NOT NULL,
  -- The answer as JSON.
  answer TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX message_sends_age ON message_sends(created_at);

-- An address assigned to a bare did:key (the spec's `{name, did_key}` body) is the address of the
-- identity whose current key that is.
CREATE INDEX addresses_did_key ON addresses(did_key) WHERE did_aw IS NULL;

-- Inbox items and chat messages carry the announcement that introduced their signing key.
CREATE INDEX rotation_announcements_new_did ON rotation_announcements(new_did);
CREATE INDEX replacement_announcements_new_did ON replacement_announcements(new_did);
