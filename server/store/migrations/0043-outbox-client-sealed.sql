-- Mail to another node that a self-custodial identity's client sealed itself
-- (docs/adr/0008-end-to-end-mail.md, "Between nodes"). With `sealed_by_client` 1 (and
-- content_mode `encrypted_v2`) the payload is the wire form, the client's envelope beside empty
-- subject and body, sent exactly as it is: the node holds no key to seal it again with, nor any
-- plaintext. 0 for every other row: plaintext sent as it is, or the sender's own copy the outbox
-- seals at each delivery. Owned by server/federation/outbox-store.ts.
ALTER TABLE federation_outbox ADD COLUMN sealed_by_client INTEGER NOT NULL DEFAULT 0 CHECK (sealed_by_client IN (0, 1));
