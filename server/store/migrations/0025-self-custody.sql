-- Self-custodial identities (upstream's `custody: "self"`; docs/adr/0004-custody-model.md): the
-- client holds the private key, the node only its did:key. Such a row has no key in custody: its
-- key_id is '' (the column predates this and is NOT NULL), and nothing on the node signs as it.
ALTER TABLE agents ADD COLUMN custody TEXT NOT NULL DEFAULT 'custodial' CHECK (custody IN ('custodial', 'self'));
