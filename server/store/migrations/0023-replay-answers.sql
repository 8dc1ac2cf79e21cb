-- Signed writes keep their first answer (server/auth/replay-cache.ts, replay-store.ts): Ed25519
-- is deterministic and timestamps have second precision, so an honest client's retry repeats the
-- exact bytes; it gets the first answer instead of a refusal, and the write takes effect once.
-- A row is claimed (fingerprint set, answer NULL) before the write runs and answered before the
-- answer is sent, so after a crash a retry never runs the write twice.
--   fingerprint: sha256 of what the signature does not cover (method, target, content type, body
--     hash, certificate); NULL for a signature that works once with no answer to replay.
--   answer_status / answer_type / answer_body: the first answer; status NULL while the write runs
--     (or when the node stopped before answering); body NULL when too large to keep or evicted.
--   answered_at: Unix milliseconds, the eviction order of kept bodies.
ALTER TABLE replay_signatures ADD COLUMN fingerprint TEXT;
ALTER TABLE replay_signatures ADD COLUMN answer_status INTEGER;
ALTER TABLE replay_signatures ADD COLUMN answer_type TEXT;
ALTER TABLE replay_signatures ADD COLUMN answer_body BLOB;
ALTER TABLE replay_signatures ADD COLUMN answered_at INTEGER;
CREATE INDEX replay_signatures_kept_answers ON replay_signatures(answered_at) WHERE answer_body IS NOT NULL;
