-- Search: the words each mail and chat index holds, for prefix queries.
--
-- A prefix longer than the indexed prefixes (2 and 3 letters) makes FTS5 merge the row lists of
-- every word it covers before it can walk them newest first: `contr*` over a million messages
-- read 181,000 rows to show 20. The node lists the words the prefix covers here instead and asks
-- for them by name, which FTS5 walks lazily (server/search/service.ts, query.ts).
CREATE VIRTUAL TABLE search_mail_terms USING fts5vocab(search_mail, 'row');
CREATE VIRTUAL TABLE search_chat_terms USING fts5vocab(search_chat, 'row');
