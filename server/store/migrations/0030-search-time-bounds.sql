-- Search: a time filter (`after`) becomes a lower bound on the row ids the index walks,
-- found through these indexes, so a rare filter on a common word no longer walks every row holding
-- the word (server/search/store.ts).
CREATE INDEX messages_created ON messages(created_at);
CREATE INDEX chat_messages_created ON chat_messages(created_at);
