/**
 * The certificate an agent is handed when it joins, checked before anything of it is saved or
 * used: the node that answers is the one the invite line names, which the agent has no reason to
 * trust yet. A certificate is taken only when it is what this client asked for:
 *
 * - its names follow the contract's rules (a team id is `<name>:<domain>`, an address name and a
 *   namespace domain; an alias is what an invite takes), so none can climb out of a directory or
 *   carry anything but a name;
 * - it is signed by the team key it names (`team_did_key`, the key the node presents), over the
 *   whole document, as every verifier of it checks (server/crypto/team-certificate.ts);
 * - it names the key this client holds (and the did:svc it named, if it named one), and the
 *   alias and team the user expects when they said which.
 *
 * Where it is kept, `team-certs/<name>__<domain>.pem` under the agent's directory (upstream's
 * name for it), is built from the checked team id and checked again to stay in that folder.
 */
import { basename, dirname, join, resolve } from 'node:path';
import { ADDRESS_NAME, normalizeDomainName } from '../../contract/core-rules.ts';
import { InviteBody, TeamCertificate as CertificateSchema, type IssuedCertificate } from '../../contract/node/teams.ts';
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyCertificateSignature, type TeamCertificate } from '../crypto/team-certificate.ts';
import { CliError } from './cli-error.ts';
import { terminalText } from './output.ts';

export type Certificate = IssuedCertificate['certificate'];

/** What the client knows the certificate must say. */
export interface ExpectedCertificate {
  /** The did:key of the key this client holds (and signed the join with). */
  didKey: string;
  /** The did:svc the client named on joining; a certificate naming another (or one it did not name) is refused. */
  didAw?: string | undefined;
  /** The alias the user expects (`--alias`, as the invite line names it). */
  alias?: string | undefined;
  /** The team the user expects (`--team`). */
  teamId?: string | undefined;
}

const TEAM_ID_RULE = 'a team id is <name>:<domain>, a name of 1-64 letters, digits, "-" or "_" and a lower-case domain name';

/** The name and domain of a team id, or null when it breaks the contract's rules. */
function teamIdParts(teamId: string): { name: string; domain: string } | null {
  const parts = teamId.split(':');
  if (parts.length !== 2) return null;
  const [name, domain] = parts as [string, string];
  if (!ADDRESS_NAME.test(name) || normalizeDomainName(domain) !== domain) return null;
  return { name, domain };
}

/** Shown in a message: the node's text, terminal-safe and short. */
const shown = (value: unknown): string =>
  terminalText(typeof value === 'string' ? value : ((JSON.stringify(value) as string | undefined) ?? String(value)), 120);

/** Where a certificate is kept, relative to the directory (upstream's name for it); only for a valid team id. */
export function certificateFile(teamId: string): string {
  const parts = teamIdParts(teamId);
  if (parts === null) throw new CliError(`the team id ${shown(teamId)} is not one (${TEAM_ID_RULE})`);
  return join('team-certs', `${parts.name}__${parts.domain}.pem`);
}

/** The absolute path of the certificate file in `dir`, which must be directly in its team-certs folder. */
export function certificatePath(dir: string, teamId: string): string {
  const folder = resolve(dir, 'team-certs');
  const path = resolve(dir, certificateFile(teamId));
  if (dirname(path) !== folder || basename(path).startsWith('.'))
    throw new CliError(`the certificate for ${shown(teamId)} would be written outside ${folder}; nothing was saved`);
  return path;
}

/**
 * `value` as a certificate for `expected`, or a CliError saying why it is not one. `source` says
 * where it came from, for the message ("the node at …", a file).
 */
export function verifiedCertificate(value: unknown, expected: ExpectedCertificate, source: string): Certificate {
  const refuse = (why: string): never => {
    throw new CliError(`${source} gave a certificate this client does not accept: ${why}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse('it is not a certificate document');
  const parsed = CertificateSchema.safeParse(value);
  if (!parsed.success)
    return refuse(
      `it is not a team certificate (${parsed.error.issues
        .map((i) => `${i.path.join('.') || 'document'}: ${i.message}`)
        .slice(0, 3)
        .join('; ')})`,
    );
  // The document as received (unknown keys included: the signature covers them), typed by the schema's check.
  const cert = value as Certificate;
  if (teamIdParts(cert.team_id) === null) return refuse(`the team id ${shown(cert.team_id)} is not one (${TEAM_ID_RULE})`);
  if (!InviteBody.shape.alias.safeParse(cert.alias).success)
    return refuse(`the alias ${shown(cert.alias)} is not one (1-128 letters, digits, ".", "-" or "_")`);
  if (cert.member_did_key !== expected.didKey) return refuse(`it is for the key ${shown(cert.member_did_key)}, not this client's ${expected.didKey}`);
  if (cert.member_did_aw !== expected.didAw) {
    return refuse(
      expected.didAw === undefined
        ? `it names the did:svc ${shown(cert.member_did_aw)}, which this client did not ask for`
        : `it names ${shown(cert.member_did_aw ?? 'no did:svc')}, not ${expected.didAw}`,
    );
  }
  if (expected.alias !== undefined && cert.alias !== expected.alias) return refuse(`it is for the alias ${shown(cert.alias)}, not ${expected.alias}`);
  if (expected.teamId !== undefined && cert.team_id !== expected.teamId) return refuse(`it is for the team ${shown(cert.team_id)}, not ${expected.teamId}`);
  const teamKey = publicKeyFromDidKey(cert.team_did_key);
  if (teamKey === null) return refuse(`its team key ${shown(cert.team_did_key)} is not an Ed25519 did:key`);
  if (!verifyCertificateSignature(value as TeamCertificate, teamKey)) return refuse(`it is not signed by the team key it names (${cert.team_did_key})`);
  return cert;
}
