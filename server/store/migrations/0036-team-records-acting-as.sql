-- Who did what on a team record, as a person reads it. The app acts through the team's owner
-- member, so a proposal it submits or decides and a present link it makes name "owner"; the
-- identity chosen in the app's switcher is what the owner's sign route puts in the signed envelope
-- (`acting_as`), and the node records it here, as 0021 does for document versions. Only envelopes
-- signed by the team's owner member are believed, so an agent is still named by its certificate.
-- A snapshot of the identity at the time: a later rename or deletion does not rewrite the record.
-- Rows written before this migration keep NULL: the app names them as it did.
ALTER TABLE proposals ADD COLUMN acting_as_agent_id TEXT;
ALTER TABLE proposals ADD COLUMN acting_as_alias TEXT;
ALTER TABLE proposals ADD COLUMN acting_as_name TEXT;
ALTER TABLE proposals ADD COLUMN acting_as_address TEXT;
ALTER TABLE proposals ADD COLUMN decided_acting_as_agent_id TEXT;
ALTER TABLE proposals ADD COLUMN decided_acting_as_alias TEXT;
ALTER TABLE proposals ADD COLUMN decided_acting_as_name TEXT;
ALTER TABLE proposals ADD COLUMN decided_acting_as_address TEXT;
ALTER TABLE present_links ADD COLUMN acting_as_agent_id TEXT;
ALTER TABLE present_links ADD COLUMN acting_as_alias TEXT;
ALTER TABLE present_links ADD COLUMN acting_as_name TEXT;
ALTER TABLE present_links ADD COLUMN acting_as_address TEXT;
