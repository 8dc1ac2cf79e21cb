-- Chat membership that the UI can show after a reload, and a session list that pages
-- (server/surfaces/core/chat/). Leaving stays what upstream says it is, a message with
-- sender_leaving; these columns remember its consequence so reads need not search the messages.

-- When the participant's latest message said it was leaving; null while it takes part. A later
-- message of its own (a rejoin, or any send: upstream semantics) clears it.
ALTER TABLE chat_participants ADD COLUMN left_at TEXT;
-- The session's newest chat_messages.id, copied to each participant's row, so one identity's
-- sessions come newest first from an index, a page at a time, however many it has.
ALTER TABLE chat_participants ADD COLUMN last_message_id INTEGER NOT NULL DEFAULT 0;
-- Ours: the message came back to a chat its sender had left (the UI shows it as a line, not a
-- bubble). Not part of the signed envelope; the body says it in words for every other reader.
ALTER TABLE chat_messages ADD COLUMN sender_rejoining INTEGER NOT NULL DEFAULT 0;

UPDATE chat_participants
   SET last_message_id = COALESCE((SELECT MAX(m.id) FROM chat_messages m WHERE m.session_id = chat_participants.session_id), 0);

UPDATE chat_participants
   SET left_at = (SELECT CASE WHEN m.sender_leaving = 1 THEN m.created_at END
                    FROM chat_messages m
                   WHERE m.session_id = chat_participants.session_id AND m.from_agent_id = chat_participants.agent_id
                   ORDER BY m.id DESC LIMIT 1);

-- Replaces chat_participants_agent (agent_id alone): the same prefix, now in list order.
DROP INDEX chat_participants_agent;
CREATE INDEX chat_participants_recent ON chat_participants(agent_id, last_message_id);
