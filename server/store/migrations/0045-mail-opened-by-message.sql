-- What the node opened of an encrypted mail (0039, 0044), kept once per message rather than once
-- per reader, keyed by the message's own row id.
--
-- A mail row has two parties, its sender and its recipient, and both read the same text: every
-- wrap of an envelope opens the same content, and when the node sealed the mail it had that text
-- in hand. The node reads a mail for both (it sealed it between two identities whose keys it
-- holds), for the sender only (sealed to a recipient that holds its own keys), or for the
-- recipient only (a client's envelope, or one from another node). Two rows of the same text, each
-- also in a unique index on a random message id, made a sealed send write about four pages more
-- than a plaintext one: a table page, and an index leaf anywhere in the index (split now and
-- then). One row per message, under the message's row id, goes at the table's right edge with no
-- index of its own; a flag per party says whom it is read for, and it goes with its message.
-- Owned by server/surfaces/core/mail/store/messages.ts.
CREATE TABLE mail_opened (
  message_rowid   INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
  sender_reads    INTEGER NOT NULL CHECK (sender_reads IN (0, 1)),
  recipient_reads INTEGER NOT NULL CHECK (recipient_reads IN (0, 1)),
  subject         TEXT NOT NULL,
  body            TEXT NOT NULL,
  signature       TEXT NOT NULL DEFAULT '',
  signed_payload  TEXT NOT NULL DEFAULT ''
) STRICT;

-- One row per message that still exists and has a row for one of its parties; the text is the
-- recipient's when both have one (it is the same words either way).
INSERT INTO mail_opened (message_rowid, sender_reads, recipient_reads, subject, body, signature, signed_payload)
SELECT m.id,
       s.message_id IS NOT NULL,
       r.message_id IS NOT NULL,
       coalesce(r.subject, s.subject),
       coalesce(r.body, s.body),
       coalesce(r.signature, s.signature),
       coalesce(r.signed_payload, s.signed_payload)
FROM messages m
LEFT JOIN mail_plaintext r ON r.message_id = m.message_id AND r.agent_id = m.to_agent_id
LEFT JOIN mail_plaintext s ON s.message_id = m.message_id AND s.agent_id = m.from_agent_id
WHERE m.message_id IN (SELECT message_id FROM mail_plaintext)
  AND (r.message_id IS NOT NULL OR s.message_id IS NOT NULL)
ORDER BY m.id;

-- The search view reads the table by name: dropped with it and made again, each party in the
-- scope when the node reads the mail for it.
DROP VIEW search_mail_rows;
DROP TABLE mail_plaintext;
ALTER TABLE mail_opened RENAME TO mail_plaintext;
CREATE VIEW search_mail_rows AS
SELECT m.id,
       CASE
         WHEN m.content_mode = 'encrypted_v2' AND p.message_rowid IS NOT NULL
           THEN ltrim(CASE WHEN p.recipient_reads = 1 THEN 'a' || hex(m.to_agent_id) ELSE '' END ||
                      CASE WHEN p.sender_reads = 1 AND m.from_agent_id IS NOT NULL THEN ' a' || hex(m.from_agent_id) ELSE '' END)
         ELSE 'a' || hex(m.to_agent_id) || CASE WHEN m.from_agent_id IS NULL THEN '' ELSE ' a' || hex(m.from_agent_id) END
       END AS scope,
       coalesce(p.subject, m.subject) AS subject,
       coalesce(p.body, m.body) AS body,
       m.from_alias || ' ' || coalesce(m.from_address, '') || ' ' || m.to_alias || ' ' || coalesce(m.to_address, '') AS people
FROM messages m LEFT JOIN mail_plaintext p ON p.message_rowid = m.id;
