/**
 * Onboarding an agent that holds its own key (issue 17). The owner runs `svc-node team invite`
 * and hands the printed line to the agent; the agent runs `svc-node team join <join_url> <code>`
 * on its own machine: it generates (or reuses) its Ed25519 key there, signs the code with it, and
 * receives its certificate (server/teams/invites.ts). The key never leaves the agent's machine.
 *
 * Files, in upstream's layout under --dir (default `.aw`, the upstream client's working directory):
 * `signing.key` (PEM "ED25519 PRIVATE KEY" holding the base64 seed; reused when present, 0600)
 * and `team-certs/<name>__<domain>.pem` (the certificate as JSON).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signingTimestamp } from '../clock.ts';
import { didKeyFromPublicKey } from '../crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes, SEED_LENGTH } from '../crypto/ed25519.ts';
import { toBase64Url } from '../crypto/encoding.ts';
import { joinPayload } from '../teams/invites.ts';
import { CliError, detailLines, ownerRequest } from './owner-client.ts';
import { print } from './output.ts';
import type { IssuedCertificate, TeamInvite } from '../../contract/node/teams.ts';

export const USAGE_INVITE = 'usage: svc-node team invite <team_id> --alias <alias> [--lifetime persistent|ephemeral] [--expires-in SECONDS] [--json]';
export const USAGE_JOIN = 'usage: svc-node team join <join_url> <code> [--dir DIR (default .aw)] [--json]';

const PEM_LABEL = 'ED25519 PRIVATE KEY';

/** The owner's step: a one-time code, and the one line the agent runs. */
export async function invite(dataDir: string, json: boolean, flags: { alias?: string | undefined; lifetime?: string | undefined; 'expires-in'?: string | undefined }, teamId?: string): Promise<void> {
  if (!teamId || !flags.alias) throw new CliError(USAGE_INVITE);
  const expires = flags['expires-in'] === undefined ? undefined : Number(flags['expires-in']);
  if (expires !== undefined && !Number.isInteger(expires)) throw new CliError(`--expires-in must be whole seconds\n${USAGE_INVITE}`);
  const body = { alias: flags.alias, ...(flags.lifetime ? { lifetime: flags.lifetime } : {}), ...(expires === undefined ? {} : { expires_in_seconds: expires }) };
  const made = await ownerRequest<TeamInvite>(dataDir, 'POST', `/v1/node/teams/${encodeURIComponent(teamId)}/invites`, body);
  const command = `svc-node team join ${made.join_url} ${made.code}`;
  const text = [
    `invite for ${made.alias} (${made.lifetime}) in ${made.team_id}, works once until ${made.expires_at}.`,
    'The agent runs, on its own machine (its key is generated there and never sent):',
    '',
    `  ${command}`,
    '',
    'It writes .aw/signing.key and .aw/team-certs/ there, and the agent connects with them (POST /v1/connect).',
    `An agent with its own client instead signs {type: "svc.team.join", code, did_key, timestamp} and POSTs it to ${made.join_url}.`,
    `Or it sends you its did:key and you run: svc-node team add-member ${made.team_id} --did-key <did:key> --alias ${made.alias}`,
  ].join('\n');
  return print({ ...made, command }, json, text);
}

/** The agent's step: its own key, the code signed with it, its certificate. */
export async function joinTeam(json: boolean, flags: { dir?: string | undefined }, joinUrl?: string, code?: string): Promise<void> {
  if (!joinUrl || !code) throw new CliError(USAGE_JOIN);
  const dir = flags.dir ?? '.aw';
  const seed = loadOrCreateSeed(join(dir, 'signing.key'));
  const key = privateKeyFromSeed(seed);
  const didKey = didKeyFromPublicKey(rawPublicKey(key));
  const timestamp = signingTimestamp({ now: () => new Date() });
  const signature = toBase64Url(signBytes(key, joinPayload(code, didKey, timestamp)));
  let response: Response;
  try {
    response = await fetch(joinUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, did_key: didKey, timestamp, signature }) });
  } catch {
    throw new CliError(`no answer at ${joinUrl}`);
  }
  const payload = (await response.json().catch(() => ({}))) as IssuedCertificate & { detail?: unknown };
  if (!response.ok) throw new CliError(`join failed (${response.status}): ${detailLines(payload.detail, response.statusText)}`);
  const { certificate, certificate_b64 } = payload;
  const [name, domain] = certificate.team_id.split(':');
  const certPath = join(dir, 'team-certs', `${name}__${domain}.pem`);
  mkdirSync(join(dir, 'team-certs'), { recursive: true });
  writeFileSync(certPath, `${JSON.stringify(certificate, null, 2)}\n`);
  const text = `joined ${certificate.team_id} as ${certificate.alias} (${didKey})\ncertificate ${certificate.certificate_id} in ${certPath}; key in ${join(dir, 'signing.key')}`;
  return print({ certificate, certificate_b64, did_key: didKey, certificate_path: certPath }, json, text);
}

function loadOrCreateSeed(path: string): Buffer {
  if (existsSync(path)) {
    const body = readFileSync(path, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
    const seed = Buffer.from(body, 'base64');
    if (seed.length !== SEED_LENGTH) throw new CliError(`${path} does not hold an Ed25519 seed`);
    return seed;
  }
  const seed = randomBytes(SEED_LENGTH);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `-----BEGIN ${PEM_LABEL}-----\n${seed.toString('base64')}\n-----END ${PEM_LABEL}-----\n`, { mode: 0o600 });
  return seed;
}
