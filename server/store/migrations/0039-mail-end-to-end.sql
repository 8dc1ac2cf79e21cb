-- End-to-end encrypted mail (upstream's E2EE v2; docs/adr/0008-end-to-end-mail.md).
--
-- A row's content_mode says what it holds: `legacy_plaintext_v1` (subject and body as sent), or
-- `encrypted_v2`: the signed envelope in encrypted_envelope (normalised JSON), and subject and body
-- empty. The node keeps no plaintext of an encrypted mail in this table, whoever it is for.
ALTER TABLE messages ADD COLUMN content_mode TEXT NOT NULL DEFAULT 'legacy_plaintext_v1'
  CHECK (content_mode IN ('legacy_plaintext_v1', 'encrypted_v2'));
ALTER TABLE messages ADD COLUMN encrypted_envelope TEXT;

-- The node is the local client of the identities whose keys it holds: what it opened for one of
-- them (the recipient's delivery wrap, or the sender's own copy) is kept here, per identity, so
-- that identity's reads and its own search need no decryption; no one else's reads join it.
-- An identity whose keys its client holds never gets a row. When the node sealed the mail itself
-- it also signed what it sealed as a plaintext message (signature, signed_payload), so clients
-- reading through the node verify the sender's word as they verify any mail; '' when it did not
-- (an envelope a client made). Owned by server/surfaces/core/mail/store/messages.ts.
CREATE TABLE mail_plaintext (
  message_id     TEXT NOT NULL,
  agent_id       TEXT NOT NULL REFERENCES agents (agent_id) ON DELETE CASCADE,
  subject        TEXT NOT NULL,
  body           TEXT NOT NULL,
  signature      TEXT NOT NULL DEFAULT '',
  signed_payload TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (message_id, agent_id)
) STRICT, WITHOUT ROWID;

-- Search indexes what a mail says for those who may read it. Plaintext mail: its recipient and its
-- local sender. An encrypted mail: the text the node opened, for the identities it opened it for
-- (each holds the same words, since every wrap opens the same content); when it opened it for no
-- one (both parties hold their own keys), the parties find it by its people alone.
DROP VIEW search_mail_rows;
CREATE VIEW search_mail_rows AS
SELECT m.id,
       CASE
         WHEN m.content_mode = 'encrypted_v2' AND EXISTS (SELECT 1 FROM mail_plaintext p WHERE p.message_id = m.message_id)
           THEN (SELECT group_concat('a' || hex(p.agent_id), ' ') FROM mail_plaintext p WHERE p.message_id = m.message_id)
         ELSE 'a' || hex(m.to_agent_id) || CASE WHEN m.from_agent_id IS NULL THEN '' ELSE ' a' || hex(m.from_agent_id) END
       END AS scope,
       coalesce((SELECT p.subject FROM mail_plaintext p WHERE p.message_id = m.message_id LIMIT 1), m.subject) AS subject,
       coalesce((SELECT p.body FROM mail_plaintext p WHERE p.message_id = m.message_id LIMIT 1), m.body) AS body,
       m.from_alias || ' ' || coalesce(m.from_address, '') || ' ' || m.to_alias || ' ' || coalesce(m.to_address, '') AS people
FROM messages m;
