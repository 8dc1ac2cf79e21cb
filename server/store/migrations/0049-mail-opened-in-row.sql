-- What the node opened of an encrypted mail (0045's mail_plaintext) moves into the mail's own row.
--
-- A sealed mail wrote two b-trees: its row in `messages` (the envelope, which spills into an
-- overflow page of its own) and its opened text in `mail_plaintext`, whose right-edge page every
-- sealed send wrote again. In the message's row, the opened text goes into the same overflow
-- chain the envelope already starts, and a send writes one page less. The text stays apart from
-- the row's own `subject` and `body` (empty for encrypted mail, as every reader of the stored row
-- expects), in columns of their own that only the reads for its own side take
-- (server/surfaces/core/mail/store/messages.ts owns them).
ALTER TABLE messages ADD COLUMN sender_reads INTEGER NOT NULL DEFAULT 0 CHECK (sender_reads IN (0, 1));
ALTER TABLE messages ADD COLUMN recipient_reads INTEGER NOT NULL DEFAULT 0 CHECK (recipient_reads IN (0, 1));
ALTER TABLE messages ADD COLUMN opened_subject TEXT;
ALTER TABLE messages ADD COLUMN opened_body TEXT;
ALTER TABLE messages ADD COLUMN opened_signature TEXT;
ALTER TABLE messages ADD COLUMN opened_signed_payload TEXT;

UPDATE messages
   SET sender_reads = p.sender_reads,
       recipient_reads = p.recipient_reads,
       opened_subject = p.subject,
       opened_body = p.body,
       opened_signature = p.signature,
       opened_signed_payload = p.signed_payload
  FROM mail_plaintext p
 WHERE p.message_rowid = messages.id;

-- The search view read the table: made again over the columns, each party in the scope when the
-- node reads the mail for it, with the opened text only then.
DROP VIEW search_mail_rows;
DROP TABLE mail_plaintext;
CREATE VIEW search_mail_rows AS
SELECT m.id,
       CASE
         WHEN m.content_mode = 'encrypted_v2' AND (m.sender_reads = 1 OR m.recipient_reads = 1)
           THEN ltrim(CASE WHEN m.recipient_reads = 1 THEN 'a' || hex(m.to_agent_id) ELSE '' END ||
                      CASE WHEN m.sender_reads = 1 AND m.from_agent_id IS NOT NULL THEN ' a' || hex(m.from_agent_id) ELSE '' END)
         ELSE 'a' || hex(m.to_agent_id) || CASE WHEN m.from_agent_id IS NULL THEN '' ELSE ' a' || hex(m.from_agent_id) END
       END AS scope,
       CASE WHEN m.sender_reads = 1 OR m.recipient_reads = 1 THEN m.opened_subject ELSE m.subject END AS subject,
       CASE WHEN m.sender_reads = 1 OR m.recipient_reads = 1 THEN m.opened_body ELSE m.body END AS body,
       m.from_alias || ' ' || coalesce(m.from_address, '') || ' ' || m.to_alias || ' ' || coalesce(m.to_address, '') AS people
FROM messages m;
