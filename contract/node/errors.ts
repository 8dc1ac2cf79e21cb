/**
 * The node part of the error catalogue (contract/errors.ts): a code per situation of the owner
 * API (/v1/node/...), first-run setup, teams, the tunnel and key custody and backups.
 */
import { defineErrors } from '../error-catalogue.ts';

export const nodeErrors = defineErrors({
  // Signing in: a browser trades a one-time link code for a session of its own.
  SVC_ERR_UI_LINK_INVALID: { status: 401, summary: "The sign-in link's code is unknown or was already used; run `svc-node ui` for a new one" },
  SVC_ERR_UI_LINK_EXPIRED: { status: 401, summary: 'The sign-in link expired (links work for a few minutes); run `svc-node ui` for a fresh one' },
  SVC_ERR_OWNER_SESSION_UNKNOWN: {
    status: 401,
    summary: 'The node does not know this browser session (its data was reset, or the session ended long ago); run `svc-node ui` for a new sign-in link',
  },
  SVC_ERR_OWNER_SESSION_REVOKED: {
    status: 401,
    summary: 'This browser session was signed out (from Settings, or by signing out); run `svc-node ui` for a new sign-in link',
  },
  SVC_ERR_OWNER_SESSION_EXPIRED: {
    status: 401,
    summary: 'This browser session expired (14 days without use, or 90 days after signing in); run `svc-node ui` for a new sign-in link',
  },
  SVC_ERR_OWNER_SESSION_NOT_FOUND: { status: 404, summary: 'The node has no browser session with this id' },
  // First-run setup (a namespace under an outside key, an address taken: core's SVC_ERR_NAMESPACE_TAKEN, SVC_ERR_ADDRESS_TAKEN).
  SVC_ERR_SETUP_ALREADY_DONE: { status: 409, summary: 'The node is already set up, with another name or domain; add more identities instead' },
  // Teams (/v1/node/teams/...).
  SVC_ERR_TEAM_NOT_FOUND: { status: 404, summary: 'This node holds no team with this id' },
  SVC_ERR_TEAM_EXISTS: { status: 409, summary: 'A team with this id (the same name and domain) already exists' },
  SVC_ERR_TEAM_ALIAS_TAKEN: { status: 409, summary: 'A member with this alias is already active in the team' },
  SVC_ERR_TEAM_CERTIFICATE_NOT_FOUND: { status: 404, summary: 'The team has no certificate with this id' },
  SVC_ERR_TEAM_CERTIFICATE_ALREADY_REVOKED: { status: 409, summary: 'The certificate is already revoked' },
  SVC_ERR_TEAM_OWNER_NOT_REVOCABLE: { status: 403, summary: "The team's owner member cannot be revoked: the node acts for its owner through it" },
  SVC_ERR_TEAM_OWNER_NOT_FOUND: { status: 404, summary: 'The team has no owner member whose key this node holds, so the node cannot act in it' },
  SVC_ERR_TEAM_INVITE_INVALID: {
    status: 403,
    summary: 'The join code is unknown, already used, cancelled or expired; ask the owner for a new one (`svc-node team invite`)',
  },
  SVC_ERR_TEAM_INVITE_NOT_FOUND: { status: 404, summary: 'The team has no invite with this id' },
  SVC_ERR_TEAM_INVITE_USED: { status: 409, summary: 'The invite was already redeemed; revoke the certificate it gave instead' },
  SVC_ERR_TEAM_JOIN_IDENTITY_MISMATCH: {
    status: 403,
    summary: 'The did:svc a joining agent named is not its own: the did:svc log this node holds does not name its did:key as current',
  },
  // The tunnel.
  SVC_ERR_TUNNEL_NOT_CONFIGURED: { status: 409, summary: 'The tunnel has no SSH account configured yet, so it cannot start' },
  // Linked devices (/v1/node/devices, and the wire between devices: /v1/devices).
  SVC_ERR_DEVICE_LINK_CODE_INVALID: {
    status: 403,
    summary: 'The link code is unknown, already used or expired, or the join does not prove it; make a new one (`svc-node device link`)',
  },
  SVC_ERR_DEVICE_KEY_TAKEN: { status: 409, summary: 'A device with this signing key is already on the device list' },
  SVC_ERR_DEVICE_UNKNOWN: { status: 401, summary: "The request is signed by a device that is not on this node's device list" },
  SVC_ERR_DEVICE_REVOKED: { status: 403, summary: 'The device that signed the request was revoked: it receives nothing from this node' },
  SVC_ERR_DEVICE_NOT_FOUND: { status: 404, summary: 'This node has no device with this id' },
  SVC_ERR_DEVICE_IS_THIS_ONE: { status: 409, summary: 'A device cannot revoke itself; revoke it from another of your devices' },
  SVC_ERR_DEVICE_SYNC_UNREADABLE: {
    status: 422,
    summary: "The changes or keys a device sent do not open under this node's keys for these two devices, or are not in the shape a device sends",
  },
  SVC_ERR_DEVICE_SYNC_TOO_FAR_BEHIND: {
    status: 409,
    summary: 'The asking device was away longer than changes are kept (90 days): link it again (`svc-node device link`)',
  },
  SVC_ERR_DEVICE_SNAPSHOT_NOT_FOUND: {
    status: 404,
    summary: 'The snapshot part is not one kept for this device (it finished joining, or the part is not in its snapshot)',
  },
  // Key custody and identity key backups.
  SVC_ERR_SIGNING_KEY_NOT_FOUND: { status: 404, summary: 'Custody holds no signing key with this id' },
  SVC_ERR_SIGNING_KEY_DESTROYED: { status: 409, summary: 'The signing key was destroyed and can no longer sign' },
  SVC_ERR_ENCRYPTION_KEY_NOT_FOUND: { status: 404, summary: 'Custody holds no encryption key with this id' },
  SVC_ERR_RECOVERY_KIT_TOO_LARGE: { status: 409, summary: 'The node holds more keys and state than one recovery kit carries' },
  SVC_ERR_ENCRYPTION_KEY_DESTROYED: { status: 409, summary: 'The encryption key was destroyed: what was sealed to it can no longer be opened' },
  SVC_ERR_BACKUP_PASSPHRASE_REQUIRED: { status: 422, summary: 'A key backup needs a passphrase, and none was given' },
  SVC_ERR_BACKUP_INVALID: { status: 422, summary: 'The text is not an svc-node key backup, or the backup is damaged' },
  SVC_ERR_BACKUP_VERSION_UNSUPPORTED: { status: 422, summary: 'The key backup is of a format version this svc-node does not read' },
  SVC_ERR_BACKUP_PASSPHRASE_WRONG: { status: 422, summary: 'The passphrase does not open this key backup' },
  // Backups of the node's database into a folder (/v1/node/backups).
  SVC_ERR_BACKUP_FOLDER_RELATIVE: { status: 400, summary: 'The backup folder must be an absolute path' },
  SVC_ERR_BACKUP_FOLDER_NOT_DIRECTORY: { status: 409, summary: 'Something other than a folder is at the backup path' },
  SVC_ERR_BACKUP_FOLDER_FOREIGN: {
    status: 409,
    summary: "The folder holds backups made under another backup key (another node's, or this node's before a new kit); choose another folder",
  },
  SVC_ERR_BACKUP_FOLDER_UNWRITABLE: { status: 409, summary: 'The node cannot write to the backup folder (permissions, a full disk); detail says why' },
  SVC_ERR_BACKUP_RUNNING: { status: 409, summary: 'A backup is already being written; try again when it is done' },
  SVC_ERR_BACKUP_TOO_LARGE: { status: 409, summary: 'The database is larger than a backup holds in memory at once' },
  SVC_ERR_BACKUP_CANCELLED: { status: 409, summary: 'The backup was cancelled while it was written; no backup was added to the folder' },
  SVC_ERR_BACKUP_NOT_RUNNING: { status: 404, summary: 'No backup is being written (one may have just finished)' },
});
