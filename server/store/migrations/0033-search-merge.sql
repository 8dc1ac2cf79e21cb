-- Search: how often the mail and chat indexes rewrite what they hold.
--
-- FTS5 merges an index's segments four at a time by default, so every indexed word is rewritten
-- about log4(rows / batch) times over an index's life: at a million messages, most of the
-- indexer's work (server/search/indexer.ts) was these merges, not the new rows. Sixteen at a time
-- rewrites each word about half as often; a search walks a few more segments per word, which the
-- search benchmark does not notice (README, Search).
INSERT INTO search_mail (search_mail, rank) VALUES ('automerge', 16);
INSERT INTO search_chat (search_chat, rank) VALUES ('automerge', 16);
