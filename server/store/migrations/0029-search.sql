-- Full-text search: FTS5 indexes inside the encrypted database, never beside it (an index file
-- beside it would hold the words of every message in the clear).
--
-- Each index is contentless (`content=''`): it holds the words, not a second copy of the text;
-- snippets are cut from the rows themselves (server/search/). `remove_diacritics 2` makes "cafe"
-- find "Café"; `prefix='2 3'` makes short prefixes (`co*`) cheap. The `scope` column holds the
-- tokens a query must match to see a row: `a<hex agent_id>` for a mail's recipient and sender,
-- `s<hex session_id>` for a chat message, `t<hex team_id>` for a team's documents and profiles,
-- `public` for the catalog. Queries never reach `scope` with user text (server/search/query.ts).
--
-- Mail, chat and the library are kept current by triggers, so every write path indexes in its
-- own transaction: an acknowledged write is always findable, and a crash can never leave the
-- index behind the data. One view per index says what an indexed row holds; the triggers and the
-- backfill of older rows (server/search/backfill.ts) both read it. Documents keep their bodies
-- compressed in version chains SQL cannot read, so the documents service indexes each version in
-- the transaction that writes it (server/search/documents-index.ts).

-- ---------------------------------------------------------------------------------- mail
CREATE VIRTUAL TABLE search_mail USING fts5(
  scope, subject, body, people,
  content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
CREATE VIEW search_mail_rows AS
SELECT id,
       'a' || hex(to_agent_id) || CASE WHEN from_agent_id IS NULL THEN '' ELSE ' a' || hex(from_agent_id) END AS scope,
       subject,
       body,
       from_alias || ' ' || coalesce(from_address, '') || ' ' || to_alias || ' ' || coalesce(to_address, '') AS people
FROM messages;
CREATE TRIGGER search_mail_insert AFTER INSERT ON messages BEGIN
  INSERT OR REPLACE INTO search_mail (rowid, scope, subject, body, people)
  SELECT id, scope, subject, body, people FROM search_mail_rows WHERE id = new.id;
END;
CREATE TRIGGER search_mail_delete AFTER DELETE ON messages BEGIN
  DELETE FROM search_mail WHERE rowid = old.id;
END;

-- ---------------------------------------------------------------------------------- chat
CREATE VIRTUAL TABLE search_chat USING fts5(
  scope, body, people,
  content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
CREATE VIEW search_chat_rows AS
SELECT id,
       's' || hex(session_id) AS scope,
       body,
       from_alias || ' ' || coalesce(from_address, '') || ' ' || coalesce(from_remote_address, '') || ' ' || to_text AS people
FROM chat_messages;
CREATE TRIGGER search_chat_insert AFTER INSERT ON chat_messages BEGIN
  INSERT OR REPLACE INTO search_chat (rowid, scope, body, people)
  SELECT id, scope, body, people FROM search_chat_rows WHERE id = new.id;
END;
CREATE TRIGGER search_chat_delete AFTER DELETE ON chat_messages BEGIN
  DELETE FROM search_chat WHERE rowid = old.id;
END;

-- ---------------------------------------------------------------------------------- documents
-- One entry per indexed version; the current one is the document's current_version.
CREATE TABLE search_document_versions (
  entry_id       INTEGER PRIMARY KEY,
  document_id    TEXT NOT NULL,
  version_number INTEGER NOT NULL,
  created_at     TEXT NOT NULL,
  UNIQUE (document_id, version_number)
) STRICT;
CREATE VIRTUAL TABLE search_documents USING fts5(
  scope, title, body,
  content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
CREATE TRIGGER search_documents_delete BEFORE DELETE ON documents BEGIN
  DELETE FROM search_documents WHERE rowid IN (SELECT entry_id FROM search_document_versions WHERE document_id = old.document_id);
  DELETE FROM search_document_versions WHERE document_id = old.document_id;
END;

-- ---------------------------------------------------------------------------------- library
-- Shelf profiles (their latest version) and catalog blueprints (their latest version).
CREATE TABLE search_library_items (
  entry_id INTEGER PRIMARY KEY,
  kind     TEXT NOT NULL CHECK (kind IN ('profile', 'blueprint')),
  -- The team whose shelf holds the profile; '' for a catalog blueprint.
  team_id  TEXT NOT NULL,
  ref      TEXT NOT NULL,
  UNIQUE (kind, team_id, ref)
) STRICT;
CREATE VIRTUAL TABLE search_library USING fts5(
  scope, title, body,
  content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
CREATE VIEW search_profile_rows AS
SELECT i.entry_id AS id,
       't' || hex(v.team_id) AS scope,
       v.profile_ref AS title,
       (SELECT group_concat(json_extract(f.value, '$.path') || char(10) || json_extract(f.value, '$.content_utf8'), char(10)) FROM json_each(v.files) f) AS body,
       v.created_at
FROM search_library_items i
JOIN shelf_versions v ON v.team_id = i.team_id AND v.profile_ref = i.ref
WHERE i.kind = 'profile'
  AND v.seq = (SELECT max(w.seq) FROM shelf_versions w WHERE w.team_id = i.team_id AND w.profile_ref = i.ref);
CREATE VIEW search_blueprint_rows AS
SELECT i.entry_id AS id,
       'public' AS scope,
       v.name || ' ' || v.blueprint_ref AS title,
       coalesce(v.summary, '') || char(10) || coalesce(v.description, '') || char(10) ||
         coalesce((SELECT group_concat(json_extract(f.value, '$.path') || char(10) || json_extract(f.value, '$.content_utf8'), char(10)) FROM json_each(v.files) f), '') AS body,
       v.created_at
FROM search_library_items i
JOIN blueprint_versions v ON v.blueprint_ref = i.ref
WHERE i.kind = 'blueprint'
  AND v.seq = (SELECT max(w.seq) FROM blueprint_versions w WHERE w.blueprint_ref = i.ref);

CREATE TRIGGER search_profile_version AFTER INSERT ON shelf_versions BEGIN
  INSERT INTO search_library_items (kind, team_id, ref) VALUES ('profile', new.team_id, new.profile_ref) ON CONFLICT DO NOTHING;
  INSERT OR REPLACE INTO search_library (rowid, scope, title, body)
  SELECT id, scope, title, body FROM search_profile_rows WHERE id = (SELECT entry_id FROM search_library_items WHERE kind = 'profile' AND team_id = new.team_id AND ref = new.profile_ref);
END;
CREATE TRIGGER search_profile_delete BEFORE DELETE ON shelf_profiles BEGIN
  DELETE FROM search_library WHERE rowid = (SELECT entry_id FROM search_library_items WHERE kind = 'profile' AND team_id = old.team_id AND ref = old.profile_ref);
  DELETE FROM search_library_items WHERE kind = 'profile' AND team_id = old.team_id AND ref = old.profile_ref;
END;
CREATE TRIGGER search_blueprint_version AFTER INSERT ON blueprint_versions BEGIN
  INSERT INTO search_library_items (kind, team_id, ref) VALUES ('blueprint', '', new.blueprint_ref) ON CONFLICT DO NOTHING;
  INSERT OR REPLACE INTO search_library (rowid, scope, title, body)
  SELECT id, scope, title, body FROM search_blueprint_rows WHERE id = (SELECT entry_id FROM search_library_items WHERE kind = 'blueprint' AND team_id = '' AND ref = new.blueprint_ref);
END;
CREATE TRIGGER search_blueprint_delete BEFORE DELETE ON blueprints BEGIN
  DELETE FROM search_library WHERE rowid = (SELECT entry_id FROM search_library_items WHERE kind = 'blueprint' AND team_id = '' AND ref = old.blueprint_ref);
  DELETE FROM search_library_items WHERE kind = 'blueprint' AND team_id = '' AND ref = old.blueprint_ref;
END;

-- ---------------------------------------------------------------------------------- backfill
-- What existed before this migration is indexed in the background, in batches that each commit
-- their cursor with their rows: progress shows, and a stopped node resumes where it was.
-- `through` is the last source id indexed (documents: the last document_id, as text), `end_id`
-- the last one that existed now (rows after it are indexed by the triggers and the service).
CREATE TABLE search_backfill (
  kind    TEXT PRIMARY KEY CHECK (kind IN ('mail', 'chat', 'document', 'library')),
  through TEXT NOT NULL,
  end_id  TEXT NOT NULL,
  done    INTEGER NOT NULL,
  total   INTEGER NOT NULL
) STRICT;
INSERT INTO search_library_items (kind, team_id, ref) SELECT 'profile', team_id, profile_ref FROM shelf_profiles;
INSERT INTO search_library_items (kind, team_id, ref) SELECT 'blueprint', '', blueprint_ref FROM blueprints;
INSERT INTO search_backfill SELECT 'mail', '0', CAST(coalesce(max(id), 0) AS TEXT), 0, count(*) FROM messages;
INSERT INTO search_backfill SELECT 'chat', '0', CAST(coalesce(max(id), 0) AS TEXT), 0, count(*) FROM chat_messages;
INSERT INTO search_backfill SELECT 'library', '0', CAST(coalesce(max(entry_id), 0) AS TEXT), 0, count(*) FROM search_library_items;
INSERT INTO search_backfill SELECT 'document', '', coalesce(max(document_id), ''), 0, count(*) FROM documents;
