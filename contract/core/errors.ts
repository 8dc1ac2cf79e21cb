/**
 * The core part of the error catalogue (contract/errors.ts): a code per situation, for
 * identities, projects, namespaces and addresses, did:svc logs, mail, chat, contacts and events.
 */
import { defineErrors } from '../error-catalogue.ts';

export const coreErrors = defineErrors({
  // Identities and projects
  SVC_ERR_IDENTITY_NOT_FOUND: { status: 404, summary: 'No identity with this id (or alias) is visible to the caller' },
  SVC_ERR_IDENTITY_NOT_ACTIVE: { status: 409, summary: 'The identity is archived or replaced, so it can no longer do this' },
  SVC_ERR_IDENTITY_REPLACED: { status: 409, summary: 'The identity was replaced; act on its successor instead' },
  SVC_ERR_IDENTITY_WRONG_LIFETIME: {
    status: 409,
    summary:
      'The operation does not apply to an identity of this lifetime (ephemeral ones are deleted; persistent ones are rotated, archived, replaced and backed up)',
  },
  SVC_ERR_IDENTITY_NO_ADDRESS: { status: 409, summary: 'The identity has no address for a replacement to carry over' },
  SVC_ERR_IDENTITY_EXISTS: { status: 409, summary: 'The identity (a backup being restored, or a self-custodial key or did:svc) is already on this node' },
  SVC_ERR_IDENTITY_SELF_CUSTODIAL: {
    status: 409,
    summary: 'The identity is self-custodial: the node holds no key for it, so it cannot sign or export for it (its key rotates by PUT /v1/did/{did_aw})',
  },
  // End-to-end encryption keys
  SVC_ERR_ENCRYPTION_KEY_NODE_MANAGED: {
    status: 409,
    summary: "The identity's keys are in this node's custody: the node publishes, renews and rotates its encryption key itself",
  },
  SVC_ERR_ENCRYPTION_KEY_ASSERTION_INVALID: {
    status: 422,
    summary:
      'The encryption key assertion is malformed, of an unsupported version, algorithm or custody, its key id does not match its key, or its signature does not verify',
  },
  SVC_ERR_ENCRYPTION_KEY_ASSERTION_WRONG_IDENTITY: {
    status: 422,
    summary:
      "The encryption key assertion names another identity: its identity_did is not the identity's current did:key, or its identity_stable_id is not the identity's did:svc",
  },
  SVC_ERR_ENCRYPTION_KEY_ASSERTION_EXPIRED: {
    status: 422,
    summary: "The encryption key assertion is not valid at the node's time: expired, not yet active, or created in the future",
  },
  // End-to-end encrypted messages
  SVC_ERR_E2EE_RECIPIENT_KEY_MISSING: {
    status: 409,
    summary:
      'The recipient publishes no valid encryption key (none, expired, or not found across nodes): nothing was sent. Send plaintext only by naming it (content_mode legacy_plaintext_v1)',
  },
  SVC_ERR_E2EE_REQUIRED: {
    status: 409,
    summary: 'Sender and recipient can both encrypt end to end, so the message is never sent as plaintext, not even when asked',
  },
  SVC_ERR_E2EE_PLAINTEXT_REFUSED: { status: 409, summary: 'The recipient accepts only end-to-end encrypted messages, and this one is plaintext' },
  SVC_ERR_E2EE_SENDER_KEY_MISSING: {
    status: 409,
    summary: 'The sender has no valid encryption key of its own, which the mandatory sender copy is sealed to: a self-custodial sender publishes one first',
  },
  SVC_ERR_E2EE_ENVELOPE_MALFORMED: {
    status: 422,
    summary: 'The encrypted envelope is malformed: a field is missing or of the wrong type, or its ciphertext, key wraps or hashes do not check out',
  },
  SVC_ERR_E2EE_ENVELOPE_UNSUPPORTED: {
    status: 422,
    summary: 'The envelope is of a version, suite or key wrap algorithm this node does not speak (no downgrade is taken)',
  },
  SVC_ERR_E2EE_ENVELOPE_STALE: {
    status: 422,
    summary: "The envelope's created_at and expires_at are outside the five-minute ingestion window at the node's time",
  },
  SVC_ERR_E2EE_ENVELOPE_MISMATCH: {
    status: 422,
    summary:
      'The envelope does not say what the request says: its kind, message_id, conversation, sender, recipients, key wraps or policy differ from the route it was sent on',
  },
  SVC_ERR_E2EE_SIGNATURE_INVALID: { status: 422, summary: "The envelope's signature does not verify with its sender's did:key" },
  SVC_ERR_REPLACEMENT_CUSTODY_REQUIRED: {
    status: 422,
    summary: 'A self-custodial identity\'s replacement must say who holds the successor\'s key: custody "self" with did and public_key, or "custodial"',
  },
  SVC_ERR_PUBLIC_KEY_MISMATCH: { status: 422, summary: 'public_key is not the 32-byte Ed25519 key of did' },
  SVC_ERR_ALIAS_TAKEN: { status: 409, summary: 'Another identity of the project already has this alias' },
  SVC_ERR_ALIAS_EXHAUSTED: { status: 409, summary: 'No free alias is left in the project' },
  SVC_ERR_CONTROLLER_KEY_NOT_HELD: {
    status: 409,
    summary: 'This node does not hold the controller key of the namespace, so the change needs a controller signature',
  },
  SVC_ERR_BACKUP_KEY_NOT_CURRENT: { status: 422, summary: "The key in the backup is not the identity's current key" },
  SVC_ERR_PROJECT_NOT_FOUND: { status: 404, summary: 'No project with this id' },
  SVC_ERR_PROJECT_SLUG_INVALID: { status: 422, summary: 'The project slug is not 1-64 letters, digits, ".", "-" or "_"' },
  SVC_ERR_PROJECT_SLUG_TAKEN: { status: 409, summary: 'A project with this slug already exists' },
  SVC_ERR_PROJECT_NAMESPACE_NOT_HELD: { status: 422, summary: 'The namespace given for the project is not controlled by this node' },

  // Namespaces and addresses
  SVC_ERR_NAMESPACE_NOT_FOUND: { status: 404, summary: 'No namespace with this domain on this node' },
  SVC_ERR_NAMESPACE_TAKEN: { status: 409, summary: 'The namespace is already registered to another controller' },
  SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE: { status: 409, summary: 'The peer table or DNS places the namespace on another node' },
  SVC_ERR_NAMESPACE_NOT_CONTROLLER: { status: 403, summary: "The request is not signed by the namespace's controller" },
  SVC_ERR_NAMESPACE_CONTROLLER_MISMATCH: { status: 403, summary: 'controller_did is not the key that signed the request' },
  SVC_ERR_NAMESPACE_REVOKED: { status: 403, summary: 'The namespace was revoked: its DNS record no longer names its controller' },
  SVC_ERR_NAMESPACE_DNS_PROOF_REQUIRED: { status: 403, summary: 'The domain can only be registered with DNS proof (an _svcid record), and there is none' },
  SVC_ERR_NAMESPACE_DNS_MISMATCH: { status: 403, summary: "The domain's _svcid DNS record names another controller" },
  SVC_ERR_NAMESPACE_DNS_NODE_MISSING: { status: 403, summary: "The domain's _svcid DNS record names no node, so nothing proves the namespace lives here" },
  SVC_ERR_NAMESPACE_DNS_UNAVAILABLE: { status: 503, summary: 'The DNS lookup for the domain failed; try again later' },
  SVC_ERR_ADDRESS_NOT_FOUND: { status: 404, summary: 'No address with this name in the namespace' },
  SVC_ERR_ADDRESS_TAKEN: { status: 409, summary: 'The address is already assigned' },
  SVC_ERR_ADDRESS_MALFORMED: { status: 422, summary: 'The address is not of the form <domain>/<name>' },

  // did:svc logs
  SVC_ERR_DID_NOT_FOUND: { status: 404, summary: 'No did:svc with this id is known here' },
  SVC_ERR_DID_MALFORMED: { status: 422, summary: 'A DID in the request is not of the kind the field takes (an Ed25519 did:key, or a did:svc)' },
  SVC_ERR_DID_UNREGISTERED: { status: 409, summary: 'The did:svc must be registered before an address can follow it' },
  SVC_ERR_DID_KEY_MISMATCH: { status: 409, summary: 'The did:key is not the current key of the did:svc involved' },
  SVC_ERR_DID_TAKEN: { status: 409, summary: 'The did:svc is already registered to another key' },
  SVC_ERR_DID_ENTRY_INVALID: { status: 422, summary: "The did:svc log entry breaks the log's rules (operation, genesis shape, key, timestamp or state hash)" },
  SVC_ERR_DID_LOG_INVALID: { status: 422, summary: 'The did:svc log given is empty or does not verify' },
  SVC_ERR_DID_LOG_STALE: { status: 409, summary: 'The entry does not follow the current log head (seq or prev_entry_hash); fetch the head and retry' },
  SVC_ERR_DID_LOG_FORKED: { status: 409, summary: 'This node knows a different history for the did:svc' },
  SVC_ERR_DID_ROTATION_UNAUTHORIZED: { status: 401, summary: "A key rotation is not authorized by the did:svc's current key" },

  // Mail, chat and recipients
  SVC_ERR_RECIPIENT_NOT_FOUND: { status: 404, summary: 'No identity answers to this recipient alias, address or DID' },
  SVC_ERR_RECIPIENT_NOT_ACTIVE: { status: 409, summary: 'The recipient is archived or replaced and no longer receives messages' },
  SVC_ERR_RECIPIENT_NOT_LOCAL: { status: 422, summary: 'The recipient is not hosted on this node, and this path cannot reach another node' },
  SVC_ERR_RECIPIENT_CONTACTS_ONLY: { status: 403, summary: 'The recipient only accepts messages from its contacts' },
  SVC_ERR_RECIPIENT_DUPLICATE: { status: 422, summary: 'The same recipient is named twice' },
  SVC_ERR_SENDER_ADDRESS_REQUIRED: { status: 422, summary: 'Sending to another node needs a sender with an address; give the identity one first' },
  SVC_ERR_MESSAGE_TOO_LARGE: { status: 413, summary: 'The message body is over 64 KiB of UTF-8' },
  SVC_ERR_MESSAGE_NOT_FOUND: { status: 404, summary: 'No message with this id is visible to the caller' },
  // Search (GET /v1/search, /v1/node/search, the MCP tool).
  SVC_ERR_SEARCH_QUERY_INVALID: {
    status: 422,
    summary:
      'The search query cannot be read (unclosed quote or parenthesis, operator with nothing on one side, prefix under 2 letters, only excluded terms, or too long, too many terms or too deeply nested); detail says what and where',
  },
  SVC_ERR_MESSAGE_ID_TAKEN: { status: 409, summary: 'Another message is already stored under this message_id' },
  SVC_ERR_MESSAGE_ID_REUSED: {
    status: 409,
    summary: 'The sender already sent a message under this message_id, with other content (the same content again answers as the first send did)',
  },
  SVC_ERR_SIGNATURE_REQUIRED: {
    status: 422,
    summary: 'The sender is self-custodial: its mail and chat must come client-signed (signature, signed_payload, from_did, message_id, timestamp)',
  },
  SVC_ERR_MESSAGE_SIGNATURE_INVALID: { status: 401, summary: 'The client signature does not verify over signed_payload with from_did' },
  SVC_ERR_MESSAGE_TIMESTAMP_STALE: { status: 401, summary: "The signed timestamp is outside the ±300 s window around the node's clock" },
  SVC_ERR_SIGNING_KEY_MISMATCH: { status: 422, summary: 'signing_key_id is not from_did, the key that signed' },
  SVC_ERR_SIGNER_MISMATCH: { status: 422, summary: "from_did is not the sending identity's current key" },
  SVC_ERR_SIGNED_PAYLOAD_MISMATCH: {
    status: 422,
    summary: 'signed_payload does not say what the request says (type, sender, recipient, content, message_id or timestamp)',
  },
  SVC_ERR_REPLY_TO_NOT_FOUND: { status: 404, summary: 'The message replied to is not in this chat session' },
  SVC_ERR_CHAT_SESSION_NOT_FOUND: { status: 404, summary: 'No chat session with this id is visible to the caller' },
  SVC_ERR_CHAT_NOT_PARTICIPANT: { status: 403, summary: 'The identity is not a participant of the chat session' },
  SVC_ERR_CHAT_WITH_SELF: { status: 422, summary: 'A chat needs another participant than the sender' },
  SVC_ERR_CHAT_NOT_LEFT: { status: 409, summary: 'The identity has not left the chat, so there is nothing to rejoin' },
  SVC_ERR_CHAT_REMOTE_GROUP: { status: 422, summary: 'A chat with an identity on another node has exactly two participants' },
  SVC_ERR_CHAT_TARGET_INVALID: { status: 422, summary: 'The chat tool call names no target, or more than one (to_alias, to_address, to_did or session_id)' },
  SVC_ERR_CONTACT_EXISTS: { status: 409, summary: "The address is already one of the identity's contacts" },

  // MCP
  SVC_ERR_MCP_METHOD_NOT_ALLOWED: {
    status: 405,
    summary: 'MCP here is stateless Streamable HTTP: only POST; there is no server-initiated stream (GET) and no session to end (DELETE)',
  },

  // Event subscriptions
  SVC_ERR_TEAM_NOT_MEMBER: { status: 403, summary: 'The identity is not a member of the team (or of any team)' },
  SVC_ERR_SUBSCRIPTION_NOT_FOUND: { status: 404, summary: 'No event subscription with this id belongs to the identity' },

  // Team-certificate identities (POST /v1/connect and the routes of connected members)
  SVC_ERR_AGENT_NOT_CONNECTED: {
    status: 403,
    summary: 'The signature and certificate verify, but the member has not connected (POST /v1/connect), or no identity on this node holds the signing key',
  },
  SVC_ERR_TEAM_CERTIFICATE_REQUIRED: {
    status: 401,
    summary: 'A DIDKey-signed request without X-SVCID-Team-Certificate: identity-only auth is for the messaging routes (mail, chat, contacts, MCP) only',
  },
  SVC_ERR_DID_AW_MISMATCH: {
    status: 401,
    summary: 'X-SVC-DID-AW names a did:svc whose current key (in the log this node holds) is not the Authorization did:key',
  },
  SVC_ERR_TEAM_AGENT_CONFLICT: {
    status: 409,
    summary: "The certificate's key is connected to the team under another alias, or its alias is connected under another key",
  },
  SVC_ERR_TEAM_ADDRESS_CONFLICT: {
    status: 409,
    summary: "The certificate's member_address is bound to another identity, or is not registered and this node does not control its namespace",
  },
  SVC_ERR_WORKSPACE_NOT_FOUND: { status: 404, summary: "No workspace with this id in the caller's team" },
  SVC_ERR_WORKSPACE_IN_USE: {
    status: 409,
    summary: 'Only a gone ephemeral workspace can be deleted: this one is persistent, or was seen in the last 30 minutes',
  },
});
