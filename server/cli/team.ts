/**
 * `svc-node team ...` (DESIGN §4): the owner's team commands, thin over the owner API. The --json
 * shapes of create and add-member are contracts: exactly {team_id, team_did_key} and
 * {certificate, certificate_b64}.
 */
import { CliError, ownerRequest } from './owner-client.ts';
import { print } from './output.ts';
import { teamConnect } from './agent-connect.ts';
import { invite, joinTeam } from './team-join.ts';
import type { InviteCancelled, InviteList, IssuedCertificate, ListedMember, MemberList, Revoked, Team } from '../../contract/node/teams.ts';

export interface TeamFlags {
  domain?: string | undefined;
  'did-key'?: string | undefined;
  alias?: string | undefined;
  lifetime?: string | undefined;
  'did-aw'?: string | undefined;
  address?: string | undefined;
  scope?: string[] | undefined;
  'expires-in'?: string | undefined;
  dir?: string | undefined;
  team?: string | undefined;
}

const USAGE = {
  create: 'usage: svc-node team create <name> --domain <domain> [--json]',
  addMember:
    'usage: svc-node team add-member <team_id> --did-key <did:key> --alias <alias> [--lifetime persistent] [--did-aw <did:svc:...>] [--address <domain/name>] [--scope S ...] [--json]',
  revoke: 'usage: svc-node team revoke <team_id> <certificate_id> [--json]',
  members: 'usage: svc-node team members <team_id> [--json]',
  invites: 'usage: svc-node team invites <team_id> [--json]',
  cancelInvite: 'usage: svc-node team cancel-invite <team_id> <invite_id> [--json]',
  any: 'usage: svc-node team create|add-member|invite|invites|cancel-invite|join|connect|revoke|list|members ... (see svc-node --help)',
};

const teamPath = (teamId: string): string => `/v1/node/teams/${encodeURIComponent(teamId)}`;

export async function team(dataDir: string, json: boolean, flags: TeamFlags, sub?: string, arg?: string, arg2?: string): Promise<void> {
  switch (sub) {
    case 'create': {
      if (!arg || !flags.domain) throw new CliError(USAGE.create);
      const { team_id, team_did_key } = await ownerRequest<Team>(dataDir, 'POST', '/v1/node/teams', { name: arg, domain: flags.domain });
      return print({ team_id, team_did_key }, json, `team ${team_id}, team key ${team_did_key}`);
    }
    case 'add-member': {
      if (!arg || !flags['did-key'] || !flags.alias) throw new CliError(USAGE.addMember);
      const body = {
        did_key: flags['did-key'],
        alias: flags.alias,
        ...(flags.lifetime ? { lifetime: flags.lifetime } : {}),
        ...(flags['did-aw'] ? { did_aw: flags['did-aw'] } : {}),
        ...(flags.address ? { address: flags.address } : {}),
        ...(flags.scope ? { scopes: flags.scope } : {}),
      };
      const { certificate, certificate_b64 } = await ownerRequest<IssuedCertificate>(dataDir, 'POST', `${teamPath(arg)}/members`, body);
      const text = `certificate ${certificate.certificate_id} for ${certificate.alias} in ${arg}\n${certificate_b64}`;
      return print({ certificate, certificate_b64 }, json, text);
    }
    case 'invite':
      return invite(dataDir, json, flags, arg);
    case 'join':
      return joinTeam(json, flags, arg, arg2);
    case 'connect':
      return teamConnect(json, flags, arg);
    case 'revoke': {
      if (!arg || !arg2) throw new CliError(USAGE.revoke);
      const result = await ownerRequest<Revoked>(dataDir, 'POST', `${teamPath(arg)}/members/${encodeURIComponent(arg2)}/revoke`);
      return print(result, json, `revoked ${result.certificate_id} at ${result.revoked_at}; closed ${result.closed_present_links} editable present link(s)`);
    }
    case 'list': {
      const result = await ownerRequest<{ teams: Team[] }>(dataDir, 'GET', '/v1/node/teams');
      const text = result.teams.map((t) => `${t.team_id}  ${t.team_did_key}  ${t.member_count} active`).join('\n') || 'no teams';
      return print(result, json, text);
    }
    case 'members': {
      if (!arg) throw new CliError(USAGE.members);
      const result = await ownerRequest<MemberList>(dataDir, 'GET', `${teamPath(arg)}/members`);
      const width = Math.max(...result.available_scopes.map((s) => s.scope.length));
      const scopes = result.available_scopes.map((s) => `  ${s.scope.padEnd(width)}  ${s.default ? '(default) ' : ''}${s.grants}`);
      const text = [result.members.map(memberLine).join('\n') || 'no members', '', 'scopes (add-member --scope S, repeatable):', ...scopes].join('\n');
      return print(result, json, text);
    }
    case 'invites': {
      if (!arg) throw new CliError(USAGE.invites);
      const result = await ownerRequest<InviteList>(dataDir, 'GET', `${teamPath(arg)}/invites`);
      const text = result.invites.map((i) => `${i.invite_id}  ${i.alias}  ${i.lifetime}  until ${i.expires_at}`).join('\n') || 'no pending invites';
      return print(result, json, text);
    }
    case 'cancel-invite': {
      if (!arg || !arg2) throw new CliError(USAGE.cancelInvite);
      const result = await ownerRequest<InviteCancelled>(dataDir, 'DELETE', `${teamPath(arg)}/invites/${encodeURIComponent(arg2)}`);
      return print(result, json, `cancelled invite ${result.invite_id} at ${result.cancelled_at}`);
    }
    default:
      throw new CliError(USAGE.any);
  }
}

/** Presence first, as the owner scans the list for who is working: online, or when last seen. */
function presenceOf(m: ListedMember): string {
  if (m.revoked_at) return `revoked ${m.revoked_at}`;
  if (m.online) return 'online';
  if (m.agent_id === null) return 'not connected';
  return m.last_seen ? `offline, last seen ${m.last_seen}` : 'offline';
}

function memberLine(m: ListedMember): string {
  const owner = m.owner ? ' (owner)' : '';
  return `${m.certificate_id}  ${m.alias}${owner}  ${m.lifetime}  ${presenceOf(m)}  [${m.scopes.join(',')}]  ${m.member_did_key}`;
}
