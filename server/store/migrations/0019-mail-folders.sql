-- Mail folders (ours): a recipient archives or deletes its copy of a message, and a sender
-- lists everything it sent. A row of `messages` is both the recipient's copy and the sender's
-- (one row per recipient), so archiving and deleting are marks on the recipient's side only: the
-- sender's Sent keeps the row, and a deleted message_id stays taken (a federation retry of it is
-- still recognised as a duplicate instead of arriving again).

-- When the recipient archived it; null while it is in the inbox.
ALTER TABLE messages ADD COLUMN archived_at TEXT;
-- When the recipient deleted it from its inbox; the row stays for the sender.
ALTER TABLE messages ADD COLUMN deleted_at TEXT;

-- The Archive folder, a page at a time, without walking the whole inbox to find it. Partial: a
-- new message is never archived, so sends do not pay for this index.
CREATE INDEX messages_archive ON messages(to_agent_id, id) WHERE archived_at IS NOT NULL AND deleted_at IS NULL;

-- Sent, newest first: local sends (from this table) and sends to other nodes (the outbox) are
-- merged by the second they were sent, then by row id. Both key on the same expression (the
-- timestamp cut to whole seconds: mail rows carry the signed second, outbox rows milliseconds),
-- so each side is read in order from its index, a page at a time.
CREATE INDEX messages_sent ON messages(from_agent_id, substr(created_at, 1, 19), id) WHERE origin = 'local';
CREATE INDEX federation_outbox_sent_mail ON federation_outbox(from_agent_id, substr(created_at, 1, 19), id) WHERE kind = 'mail';
