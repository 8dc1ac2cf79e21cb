-- End-to-end encrypted chat (upstream's E2EE v2; docs/adr/0009-end-to-end-chat.md), as mail's
-- (migration 0039).
--
-- A row's content_mode says what it holds: `legacy_plaintext_v1` (the body as sent), or
-- `encrypted_v2`: the signed envelope in encrypted_envelope (normalised JSON), the body empty,
-- `signature` the envelope's and `signed_payload` empty. The node keeps no plaintext of an
-- encrypted chat message in this table, whoever it is for.
ALTER TABLE chat_messages ADD COLUMN content_mode TEXT NOT NULL DEFAULT 'legacy_plaintext_v1'
  CHECK (content_mode IN ('legacy_plaintext_v1', 'encrypted_v2'));
ALTER TABLE chat_messages ADD COLUMN encrypted_envelope TEXT;

-- What the node opened of an encrypted chat message for one participant whose keys it holds (the
-- sender's copy, or a recipient's delivery wrap, each opened on its own), per message and identity,
-- joined only into that identity's own reads. When the node sealed the message itself it also
-- signed what it sealed as a plaintext message (signature, signed_payload), so clients reading
-- through the node verify the sender's word as they verify any chat message; '' when it did not
-- (an envelope a client made). A rowid table with a unique index, not WITHOUT ROWID: rows of a
-- kilobyte or more would each take an overflow page in a clustered index (docs/benchmarks.md).
-- Owned by server/surfaces/core/chat/store/messages.ts.
CREATE TABLE chat_plaintext (
  id             INTEGER PRIMARY KEY,
  message_id     TEXT NOT NULL REFERENCES chat_messages (message_id) ON DELETE CASCADE,
  agent_id       TEXT NOT NULL REFERENCES agents (agent_id) ON DELETE CASCADE,
  body           TEXT NOT NULL,
  signature      TEXT NOT NULL DEFAULT '',
  signed_payload TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE UNIQUE INDEX chat_plaintext_message_agent ON chat_plaintext (message_id, agent_id);
CREATE INDEX chat_plaintext_agent ON chat_plaintext (agent_id);

-- Search indexes what a chat message says for those who may read it. Plaintext: everyone in its
-- session. An encrypted message: the text the node opened, for the identities it opened it for
-- (`a<hex agent_id>`, as mail's scope; each holds the same words as far as the node can tell);
-- when it opened it for no one (every participant holds its own keys), the session's
-- participants find it by its people alone.
DROP VIEW search_chat_rows;
CREATE VIEW search_chat_rows AS
SELECT c.id,
       CASE
         WHEN c.content_mode = 'encrypted_v2' AND EXISTS (SELECT 1 FROM chat_plaintext p WHERE p.message_id = c.message_id)
           THEN (SELECT group_concat('a' || hex(p.agent_id), ' ') FROM chat_plaintext p WHERE p.message_id = c.message_id)
         ELSE 's' || hex(c.session_id)
       END AS scope,
       coalesce((SELECT p.body FROM chat_plaintext p WHERE p.message_id = c.message_id ORDER BY p.id LIMIT 1), c.body) AS body,
       c.from_alias || ' ' || coalesce(c.from_address, '') || ' ' || coalesce(c.from_remote_address, '') || ' ' || c.to_text AS people
FROM chat_messages c;
