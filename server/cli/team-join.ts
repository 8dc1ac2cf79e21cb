/**
 * Onboarding an agent that holds its own key. The owner runs `svc-node team invite` and hands
 * the printed line to the agent; the agent runs it (`<this node's node> <its bin/svc-node.js> team
 * join <join_url> <code>`, self-command.ts: no install, no PATH) in the folder it works in: it generates (or reuses) its Ed25519 key there, signs the code with it, and
 * receives its certificate (server/teams/invites.ts). The key never leaves the agent's machine.
 *
 * It then connects (agent-connect.ts) and leaves everything the agent's own tools need, in
 * upstream's layout under --dir (default `.aw`, upstream's client directory): `signing.key`
 * (agent-key.ts; reused when present), `team-certs/<name>__<domain>.pem` (the certificate as
 * JSON), and the workspace files (agent-workspace.ts).
 *
 * The node that answers is not trusted until its answer checks out: the request goes through the
 * guarded client (node-request.ts: never a redirect, a time budget, a size cap), the certificate
 * is checked before a byte of it is written (agent-certificate.ts), and the node's words are
 * printed terminal-safe (output.ts). `--alias` (the alias the owner invited) makes sure the
 * certificate is for it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { signingTimestamp } from '../clock.ts';
import { signBytes } from '../crypto/ed25519.ts';
import { toBase64Url } from '../crypto/encoding.ts';
import { encodeCertificate } from '../crypto/team-certificate.ts';
import { joinPayload } from '../teams/invites.ts';
import { certificatePath, verifiedCertificate } from './agent-certificate.ts';
import { connectAgent } from './agent-connect.ts';
import { loadOrCreateAgentKey } from './agent-key.ts';
import { AGENT_BUDGET, askNode, httpUrl } from './node-request.ts';
import { CliError, detailLines, detailOf, ownerRequest } from './owner-client.ts';
import { print, shellCommand, terminalText } from './output.ts';
import { JOIN_ELSEWHERE, joinCommandLine, type TeamInvite } from '../../contract/node/teams.ts';

export const USAGE_INVITE =
  'usage: svc-node team invite <team_id> --alias <alias> [--lifetime persistent|ephemeral] [--address <domain/name>] [--expires-in SECONDS] [--json]';
export const USAGE_JOIN = 'usage: svc-node team join <join_url> <code> [--dir DIR (default .aw)] [--alias <alias>] [--did-aw <did:svc:...>] [--json]';

/** Where a join URL ends (`<core_url>/v1/team/join`): what precedes it is the node's core URL. */
const JOIN_PATH = '/v1/team/join';

/** The owner's step: a one-time code, and the one line the agent runs. */
export async function invite(
  dataDir: string,
  json: boolean,
  flags: { alias?: string | undefined; lifetime?: string | undefined; address?: string | undefined; 'expires-in'?: string | undefined },
  teamId?: string,
): Promise<void> {
  if (!teamId || !flags.alias) throw new CliError(USAGE_INVITE);
  const expires = flags['expires-in'] === undefined ? undefined : Number(flags['expires-in']);
  if (expires !== undefined && !Number.isInteger(expires)) throw new CliError(`--expires-in must be whole seconds\n${USAGE_INVITE}`);
  const body = {
    alias: flags.alias,
    ...(flags.lifetime ? { lifetime: flags.lifetime } : {}),
    ...(flags.address ? { address: flags.address } : {}),
    ...(expires === undefined ? {} : { expires_in_seconds: expires }),
  };
  const made = await ownerRequest<TeamInvite>(dataDir, 'POST', `/v1/node/teams/${encodeURIComponent(teamId)}/invites`, body);
  const command = joinCommandLine(made);
  const text = [
    `invite for ${made.alias} (${made.lifetime}${made.address === null ? '' : `, ${made.address}`}) in ${made.team_id}, works once until ${made.expires_at}.`,
    made.cli === undefined
      ? 'The agent runs, in the folder it works in (its key is generated there and never sent; it needs svc-node on its PATH):'
      : "The agent runs, in the folder it works in on this computer (this node's own svc-node: nothing to install; its key is generated there and never sent):",
    '',
    `  ${command}`,
    '',
    "It connects and writes .aw/ there (its key, its certificate, and the workspace files upstream's CLI and channel client read).",
    JOIN_ELSEWHERE,
    `An agent with its own client instead signs {type: "svc.team.join", code, did_key, timestamp} and POSTs it to ${made.join_url}.`,
    `Or it sends you its did:key and you run: ${shellCommand('svc-node', 'team', 'add-member', made.team_id)} --did-key <did:key> ${shellCommand('--alias', made.alias)}`,
  ].join('\n');
  return print({ ...made, command }, json, text);
}

/** The agent's step: its own key, the code signed with it, its certificate; then it connects. */
export async function joinTeam(
  json: boolean,
  flags: { dir?: string | undefined; 'did-aw'?: string | undefined; alias?: string | undefined },
  joinUrl?: string,
  code?: string,
): Promise<void> {
  if (!joinUrl || !code) throw new CliError(USAGE_JOIN);
  const target = httpUrl(joinUrl, 'the join URL');
  const dir = flags.dir ?? '.aw';
  const agent = loadOrCreateAgentKey(dir);
  const timestamp = signingTimestamp({ now: () => new Date() });
  const didAw = flags['did-aw'] || undefined;
  const signature = toBase64Url(signBytes(agent.key, joinPayload(code, agent.didKey, timestamp, didAw)));
  const body = JSON.stringify({ code, did_key: agent.didKey, ...(didAw === undefined ? {} : { did_aw: didAw }), timestamp, signature });
  const answer = await askNode(target, { method: 'POST', json: body }, AGENT_BUDGET);
  if (!answer.ok) throw new CliError(`join failed (${answer.status}): ${detailLines(detailOf(answer.body), answer.statusText)}`);
  const source = `the node at ${target.href}`;
  const issued = typeof answer.body === 'object' && answer.body !== null ? (answer.body as { certificate?: unknown }) : {};
  // Checked before anything is written: the names, the team's signature, this key, the alias asked for.
  const certificate = verifiedCertificate(issued.certificate, { didKey: agent.didKey, didAw, alias: flags.alias || undefined }, source);
  const certPath = certificatePath(dir, certificate.team_id);
  mkdirSync(dirname(certPath), { recursive: true });
  writeFileSync(certPath, `${JSON.stringify(certificate, null, 2)}\n`);

  // Connected at once, so the agent's own tools (upstream's CLI and channel) start from here.
  const coreUrl = joinUrl.endsWith(JOIN_PATH) ? joinUrl.slice(0, -JOIN_PATH.length) : target.origin;
  const { connected, files } = await connectAgent(coreUrl, dir, agent, certificate);
  const text = [
    `joined ${certificate.team_id} as ${certificate.alias} (${agent.didKey})`,
    `certificate ${terminalText(certificate.certificate_id)} in ${certPath}; key in ${agent.path}`,
    `connected: agent ${terminalText(connected.agent_id)}, workspace ${terminalText(connected.workspace_id)}; wrote ${files.join(', ')}`,
  ].join('\n');
  const certificate_b64 = encodeCertificate(JSON.stringify(certificate));
  const result = {
    certificate,
    certificate_b64,
    did_key: agent.didKey,
    certificate_path: certPath,
    agent_id: connected.agent_id,
    workspace_id: connected.workspace_id,
    files,
  };
  return print(result, json, text);
}
