-- Whether an identity accepts plaintext mail (and later chat) from senders that do not encrypt
-- end to end (server/surfaces/core/messaging/plaintext-policy.ts). 1 by default, so older clients
-- and nodes keep reaching it; the identity or the owner turns it off. Owned by
-- server/surfaces/core/identities/store/agents.ts.
ALTER TABLE agents ADD COLUMN accepts_plaintext INTEGER NOT NULL DEFAULT 1 CHECK (accepts_plaintext IN (0, 1));
