-- Search: mail and chat are indexed in batches instead of in each write's commit.
--
-- FTS5 writes a new segment at every commit that touched an index: with a trigger indexing each
-- mail, every send paid about nine more pages written and a fifth of its time. Now the triggers
-- only note the row in `search_pending`, in the write's own transaction (so a crash can never
-- lose track of it), and server/search/indexer.ts moves what is noted into the indexes a batch
-- at a time, a fraction of a second later. Until then a search still finds the row: it is also
-- matched in a small in-memory index of exactly the noted rows (server/search/pending-store.ts),
-- with the same tokenizer, so an acknowledged write is always findable.
CREATE TABLE search_pending (
  kind TEXT NOT NULL CHECK (kind IN ('mail', 'chat')),
  id   INTEGER NOT NULL,
  PRIMARY KEY (kind, id)
) STRICT, WITHOUT ROWID;

DROP TRIGGER search_mail_insert;
CREATE TRIGGER search_mail_insert AFTER INSERT ON messages BEGIN
  INSERT INTO search_pending (kind, id) VALUES ('mail', new.id);
END;
DROP TRIGGER search_mail_delete;
CREATE TRIGGER search_mail_delete AFTER DELETE ON messages BEGIN
  DELETE FROM search_mail WHERE rowid = old.id;
  DELETE FROM search_pending WHERE kind = 'mail' AND id = old.id;
END;

DROP TRIGGER search_chat_insert;
CREATE TRIGGER search_chat_insert AFTER INSERT ON chat_messages BEGIN
  INSERT INTO search_pending (kind, id) VALUES ('chat', new.id);
END;
DROP TRIGGER search_chat_delete;
CREATE TRIGGER search_chat_delete AFTER DELETE ON chat_messages BEGIN
  DELETE FROM search_chat WHERE rowid = old.id;
  DELETE FROM search_pending WHERE kind = 'chat' AND id = old.id;
END;
