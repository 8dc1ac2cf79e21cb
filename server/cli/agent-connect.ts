/**
 * The agent connects with its certificate (`POST /v1/connect`, envelope v2 signed with its own
 * key) and writes the workspace files its tools read (agent-workspace.ts). `team join` does it
 * right after joining; `svc-node team connect <core_url>` does it again from what a join left in
 * the directory (a join whose connect failed: the code is spent, the certificate is there).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { buildTeamHeaders } from '../auth/team-envelope-client.ts';
import { encodeCertificate } from '../crypto/team-certificate.ts';
import { signBytes } from '../crypto/ed25519.ts';
import type { Connected } from '../../contract/core/team.ts';
import type { IssuedCertificate } from '../../contract/node/teams.ts';
import { loadAgentKey, type AgentKey } from './agent-key.ts';
import { writeAgentWorkspace } from './agent-workspace.ts';
import { CliError, detailLines } from './owner-client.ts';
import { print } from './output.ts';

export const USAGE_CONNECT = 'usage: svc-node team connect <core_url> [--dir DIR (default .aw)] [--team <team_id>] [--json]';

type Certificate = IssuedCertificate['certificate'];

/** Where a certificate is kept, relative to the directory (upstream's name for it). */
export function certificateFile(teamId: string): string {
  const [name, domain] = teamId.split(':');
  return join('team-certs', `${name}__${domain}.pem`);
}

export interface AgentConnection {
  connected: Connected;
  files: string[];
}

/** Connects as the certificate's member and writes the workspace files. */
export async function connectAgent(coreUrl: string, dir: string, agent: AgentKey, certificate: Certificate): Promise<AgentConnection> {
  const target = new URL(`${coreUrl}/v1/connect`);
  const body = JSON.stringify({ hostname: hostname(), workspace_path: resolve(dir, '..') });
  const headers = buildTeamHeaders({
    method: 'POST',
    path: target.pathname,
    body,
    aud: target.origin,
    teamId: certificate.team_id,
    certificateB64: encodeCertificate(JSON.stringify(certificate)),
    didKey: agent.didKey,
    sign: (bytes) => signBytes(agent.key, bytes),
  });
  const retry = `svc-node team connect ${coreUrl} --dir ${dir} --team ${certificate.team_id}`;
  let response: Response;
  try {
    response = await fetch(target, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  } catch {
    throw new CliError(`no answer at ${target.href} to connect; the certificate is kept: run \`${retry}\` when the node is reachable`);
  }
  const payload = (await response.json().catch(() => ({}))) as Connected & { detail?: unknown };
  if (!response.ok) {
    throw new CliError(`connecting failed (${response.status}): ${detailLines(payload.detail, response.statusText)}; the certificate is kept: fix that, then run \`${retry}\``);
  }
  const files = writeAgentWorkspace(dir, {
    teamId: certificate.team_id,
    alias: certificate.alias,
    certPath: certificateFile(certificate.team_id),
    joinedAt: certificate.issued_at,
    workspaceId: payload.workspace_id,
    coreUrl,
    didKey: agent.didKey,
    didAw: payload.did_aw,
    address: payload.address,
  });
  return { connected: payload, files };
}

/** The certificate for `teamId` in the directory, or its only one. */
function keptCertificate(dir: string, teamId: string | undefined): Certificate {
  const certs = join(dir, 'team-certs');
  let names: string[];
  try {
    names = readdirSync(certs).filter((name) => name.endsWith('.pem'));
  } catch {
    throw new CliError(`no certificates in ${certs}: join first (svc-node team join <join_url> <code> --dir ${dir})`);
  }
  const all = names.map((name) => JSON.parse(readFileSync(join(certs, name), 'utf8')) as Certificate);
  const matching = teamId === undefined ? all : all.filter((c) => c.team_id === teamId);
  if (matching.length === 1) return matching[0]!;
  if (matching.length === 0) throw new CliError(`no certificate${teamId === undefined ? '' : ` for ${teamId}`} in ${certs}`);
  throw new CliError(`several certificates in ${certs} (${matching.map((c) => c.team_id).join(', ')}): name one with --team`);
}

/** `svc-node team connect <core_url>`: connects again with what a join left in the directory. */
export async function teamConnect(json: boolean, flags: { dir?: string | undefined; team?: string | undefined }, coreUrl?: string): Promise<void> {
  if (!coreUrl) throw new CliError(USAGE_CONNECT);
  const dir = flags.dir ?? '.aw';
  const agent = loadAgentKey(dir);
  const certificate = keptCertificate(dir, flags.team);
  if (certificate.member_did_key !== agent.didKey) throw new CliError(`the certificate for ${certificate.team_id} names ${certificate.member_did_key}, not the key in ${agent.path}`);
  const { connected, files } = await connectAgent(coreUrl.replace(/\/+$/, ''), dir, agent, certificate);
  const text = `connected to ${certificate.team_id} as ${certificate.alias}: agent ${connected.agent_id}, workspace ${connected.workspace_id}; wrote ${files.join(', ')}`;
  return print({ team_id: certificate.team_id, agent_id: connected.agent_id, workspace_id: connected.workspace_id, files }, json, text);
}
