-- Who made a version, as a person reads it. The app acts through the team's owner
-- member, so created_by_alias says "owner" for everything it saves; the identity chosen in the
-- app's switcher is what the owner's sign route puts in the signed envelope (`acting_as`), and the
-- node records it here. Only envelopes signed by the team's owner member are believed (its key
-- never leaves custody), so an outside member cannot name someone else. A snapshot of the
-- identity at save time: history keeps its words when the identity is later renamed or deleted.
ALTER TABLE document_versions ADD COLUMN acting_as_agent_id TEXT;
ALTER TABLE document_versions ADD COLUMN acting_as_alias TEXT;
ALTER TABLE document_versions ADD COLUMN acting_as_name TEXT;
ALTER TABLE document_versions ADD COLUMN acting_as_address TEXT;
