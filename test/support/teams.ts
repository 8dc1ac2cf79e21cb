/**
 * Team members as a self-custodial client would be one: the node's owner creates the team and
 * issues a certificate over the owner API; the member keeps its own key and signs every request
 * with the team-auth envelope (server/auth/team-envelope-client.ts), sent over real HTTP.
 */
import { buildTeamHeaders, type TeamHeaders } from '../../server/auth/team-envelope-client.ts';
import type { JsonValue } from '../../server/crypto/canonical-json.ts';
import { privateKeyFromSeed, signBytes } from '../../server/crypto/ed25519.ts';
import type { TeamCertificate } from '../../server/crypto/team-certificate.ts';
import { testKey, type TestKey } from './keys.ts';
import { requestJson, type ApiResponse, type NodeEndpoint } from './node.ts';

export interface TeamRequestOptions {
  /** JSON-encoded and sent with Content-Type: application/json. */
  body?: unknown;
  /** Sent as-is (and signed as-is) instead of JSON-encoding `body`. */
  raw?: string | Buffer;
  contentType?: string;
  /** Extra headers; they override the signed ones (to test refusals). */
  headers?: Record<string, string>;
  /** Envelope overrides: another audience, timestamp or custom fields. */
  aud?: string;
  timestamp?: string;
  extra?: Record<string, JsonValue>;
}

export interface TeamClient {
  teamId: string;
  teamDidKey: string;
  alias: string;
  key: TestKey;
  certificateId: string;
  certificate: TeamCertificate;
  certificateB64: string;
  /** The four team-auth headers for one request (single use). */
  sign(method: string, path: string, body?: string | Buffer, options?: Omit<TeamRequestOptions, 'body' | 'raw' | 'headers'>): TeamHeaders;
  /** A signed request over real HTTP; the same `{status, body, headers}` as TestNode.request. */
  request<T = any>(method: string, path: string, options?: TeamRequestOptions): Promise<ApiResponse<T>>;
}

/**
 * Scope sets, spelled out here rather than taken from the server, so a test states what it needs.
 * MEMBER_SCOPES is what a certificate issued without scopes gets (server/teams/scopes.ts).
 */
export const MEMBER_SCOPES = ['docs:read', 'docs:write', 'library:read', 'library:write'];
/** Publishing to the public catalog: import, publish a profile, blueprint tags and delete. */
export const PUBLISHER_SCOPES = [...MEMBER_SCOPES, 'library:publish'];
/** Every scope there is, as the team's owner member holds them. */
export const ALL_SCOPES = [...MEMBER_SCOPES, 'library:publish', 'library:approve', 'team:admin'];

export interface AddTeamMemberOptions {
  /** Use this existing team... */
  teamId?: string;
  /** ...or create (or reuse, when it exists) the team `<team>:<domain>`. */
  team?: string;
  domain?: string;
  alias?: string;
  /** The certificate's scopes; absent: the node's default for a member (MEMBER_SCOPES). */
  scopes?: string[];
  lifetime?: 'persistent' | 'ephemeral';
  didAw?: string;
  address?: string;
  key?: TestKey;
}

let counter = 0;
const unique = (prefix: string): string => `${prefix}${++counter}-${process.pid}`;

/** Creates a team through the owner API (or finds it when it exists); returns its id and key. */
export async function createTeam(t: NodeEndpoint, name = unique('team'), domain = 'teams.test'): Promise<{ teamId: string; teamDidKey: string }> {
  const created = await t.owner('POST', '/v1/node/teams', { name, domain });
  if (created.status === 201) return { teamId: created.body.team_id, teamDidKey: created.body.team_did_key };
  const existing = await t.owner('GET', `/v1/node/teams/${encodeURIComponent(`${name}:${domain}`)}`);
  if (existing.status !== 200) throw new Error(`team create failed (${created.status}): ${JSON.stringify(created.body)}`);
  return { teamId: existing.body.team_id, teamDidKey: existing.body.team_did_key };
}

/** A fresh member key with a certificate in a (new or given) team, ready to sign requests. */
export async function addTeamMember(t: NodeEndpoint, options: AddTeamMemberOptions = {}): Promise<TeamClient> {
  const team = options.teamId
    ? { teamId: options.teamId, teamDidKey: (await t.owner('GET', `/v1/node/teams/${encodeURIComponent(options.teamId)}`)).body.team_did_key as string }
    : await createTeam(t, options.team, options.domain);
  const key = options.key ?? testKey();
  const alias = options.alias ?? unique('member');
  const added = await t.owner('POST', `/v1/node/teams/${encodeURIComponent(team.teamId)}/members`, {
    did_key: key.didKey,
    alias,
    ...(options.lifetime ? { lifetime: options.lifetime } : {}),
    ...(options.didAw ? { did_aw: options.didAw } : {}),
    ...(options.address ? { address: options.address } : {}),
    ...(options.scopes ? { scopes: options.scopes } : {}),
  });
  if (added.status !== 201) throw new Error(`add member failed (${added.status}): ${JSON.stringify(added.body)}`);
  const certificate = added.body.certificate as TeamCertificate;
  const certificateB64 = added.body.certificate_b64 as string;
  const privateKey = privateKeyFromSeed(key.seed);
  const aud = t.info.library_url;

  const sign: TeamClient['sign'] = (method, path, body, opts = {}) =>
    buildTeamHeaders({
      method,
      path,
      body,
      aud: opts.aud ?? aud,
      teamId: team.teamId,
      certificateB64,
      didKey: key.didKey,
      sign: (bytes) => signBytes(privateKey, bytes),
      timestamp: opts.timestamp,
      extra: opts.extra,
    });

  async function request<T>(method: string, path: string, opts: TeamRequestOptions = {}): Promise<ApiResponse<T>> {
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    const headers: Record<string, string> = { ...sign(method, path, body, opts) };
    if (body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
    Object.assign(headers, opts.headers);
    return requestJson<T>(t.url, method, path, { headers, ...(body === undefined ? {} : { raw: body }) });
  }

  return {
    teamId: team.teamId,
    teamDidKey: team.teamDidKey,
    alias,
    key,
    certificateId: certificate.certificate_id,
    certificate,
    certificateB64,
    sign,
    request,
  };
}

export interface AsOwnerAppOptions {
  /** JSON-encoded and sent with Content-Type: application/json. */
  json?: unknown;
  surface?: 'library' | 'docs';
  /** The agent_id of the identity the app acts as (the switcher's choice); absent: none named. */
  actingAs?: string;
}

/**
 * A team request as the app makes it: the owner's sign route signs it as the team's owner member
 * (naming the identity the app acts as, when given), then it is sent over real HTTP exactly as signed.
 */
export async function asOwnerApp<T = any>(
  t: NodeEndpoint,
  teamId: string,
  method: string,
  path: string,
  options: AsOwnerAppOptions = {},
): Promise<ApiResponse<T>> {
  const text = options.json === undefined ? undefined : JSON.stringify(options.json);
  const signed = await t.owner('POST', `/v1/node/teams/${encodeURIComponent(teamId)}/sign`, {
    method,
    path,
    surface: options.surface ?? 'library',
    ...(text === undefined ? {} : { body: text }),
    ...(options.actingAs === undefined ? {} : { acting_as: options.actingAs }),
  });
  if (signed.status !== 200) return signed as ApiResponse<T>;
  const { url, headers } = signed.body as { url: string; headers: Record<string, string> };
  // The URL as signed (origin and target), untouched.
  return requestJson<T>(url, method, '', {
    headers: { ...headers, ...(text === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(text === undefined ? {} : { raw: text }),
  });
}
