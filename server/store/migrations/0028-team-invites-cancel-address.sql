-- Invites: the owner can cancel one before it is redeemed (its code stops working at
-- once), and a persistent invite may name the member's address, as `team add-member --address` does.
ALTER TABLE team_invites ADD COLUMN cancelled_at TEXT;
ALTER TABLE team_invites ADD COLUMN address TEXT;
