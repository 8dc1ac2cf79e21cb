/**
 * Identities (the spec's agents and workspaces; spec §4.3): creation with a project-authority key,
 * the self operations of an identity's own key, address resolution, and the owner-driven archive
 * and replace. The node validates requests and describes its API with these schemas; the UI and
 * the CLI take the inferred types.
 */
import { z } from 'zod';
import { DidLogEntry } from './did.ts';
import { addressName, NamespaceDomainPath, ReplacementAnnouncement, VerificationStatus } from './namespaces.ts';

export const ALIAS = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;
export const alias = z.string().regex(ALIAS, 'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit');

/**
 * How upstream clients name a recipient in an alias field: a plain alias (the sender's project),
 * `<project>~<alias>` (another project of this node: upstream's `team~alias` and `project~alias`),
 * or an address `<domain>/<name>`. Which identity it names is decided when it is resolved.
 */
export const ALIAS_SELECTOR = /^(?:[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}~)?[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$|^[^/\s]{1,253}\/[^/\s]{1,64}$/;
export const aliasSelector = z
  .string()
  .regex(ALIAS_SELECTOR, 'must be an alias (1-64 letters, digits, "-" or "_"), <project>~<alias>, or an address <domain>/<name>');

export const Lifetime = z.enum(['ephemeral', 'persistent']);
export type Lifetime = z.output<typeof Lifetime>;

export const IdentityStatus = z.enum(['active', 'archived', 'replaced', 'deleted']);
export type IdentityStatus = z.output<typeof IdentityStatus>;

/**
 * Who holds the identity's private key: the node's custody, or only the client (upstream E1
 * `custody: "self"`). The node never signs as a self-custodial identity: it verifies what the
 * client signed (mail, chat, its did:svc log).
 */
export const Custody = z.enum(['custodial', 'self']);
export type Custody = z.output<typeof Custody>;

/** Who may reach an identity: anyone, or its own project and its contacts. */
export const Reachability = z.enum(['public', 'contacts-only']);
export type Reachability = z.output<typeof Reachability>;

/** `contacts_only` is accepted as a spelling of the spec's `contacts-only`. */
export const reachability = z
  .enum(['public', 'contacts-only', 'contacts_only'])
  .transform((value): Reachability => (value === 'contacts_only' ? 'contacts-only' : value));

/**
 * Whether the identity takes plaintext mail (and later chat) from senders that do not encrypt end
 * to end: true by default, so older clients and nodes keep reaching it. When false, such a message
 * is refused (409 SVC_ERR_E2EE_PLAINTEXT_REFUSED) and nothing is stored.
 */
export const AcceptsPlaintext = z.boolean();

const context = z.record(z.string(), z.unknown()).refine((value) => JSON.stringify(value).length <= 16_384, 'context must serialise to at most 16 KiB');

const settings = {
  human_name: z.string().max(64).optional(),
  role: z.string().max(50).optional(),
  program: z.string().max(256).optional(),
  context: context.optional(),
};

/** `POST /v1/workspaces/init`: an ephemeral identity takes an alias, a persistent one a name. */
export const InitBody = z
  .strictObject({
    alias: alias.optional(),
    name: addressName.optional(),
    lifetime: Lifetime.optional(),
    address_reachability: reachability.optional(),
    /** Upstream's: `self` with `did` and `public_key` (the client keeps the private key); `custodial` (the default) has the node make one. */
    custody: Custody.optional(),
    /** The client's Ed25519 did:key (self custody only). */
    did: z.string().min(1).max(256).optional(),
    /** The same key's 32 bytes, base64url or standard base64, padding optional (self custody only). */
    public_key: z.string().min(1).max(64).optional(),
    ...settings,
  })
  .superRefine((body, issue) => {
    const self = body.custody === 'self';
    if ((body.did === undefined) !== (body.public_key === undefined)) {
      issue.addIssue({ code: 'custom', path: [body.did === undefined ? 'did' : 'public_key'], message: 'did and public_key go together' });
    }
    if (self && body.did === undefined)
      issue.addIssue({ code: 'custom', path: ['custody'], message: 'custody "self" needs did and public_key: the client holds the key' });
    if (!self && body.did !== undefined)
      issue.addIssue({
        code: 'custom',
        path: ['custody'],
        message: 'did and public_key are for custody "self"; a custodial identity gets its key from the node',
      });
    const persistent = body.lifetime === 'persistent';
    if (persistent && body.name === undefined) issue.addIssue({ code: 'custom', path: ['name'], message: 'a persistent identity needs a name' });
    if (persistent && body.alias !== undefined)
      issue.addIssue({ code: 'custom', path: ['alias'], message: 'a persistent identity takes a name, not an alias' });
    if (!persistent && body.name !== undefined)
      issue.addIssue({ code: 'custom', path: ['name'], message: 'name is only for persistent identities; use alias' });
  });
export type InitInput = z.output<typeof InitBody>;

/**
 * `PATCH /v1/agents/me`. Upstream's team clients send their workspace fields here too
 * (`hostname`, `workspace_path`, with `role` and `human_name`); those two are a
 * team member's workspace, so an identity that did not connect to a team is refused them (404).
 */
export const SettingsBody = z.strictObject({
  ...settings,
  address_reachability: reachability.optional(),
  accepts_plaintext: z.boolean().optional(),
  hostname: z.string().max(256).optional(),
  workspace_path: z.string().max(1024).optional(),
});
export type SettingsInput = z.output<typeof SettingsBody>;

export const ResolveParams = z.object({ namespace: NamespaceDomainPath, name: z.string().min(1).max(64) });
export const AgentIdParams = z.object({ agent_id: z.uuid() });

/**
 * `POST /api/v1/agents/{agent_id}/replace` (ours; the body is optional): who holds the
 * successor's key. `custodial`: the node makes it. `self`: the client brings it as `did` and
 * `public_key`, its did:svc registered first (POST /v1/did, signed by that key). A custodial
 * identity's successor is custodial unless the body says otherwise; a self-custodial identity's
 * replacement must say which (the node does not take custody of its successor's key unasked).
 */
export const ReplaceBody = z
  .strictObject({
    custody: Custody.optional(),
    did: z.string().min(1).max(256).optional(),
    public_key: z.string().min(1).max(64).optional(),
  })
  .superRefine((body, issue) => {
    if ((body.did === undefined) !== (body.public_key === undefined)) {
      issue.addIssue({ code: 'custom', path: [body.did === undefined ? 'did' : 'public_key'], message: 'did and public_key go together' });
    }
    if (body.custody === 'self' && body.did === undefined)
      issue.addIssue({ code: 'custom', path: ['custody'], message: 'custody "self" needs did and public_key: the client holds the new key' });
    if (body.custody !== 'self' && body.did !== undefined)
      issue.addIssue({
        code: 'custom',
        path: ['custody'],
        message: 'did and public_key are for custody "self"; a custodial successor gets its key from the node',
      });
  });
export type ReplaceInput = z.output<typeof ReplaceBody>;

/** An identity as the node shows it (`identity_id` and `agent_id` are the same id). */
export const Identity = z.object({
  identity_id: z.string(),
  agent_id: z.string(),
  project_id: z.string(),
  project_slug: z.string(),
  alias: z.string(),
  /** The address name of a persistent identity; null for an ephemeral one. */
  name: z.string().nullable(),
  lifetime: Lifetime,
  status: IdentityStatus,
  /** `self`: the client holds the key; the node never signs as it (mail and chat must come client-signed). */
  custody: Custody,
  did_key: z.string(),
  /** The stable did:svc of a persistent identity. */
  did_aw: z.string().nullable(),
  /** Its sender address: the oldest address bound to its did:svc. */
  address: z.string().nullable(),
  address_reachability: Reachability,
  accepts_plaintext: AcceptsPlaintext,
  human_name: z.string(),
  role: z.string().nullable(),
  program: z.string().nullable(),
  context: z.record(z.string(), z.unknown()).nullable(),
  successor_agent_id: z.string().nullable(),
  created_at: z.string(),
});
export type Identity = z.output<typeof Identity>;

/** `POST /v1/workspaces/init` (and the owner's `POST /v1/node/identities`): the API key is shown once. */
export const CreatedIdentity = Identity.extend({
  status: z.literal('ok'),
  identity_status: IdentityStatus,
  created: z.literal(true),
  api_key: z.string(),
  did: z.string(),
  stable_id: z.string().nullable(),
  namespace: z.string().nullable(),
  server_url: z.string(),
});
export type CreatedIdentity = z.output<typeof CreatedIdentity>;

/** `GET /v1/auth/introspect`: a project-authority key, or a key bound to an identity. */
const introspectionBase = { project_id: z.string(), project_slug: z.string(), api_key_id: z.string() };
export const Introspection = z.union([
  z.object({ ...introspectionBase, key_type: z.literal('project'), agent_id: z.null() }),
  Identity.extend({ ...introspectionBase, key_type: z.literal('identity') }),
]);
export type Introspection = z.output<typeof Introspection>;

export const AgentLogOperation = z.enum(['create', 'rotate', 'update_settings', 'archive', 'replaced_by', 'delete', 'export', 'import']);
export type AgentLogOperation = z.output<typeof AgentLogOperation>;

/** One entry of an identity's own audit log, signed inside custody by the key current then. */
export const AgentLogEntry = z.object({
  log_id: z.string(),
  seq: z.number().int(),
  operation: AgentLogOperation,
  old_did: z.string().nullable(),
  new_did: z.string().nullable(),
  signed_by: z.string(),
  entry_signature: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type AgentLogEntry = z.output<typeof AgentLogEntry>;

/** `GET /v1/agents/me/log`: the audit log and, for a persistent identity, its did:svc log. */
export const AgentLog = z.object({
  agent_id: z.string(),
  alias: z.string(),
  address: z.string(),
  did_aw: z.string().nullable(),
  log: z.array(AgentLogEntry),
  did_log: z.array(DidLogEntry),
});
export type AgentLog = z.output<typeof AgentLog>;

/** What the retiring key signs when an identity rotates: its successor. */
export const RotationAnnouncement = z.object({ old_did: z.string(), new_did: z.string(), timestamp: z.string(), old_key_signature: z.string() });
export type RotationAnnouncement = z.output<typeof RotationAnnouncement>;

/** `PUT /v1/agents/me/rotate`. */
export const Rotated = z.object({
  status: z.literal('rotated'),
  agent_id: z.string(),
  did_aw: z.string(),
  old_did: z.string(),
  new_did: z.string(),
  new_public_key: z.string(),
  custody: z.literal('custodial'),
  log_head: DidLogEntry,
  rotation_announcement: RotationAnnouncement,
  address: z.string().nullable(),
});
export type Rotated = z.output<typeof Rotated>;

/** `DELETE /v1/agents/me`: ephemeral identities only. */
export const Deleted = z.object({ agent_id: z.string(), status: z.literal('deleted') });
export type Deleted = z.output<typeof Deleted>;

/** `PATCH /v1/agents/me`: the settings as they now are. */
export const Settings = z.object({
  agent_id: z.string(),
  human_name: z.string(),
  role: z.string().nullable(),
  program: z.string().nullable(),
  context: z.record(z.string(), z.unknown()).nullable(),
  address_reachability: Reachability,
  accepts_plaintext: AcceptsPlaintext,
  /** Upstream's (§9.1), beside ours: the identity's alias. */
  alias: z.string(),
  /** A team member's workspace fields (upstream's); null for an identity without a team workspace. */
  hostname: z.string().nullable(),
  workspace_path: z.string().nullable(),
});
export type Settings = z.output<typeof Settings>;

/**
 * `GET /v1/agents/resolve/{namespace}/{name}`: the identity behind an address. Who it is on this
 * node (`agent_id`, `alias`) is said only to callers in its own project.
 */
export const Resolved = z.object({
  address: z.string(),
  did: z.string(),
  did_key: z.string(),
  stable_id: z.string().nullable(),
  did_aw: z.string().nullable(),
  controller_did: z.string(),
  namespace_verification: VerificationStatus,
  server: z.string(),
  local: z.boolean(),
  agent_id: z.string().nullable(),
  alias: z.string().nullable(),
  human_name: z.string().nullable(),
  lifetime: Lifetime.nullable(),
  custody: Custody.nullable(),
  status: IdentityStatus.nullable(),
});
export type Resolved = z.output<typeof Resolved>;

/** `POST /api/v1/agents/{agent_id}/archive`. */
export const Archived = z.object({ agent_id: z.string(), status: z.literal('archived'), did_aw: z.string() });
export type Archived = z.output<typeof Archived>;

/**
 * `POST /api/v1/agents/{agent_id}/replace`: the successor (its API key shown once), and the
 * controller's announcement for each address it took over.
 */
export const Replaced = Identity.extend({
  status: z.literal('replaced'),
  old_agent_id: z.string(),
  identity_status: IdentityStatus,
  api_key: z.string(),
  did: z.string(),
  stable_id: z.string().nullable(),
  replacement_announcements: z.array(ReplacementAnnouncement),
});
export type Replaced = z.output<typeof Replaced>;
