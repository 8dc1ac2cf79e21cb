-- Federation that keeps up with a busy peer: the outbox is read per peer node, in send order, and a
-- message waits while an earlier one from the same sender to the same recipient is in flight or
-- backing off (server/federation/outbox-store.ts, dueRowsFor).
--
-- The queue of the domains a node answers for, in send order.
CREATE INDEX federation_outbox_domain_queue ON federation_outbox(to_domain, id) WHERE status = 'queued';
-- A pair's earlier queued messages, asked for each due row.
CREATE INDEX federation_outbox_pair_queue ON federation_outbox(from_agent_id, to_address, id) WHERE status = 'queued';
