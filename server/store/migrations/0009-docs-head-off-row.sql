-- The current body is no longer kept whole on the document row: rewriting that blob made every
-- append cost a full copy of the document. The head is rebuilt from its version chain (its
-- snapshot plus at most 63 deltas, each checked against its sha256) and held in memory
-- (surfaces/docs/head-bodies.ts). The column stays, empty, because SQLite cannot drop it from a
-- table other tables reference without rebuilding both.
UPDATE documents SET body = X'';
