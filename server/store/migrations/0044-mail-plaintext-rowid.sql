-- What the node opened of an encrypted mail for an identity whose keys it holds (0039), kept in a
-- rowid table. As a WITHOUT ROWID table each row (subject, body and the sender's plaintext
-- signature and signed payload, about 1 KB) was over what one of its pages holds of a row, so
-- every row took an overflow page of its own and a sealed send wrote, encrypted and synced two
-- such pages more than it needed; in a rowid table rows of this size share a page, and the unique
-- index on (message_id, agent_id) holds only the key. Owned by
-- server/surfaces/core/mail/store/messages.ts.
CREATE TABLE mail_plaintext_rows (
  message_id     TEXT NOT NULL,
  agent_id       TEXT NOT NULL REFERENCES agents (agent_id) ON DELETE CASCADE,
  subject        TEXT NOT NULL,
  body           TEXT NOT NULL,
  signature      TEXT NOT NULL DEFAULT '',
  signed_payload TEXT NOT NULL DEFAULT '',
  UNIQUE (message_id, agent_id)
) STRICT;
INSERT INTO mail_plaintext_rows (message_id, agent_id, subject, body, signature, signed_payload)
  SELECT message_id, agent_id, subject, body, signature, signed_payload FROM mail_plaintext;

-- The search view reads the table by name: dropped with it and made again as 0039 made it.
DROP VIEW search_mail_rows;
DROP TABLE mail_plaintext;
ALTER TABLE mail_plaintext_rows RENAME TO mail_plaintext;
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
