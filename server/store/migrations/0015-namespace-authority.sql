-- Why a namespace exists on this node (DESIGN §5: holding a key proves nothing about a domain): the
-- owner consented (`owner`: the owner API or `svc-node namespace create`, with a custody-held or an
-- outside controller) or DNS proved it (`dns`: the _svcid record named the controller and this
-- node). Namespaces registered before this rule through the public route proved neither:
-- `unproven`, shown as unverified unless DNS later verifies them.
ALTER TABLE namespaces ADD COLUMN authority TEXT NOT NULL DEFAULT 'unproven'
  CHECK (authority IN ('owner', 'dns', 'unproven'));

UPDATE namespaces SET authority = 'owner' WHERE controller_key_id IS NOT NULL;
UPDATE namespaces SET authority = 'dns' WHERE controller_key_id IS NULL AND verification_status = 'verified';

-- For mail and chat from another node: what this node found of the sender's namespace when the
-- message arrived (`verified` when the sending node reported it DNS-verified and DNS here agreed,
-- else `unverified`). Null for local senders, whose namespace is read at display time.
ALTER TABLE messages ADD COLUMN from_namespace_trust TEXT CHECK (from_namespace_trust IN ('verified', 'unverified'));
ALTER TABLE chat_messages ADD COLUMN from_namespace_trust TEXT CHECK (from_namespace_trust IN ('verified', 'unverified'));
