-- The federation outbox is also the sender's copy of what went to other nodes, so linked devices
-- sync its rows; but a message is delivered only by the device that sent it. A row another device
-- sent names that device here (the sync fills it in as the row travels); a row this device sent
-- has none, and only those are this device's queue (server/federation/outbox-store.ts).
ALTER TABLE federation_outbox ADD COLUMN sent_by_device TEXT;
