/**
 * An upstream client of the core's team surface, written from the wire rules alone
 * (docs/adr/0003-request-authentication.md): its own key (node:crypto), the certificate the owner
 * issued, and its own request signatures, through test/support/self-signer.ts's canonical JSON:
 * none of the node's signing code. Upstream's brand words are aw/aweb; a client of this node sends
 * X-SVC-*.
 */
import { createHash } from 'node:crypto';
import { connectSse, type SseResponse } from './sse.ts';
import { requestJson, type ApiResponse, type NodeEndpoint } from './node.ts';
import { canonical, nowSeconds, selfKey, type SelfKey } from './self-signer.ts';

const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');

/** How a request is signed: compact v1 (upstream E2 clients), envelope v2, or identity-only (no certificate). */
export type SignMode = 'compact' | 'envelope' | 'identity';

export interface UpstreamMember {
  key: SelfKey;
  teamId: string;
  alias: string;
  certificateId: string;
  /** Standard base64 (padded) of the certificate JSON: X-SVCID-Team-Certificate. */
  certificateB64: string;
}

export interface SignOptions {
  mode?: SignMode;
  at?: string;
  /** Identity-only: the did:svc sent as X-SVC-DID-AW (and signed as did_aw). */
  didAw?: string;
  /** Envelope v2: the audience (the core's origin). */
  aud?: string;
}

/** The auth headers of one request; `body` is the exact bytes sent ('' for none). */
export function signRequest(member: UpstreamMember, method: string, path: string, body: string, options: SignOptions = {}): Record<string, string> {
  const at = options.at ?? nowSeconds();
  const mode = options.mode ?? 'compact';
  const bodyHash = sha256Hex(body);
  if (mode === 'identity') {
    const signed = canonical({ body_sha256: bodyHash, did_aw: options.didAw ?? '', timestamp: at });
    return {
      authorization: `DIDKey ${member.key.didKey} ${member.key.sign(signed)}`,
      'x-svc-timestamp': at,
      ...(options.didAw ? { 'x-svc-did-aw': options.didAw } : {}),
    };
  }
  const headers: Record<string, string> = { 'x-svc-timestamp': at, 'x-svcid-team-certificate': member.certificateB64 };
  if (mode === 'compact') {
    headers.authorization = `DIDKey ${member.key.didKey} ${member.key.sign(canonical({ body_sha256: bodyHash, team_id: member.teamId, timestamp: at }))}`;
    return headers;
  }
  const payload = canonical({ aud: options.aud, body_sha256: bodyHash, method: method.toUpperCase(), path, team_id: member.teamId, timestamp: at, v: 2 });
  headers.authorization = `DIDKey ${member.key.didKey} ${member.key.sign(payload)}`;
  headers['x-svc-signed-payload'] = Buffer.from(payload, 'utf8').toString('base64url');
  return headers;
}

export interface UpstreamClient extends UpstreamMember {
  request<T = any>(method: string, path: string, body?: unknown, options?: SignOptions & { headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  stream(path: string, options?: SignOptions): Promise<SseResponse>;
}

/** The owner issues a certificate for a key the client generated (POST /v1/node/teams/{id}/members). */
export async function upstreamMember(
  t: NodeEndpoint & { url: string },
  teamId: string,
  alias: string,
  extra: { lifetime?: 'persistent' | 'ephemeral'; did_aw?: string; address?: string; key?: SelfKey } = {},
): Promise<UpstreamClient> {
  const key = extra.key ?? selfKey();
  const { key: _key, ...fields } = extra;
  const added = await t.owner('POST', `/v1/node/teams/${encodeURIComponent(teamId)}/members`, { did_key: key.didKey, alias, ...fields });
  if (added.status !== 201) throw new Error(`add member failed (${added.status}): ${JSON.stringify(added.body)}`);
  const member: UpstreamMember = { key, teamId, alias, certificateId: added.body.certificate.certificate_id, certificateB64: added.body.certificate_b64 };
  return {
    ...member,
    request: (method, path, body, options = {}) => {
      const raw = body === undefined ? '' : JSON.stringify(body);
      const headers = { ...signRequest(member, method, path, raw, { aud: t.url, ...options }), ...options.headers };
      return requestJson(t.url, method, path, { headers, ...(body === undefined ? {} : { raw }) });
    },
    stream: (path, options = {}) => connectSse(`${t.url}${path}`, { headers: signRequest(member, 'GET', path, '', { aud: t.url, ...options }) }),
  };
}
