/**
 * The agent connects with its certificate (`POST /v1/connect`, envelope v2 signed with its own
 * key) and writes the workspace files its tools read (agent-workspace.ts). `team join` does it
 * right after joining; `svc-node team connect <core_url>` does it again from what a join left in
 * the directory (a join whose connect failed: the code is spent, the certificate is there).
 *
 * As with joining, the node's answer is checked before it is written anywhere: it must be the
 * connection of this certificate's member (its team, alias and key), in the contract's shape.
 * A kept certificate is checked again before it is used (an older client may have written it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { buildTeamHeaders } from '../auth/team-envelope-client.ts';
import { encodeCertificate } from '../crypto/team-certificate.ts';
import { signBytes } from '../crypto/ed25519.ts';
import { Connected } from '../../contract/core/team.ts';
import { ADDRESS_NAME, normalizeDomainName } from '../../contract/core-rules.ts';
import { certificateFile, verifiedCertificate, type Certificate } from './agent-certificate.ts';
import { loadAgentKey, type AgentKey } from './agent-key.ts';
import { writeAgentWorkspace } from './agent-workspace.ts';
import { AGENT_BUDGET, askNode, httpUrl } from './node-request.ts';
import { CliError, detailLines, detailOf } from './owner-client.ts';
import { print, shellCommand, terminalText } from './output.ts';

export const USAGE_CONNECT = 'usage: svc-node team connect <core_url> [--dir DIR (default .aw)] [--team <team_id>] [--json]';

export interface AgentConnection {
  connected: Connected;
  files: string[];
}

/** `<domain>/<name>` by the contract's rules (a namespace domain as stored, an address name). */
function isAddress(address: string): boolean {
  const slash = address.indexOf('/');
  const domain = address.slice(0, slash);
  return slash > 0 && normalizeDomainName(domain) === domain && ADDRESS_NAME.test(address.slice(slash + 1));
}

/** The node's answer as the connection of `certificate`'s member, or a CliError saying why it is not. */
function checkedConnection(body: unknown, certificate: Certificate, didKey: string, where: string): Connected {
  const parsed = Connected.safeParse(body);
  const refuse = (why: string): never => {
    throw new CliError(`${where} answered the connect with ${why}; nothing was written`);
  };
  if (!parsed.success) return refuse('something that is not a connection');
  const connected = parsed.data;
  if (connected.team_id !== certificate.team_id || connected.alias !== certificate.alias || connected.did_key !== didKey) {
    return refuse(`the connection of another member (${terminalText(`${connected.alias} in ${connected.team_id}`, 200)})`);
  }
  // The identity a certificate makes is persistent with the did:svc it names, or has none.
  if (connected.did_aw !== (certificate.member_did_aw ?? null)) return refuse(`another did:svc (${terminalText(String(connected.did_aw), 120)})`);
  if (connected.address !== null && !isAddress(connected.address)) return refuse(`an address that is not one (${terminalText(connected.address, 120)})`);
  return connected;
}

/** Connects as the certificate's member and writes the workspace files. */
export async function connectAgent(coreUrl: string, dir: string, agent: AgentKey, certificate: Certificate): Promise<AgentConnection> {
  const retry = shellCommand('svc-node', 'team', 'connect', coreUrl, '--dir', dir, '--team', certificate.team_id);
  const kept = `the certificate is kept: run \`${retry}\``;
  const target = httpUrl(`${coreUrl}/v1/connect`, 'the core URL');
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
  const answer = await askNode(
    target,
    { method: 'POST', json: body, headers },
    AGENT_BUDGET,
    (reason) => `${reason} to connect; ${kept} when the node is reachable`,
  );
  if (!answer.ok) {
    throw new CliError(`connecting failed (${answer.status}): ${detailLines(detailOf(answer.body), answer.statusText)}; ${kept} once that is fixed`);
  }
  const connected = checkedConnection(answer.body, certificate, agent.didKey, `the node at ${target.href}`);
  const files = writeAgentWorkspace(dir, {
    teamId: certificate.team_id,
    alias: certificate.alias,
    certPath: certificateFile(certificate.team_id),
    joinedAt: certificate.issued_at,
    workspaceId: connected.workspace_id,
    coreUrl,
    didKey: agent.didKey,
    didAw: connected.did_aw,
    address: connected.address,
  });
  return { connected, files };
}

/** The certificates in `folder` that parse as JSON, by file name; what is not JSON is no certificate. */
function readCertificates(folder: string, names: string[]): { name: string; value: unknown }[] {
  return names.flatMap((name) => {
    try {
      return [{ name, value: JSON.parse(readFileSync(join(folder, name), 'utf8')) as unknown }];
    } catch {
      return [];
    }
  });
}

const teamOf = (value: unknown): unknown => (typeof value === 'object' && value !== null ? (value as { team_id?: unknown }).team_id : undefined);

/** The certificate for `teamId` in the directory, or its only one, checked as a join checks it. */
function keptCertificate(dir: string, teamId: string | undefined, agent: AgentKey): Certificate {
  const certs = join(dir, 'team-certs');
  let names: string[];
  try {
    names = readdirSync(certs).filter((name) => name.endsWith('.pem'));
  } catch {
    throw new CliError(`no certificates in ${certs}: join first (${shellCommand('svc-node', 'team', 'join')} <join_url> <code> ${shellCommand('--dir', dir)})`);
  }
  const all = readCertificates(certs, names);
  const matching = teamId === undefined ? all : all.filter((c) => teamOf(c.value) === teamId);
  if (matching.length === 0) throw new CliError(`no certificate${teamId === undefined ? '' : ` for ${teamId}`} in ${certs}`);
  if (matching.length > 1)
    throw new CliError(
      `several certificates in ${certs} (${matching.map((c) => terminalText(String(teamOf(c.value)), 120)).join(', ')}): name one with --team`,
    );
  const { name, value } = matching[0]!;
  return verifiedCertificate(
    value,
    { didKey: agent.didKey, didAw: (value as Certificate).member_did_aw, teamId },
    `${join(certs, name)} (with the key in ${agent.path})`,
  );
}

/** `svc-node team connect <core_url>`: connects again with what a join left in the directory. */
export async function teamConnect(json: boolean, flags: { dir?: string | undefined; team?: string | undefined }, coreUrl?: string): Promise<void> {
  if (!coreUrl) throw new CliError(USAGE_CONNECT);
  httpUrl(coreUrl, 'the core URL');
  const dir = flags.dir ?? '.aw';
  const agent = loadAgentKey(dir);
  const certificate = keptCertificate(dir, flags.team, agent);
  const { connected, files } = await connectAgent(coreUrl.replace(/\/+$/, ''), dir, agent, certificate);
  const text = `connected to ${certificate.team_id} as ${certificate.alias}: agent ${terminalText(connected.agent_id)}, workspace ${terminalText(connected.workspace_id)}; wrote ${files.join(', ')}`;
  return print({ team_id: certificate.team_id, agent_id: connected.agent_id, workspace_id: connected.workspace_id, files }, json, text);
}
