/**
 * `svc-node team ...` (DESIGN §4): the owner's team commands, thin over the owner API. The --json
 * shapes of create and add-member are contracts: exactly {team_id, team_did_key} and
 * {certificate, certificate_b64}.
 */
import { CliError, ownerRequest } from './owner-client.ts';
import { print } from './output.ts';
import { invite, joinTeam } from './team-join.ts';
import type { IssuedCertificate, Member, MemberList, Revoked, Team } from '../../contract/node/teams.ts';

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
}

const USAGE = {
  create: 'usage: svc-node team create <name> --domain <domain> [--json]',
  addMember:
    'usage: svc-node team add-member <team_id> --did-key <did:key> --alias <alias> [--lifetime persistent] [--did-aw <did:svc:...>] [--address <domain/name>] [--scope S ...] [--json]',
  revoke: 'usage: svc-node team revoke <team_id> <certificate_id> [--json]',
  members: 'usage: svc-node team members <team_id> [--json]',
  any: 'usage: svc-node team create|add-member|invite|join|revoke|list|members ... (see svc-node --help)',
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
      const { certificate, certificate_b64 } = await ownerRequest<IssuedCertificate>(
        dataDir,
        'POST',
        `${teamPath(arg)}/members`,
        body,
      );
      const text = `certificate ${certificate.certificate_id} for ${certificate.alias} in ${arg}\n${certificate_b64}`;
      return print({ certificate, certificate_b64 }, json, text);
    }
    case 'invite':
      return invite(dataDir, json, flags, arg);
    case 'join':
      return joinTeam(json, flags, arg, arg2);
    case 'revoke': {
      if (!arg || !arg2) throw new CliError(USAGE.revoke);
      const result = await ownerRequest<Revoked>(
        dataDir,
        'POST',
        `${teamPath(arg)}/members/${encodeURIComponent(arg2)}/revoke`,
      );
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
      const line = (m: Member) =>
        `${m.certificate_id}  ${m.alias}  ${m.lifetime}  [${m.scopes.join(',')}]  ${m.revoked_at ? `revoked ${m.revoked_at}` : 'active'}  ${m.member_did_key}`;
      const width = Math.max(...result.available_scopes.map((s) => s.scope.length));
      const scopes = result.available_scopes.map((s) => `  ${s.scope.padEnd(width)}  ${s.default ? '(default) ' : ''}${s.grants}`);
      const text = [result.members.map(line).join('\n') || 'no members', '', 'scopes (add-member --scope S, repeatable):', ...scopes].join('\n');
      return print(result, json, text);
    }
    default:
      throw new CliError(USAGE.any);
  }
}
