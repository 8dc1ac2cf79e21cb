/**
 * The owner's team routes (`/v1/node/teams...`, DESIGN §4): teams whose key the node holds, member
 * certificates it issues and revokes, and requests it signs as the owner member so the UI can call
 * the library and document surfaces without ever holding a key.
 */
import { z } from 'zod';
import { shellCommand } from '../shell-words.ts';
import { memberAliasProblem } from '../core-rules.ts';
import { domainName, identityName, ruled } from './fields.ts';

/**
 * The alias of a team's owner member: the certificate this app (the node's owner, the person)
 * acts through. No other member can hold it (aliases are unique among a team's active members and
 * the owner member is never revoked), so a record "by owner" is the person using this app, and the
 * app names them ("you", the identity they act as) rather than by this alias.
 */
export const OWNER_ALIAS = 'owner';

/** Every scope a team certificate may hold (server/teams/scopes.ts says what each grants). */
export const TEAM_SCOPES = ['docs:read', 'docs:write', 'library:read', 'library:write', 'library:publish', 'library:approve', 'team:admin'] as const;
export const TeamScope = z.enum(TEAM_SCOPES);
export type TeamScope = z.output<typeof TeamScope>;

/**
 * The largest body the owner asks the node to sign: the listeners' body limit
 * (server/http/limits.ts BODY_LIMIT_BYTES, which a test holds equal), so a body a listener would
 * refuse with a 413 is refused before it is signed.
 */
export const SIGNED_BODY_MAX_BYTES = 2 * 1024 * 1024;

/** A team's name and domain by the contract's rules (contract/core-rules.ts), as the new-team form checks them. */
export const CreateTeamBody = z.strictObject({
  name: identityName,
  domain: domainName,
});
export type CreateTeamInput = z.input<typeof CreateTeamBody>;

export const CertificateLifetime = z.enum(['persistent', 'ephemeral']);

export const AddMemberBody = z.strictObject({
  did_key: z.string().min(1).max(256),
  alias: z.string().min(1).max(128),
  lifetime: CertificateLifetime.optional(),
  did_aw: z.string().min(1).max(256).optional(),
  address: z.string().min(3).max(320).optional(),
  scopes: z
    .array(TeamScope)
    .max(TEAM_SCOPES.length * 2)
    .optional(),
});
export type AddMemberInput = z.output<typeof AddMemberBody>;

/** `POST /v1/node/teams/{team_id}/invites` (ours): a one-time join code for an agent that holds its own key. */
export const InviteBody = z.strictObject({
  alias: ruled(memberAliasProblem),
  lifetime: CertificateLifetime.optional(),
  /** How long the code works; a day by default, at most 30 days. */
  expires_in_seconds: z
    .number()
    .int()
    .min(60)
    .max(30 * 24 * 3600)
    .optional(),
  /** A persistent member's address `<domain>/<name>`, as `add-member` takes it (assigned when it connects). */
  address: z.string().min(3).max(320).optional(),
});
export type InviteInput = z.output<typeof InviteBody>;

/** The invite, with its code: shown once (the node keeps only its SHA-256). */
export const TeamInvite = z.object({
  invite_id: z.string(),
  team_id: z.string(),
  alias: z.string(),
  lifetime: CertificateLifetime,
  address: z.string().nullable(),
  code: z.string(),
  expires_at: z.string(),
  /** Where the agent presents the code: `POST` here with JoinBody. */
  join_url: z.string(),
  /**
   * The words that run this node's own `svc-node` on this computer: its pinned Node and its
   * `bin/svc-node.js`, absolute paths, so the join line works in any folder of this machine with
   * nothing installed and no `svc-node` on the PATH (the join URL is this node's local address).
   * Absent when the node runs without its source folder; the line then starts with `svc-node`.
   */
  cli: z.array(z.string()).optional(),
});
export type TeamInvite = z.output<typeof TeamInvite>;

/**
 * The words of the one line an invited agent runs, as `svc-node team invite` prints it and the app
 * copies it: this node's own svc-node (`cli`), so it runs in any folder of this computer. It names
 * the invited alias, so the joining client refuses a certificate the node issues for any other alias.
 */
export function joinCommandWords(invite: Pick<TeamInvite, 'join_url' | 'code' | 'alias' | 'cli'>): string[] {
  return [...(invite.cli ?? ['svc-node']), 'team', 'join', invite.join_url, invite.code, '--alias', invite.alias];
}

/** The join line as a shell reads it: each word quoted as it needs (a path with a space stays one word). */
export function joinCommandLine(invite: Pick<TeamInvite, 'join_url' | 'code' | 'alias' | 'cli'>): string {
  return shellCommand(...joinCommandWords(invite));
}

/**
 * What an agent needs to join from another machine, where this node's own svc-node is not: a
 * clone of this repository with its two commands' first (`npm install`), then the join line run
 * as `npx svc-node` inside it (it writes `.aw/` where it runs, or in `--dir`), or a client of its
 * own that POSTs to the join URL. The join URL must reach this node from there.
 */
export const JOIN_ELSEWHERE =
  'On another machine: clone this repository there and run npm install in it, then the same line with “npx svc-node” in place of the words before “team join”, inside that folder (add --dir to write .aw/ elsewhere); the join URL must reach this node from that machine.';

/**
 * An invite not yet redeemed, as the owner lists it (`GET /v1/node/teams/{team_id}/invites`):
 * never its code, which the node does not keep. Used, cancelled and expired invites are not listed.
 */
export const PendingInvite = z.object({
  invite_id: z.string(),
  team_id: z.string(),
  alias: z.string(),
  lifetime: CertificateLifetime,
  address: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type PendingInvite = z.output<typeof PendingInvite>;

export const InviteList = z.object({ team_id: z.string(), invites: z.array(PendingInvite) });
export type InviteList = z.output<typeof InviteList>;

export const InviteParams = z.object({ team_id: z.string().min(3).max(320), invite_id: z.string().min(1).max(64) });

/** `DELETE /v1/node/teams/{team_id}/invites/{invite_id}`: the code no longer works (cancelling again answers the same). */
export const InviteCancelled = z.object({ cancelled: z.literal(true), invite_id: z.string(), cancelled_at: z.string() });
export type InviteCancelled = z.output<typeof InviteCancelled>;

/**
 * `POST /v1/team/join` (ours; docs/adr/0004-custody-model.md): the agent redeems a join code for a
 * certificate naming its own key. `signature`: Ed25519 by `did_key`, base64url without padding,
 * over the canonical JSON of `{type: "svc.team.join", code, did_key, timestamp}` (with `did_aw` in
 * it when sent).
 *
 * A persistent agent with its own did:svc registered on this node (`/v1/did`, its log naming
 * `did_key` as the current key) joins with it, so its certificate names it (upstream's persistent
 * member certificate carries `member_did_aw` and `member_address`), beside the address the invite
 * names. Only a persistent invite takes it.
 */
export const JoinBody = z.strictObject({
  code: z.string().min(1).max(128),
  did_key: z.string().min(1).max(256),
  did_aw: z.string().min(1).max(256).optional(),
  timestamp: z.string().min(1).max(64),
  signature: z.string().min(1).max(256),
});
export type JoinInput = z.output<typeof JoinBody>;

/** `POST /v1/node/teams/{team_id}/sign`: what the owner asks the node to sign, exactly as it will be sent. */
export const SignBody = z.strictObject({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
  /** The exact request target to be sent, query included. */
  path: z
    .string()
    .regex(/^\/\S*$/, 'must be a request target starting with "/"')
    .max(4096),
  /** The exact body text that will be sent, if any. */
  body: z.string().max(SIGNED_BODY_MAX_BYTES).optional(),
  surface: z.enum(['library', 'docs']).optional(),
  /** Ours: the agent_id of the identity the app acts as; signed into the envelope and recorded on what the request makes or decides (contract/acting-as.ts). */
  acting_as: z.string().min(1).max(128).optional(),
});
export type SignInput = z.input<typeof SignBody>;

/** The team-auth headers for one request, and where to send it. Each signature works once. */
export const SignedRequest = z.object({ headers: z.record(z.string(), z.string()), url: z.string() });
export type SignedRequest = z.output<typeof SignedRequest>;

export const TeamParams = z.object({ team_id: z.string().min(3).max(320) });
export const CertificateParams = z.object({ team_id: z.string().min(3).max(320), certificate_id: z.string().min(1).max(64) });

/** A team whose key this node holds; `team_id` is `<name>:<domain>`. */
export const Team = z.object({
  team_id: z.string(),
  name: z.string(),
  domain: z.string(),
  team_did_key: z.string(),
  /** The member the node's owner acts through. */
  owner_certificate_id: z.string(),
  /** Members whose certificate is not revoked. */
  member_count: z.number().int(),
  created_at: z.string(),
});
export type Team = z.output<typeof Team>;

export const TeamList = z.object({ teams: z.array(Team) });

/** A member certificate as the node records it. */
export const Member = z.object({
  certificate_id: z.string(),
  team_id: z.string(),
  alias: z.string(),
  member_did_key: z.string(),
  member_did_aw: z.string().nullable(),
  member_address: z.string().nullable(),
  lifetime: CertificateLifetime,
  issued_at: z.string(),
  revoked_at: z.string().nullable(),
  scopes: z.array(z.string()),
  /** The member the node's owner acts through. */
  owner: z.boolean(),
});
export type Member = z.output<typeof Member>;

/** A scope, what it grants, and whether members get it by default. */
export const ScopeDescription = z.object({ scope: TeamScope, grants: z.string(), default: z.boolean() });
export type ScopeDescription = z.output<typeof ScopeDescription>;

/**
 * A member certificate in the owner's listing, with its presence: `agent_id` is the
 * identity whose workspace uses this certificate (null when none connected with it via
 * `POST /v1/connect`); `online` as on `GET /v1/agents` (never for a revoked certificate);
 * `last_seen` the last sign of life (a heartbeat, a stream, the connect), null when none.
 */
export const ListedMember = Member.extend({ agent_id: z.string().nullable(), online: z.boolean(), last_seen: z.string().nullable() });
export type ListedMember = z.output<typeof ListedMember>;

/** `GET /v1/node/teams/{team_id}/members`: ours adds the scopes a certificate may hold, so whoever issues one sees the choices. */
export const MemberList = z.object({ team_id: z.string(), members: z.array(ListedMember), available_scopes: z.array(ScopeDescription) });
export type MemberList = z.output<typeof MemberList>;

/** A member certificate, signed by the team key (upstream's format). */
export const TeamCertificate = z.object({
  version: z.literal(1),
  certificate_id: z.string(),
  team_id: z.string(),
  team_did_key: z.string(),
  member_did_key: z.string(),
  member_did_aw: z.string().optional(),
  member_address: z.string().optional(),
  alias: z.string(),
  lifetime: CertificateLifetime,
  issued_at: z.string(),
  signature: z.string(),
});

/** `POST /v1/node/teams/{team_id}/members`: the certificate, and the same base64 for a header. */
export const IssuedCertificate = z.object({ certificate: TeamCertificate, certificate_b64: z.string() });
export type IssuedCertificate = z.output<typeof IssuedCertificate>;

/** Revoking also closes the editable present links the certificate minted. */
export const Revoked = z.object({ revoked: z.literal(true), certificate_id: z.string(), revoked_at: z.string(), closed_present_links: z.number().int() });
export type Revoked = z.output<typeof Revoked>;
