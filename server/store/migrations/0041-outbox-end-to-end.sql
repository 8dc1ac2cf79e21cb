-- Mail to another node sealed end to end (docs/adr/0008-end-to-end-mail.md). `encrypted_v2`: the
-- payload is the sender's own signed plaintext copy (what Sent shows it), which the outbox seals
-- for the recipient's key, found on its node, at each delivery and never sends as it is;
-- `legacy_plaintext_v1`: sent as it is (the send named plaintext, or the client signed it).
-- Owned by server/federation/outbox-store.ts.
ALTER TABLE federation_outbox ADD COLUMN content_mode TEXT NOT NULL DEFAULT 'legacy_plaintext_v1'
  CHECK (content_mode IN ('legacy_plaintext_v1', 'encrypted_v2'));
