/**
 * Team-certificate auth, envelope v2 (spec §5 mode 3; DESIGN §5;
 * docs/adr/0003-request-authentication.md).
 *
 * A member signs a canonical JSON envelope that pins the request (method, exact target, body
 * hash, audience, team, timestamp) and presents the certificate the team key gave it. We differ
 * from upstream where upstream is weak: the certificate is checked against the team key this node
 * holds (never the certificate's own team_did_key), it must be one this node issued and has not
 * revoked. Cheap checks run first. What a repeated signature gets (reads repeat, an identical
 * write gets its first answer) is decided after all of this passed, by the caller
 * (http/team-auth.ts with auth/replay-cache.ts), so a rejected request cannot burn a signature.
 */
import type { ErrorCodeWithStatus } from '../../contract/errors.ts';
import { canonicalJsonBytes } from '../crypto/canonical-json.ts';
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { bodySha256Hex, fromBase64Url } from '../crypto/encoding.ts';
import { parseCertificateHeader, verifyCertificateSignature, type CertificateLifetime, type TeamCertificate } from '../crypto/team-certificate.ts';
import { forbidden, unauthorized } from '../errors.ts';
import { MemoCache } from '../memo-cache.ts';
import { parseDidKeyAuthorization, TIMESTAMP_HEADER } from './didkey.ts';
import { checkRequestTimestamp } from './timestamp.ts';
import { CERTIFICATE_HEADER, SIGNED_PAYLOAD_HEADER } from './team-envelope-client.ts';

const SCHEME = 'DIDKey';
/** A bodiless request hashes as the empty body. */
const EMPTY_BODY = new Uint8Array(0);
const ENVELOPE_VERSION = 2;

/** What the node knows about its teams; TeamService implements it. */
export interface TeamKeyring {
  /** The did:key of the team key this node holds, or null for a team it does not know. */
  teamDidKey(teamId: string): string | null;
  /** A certificate this node issued, or null. */
  certificate(certificateId: string): { team_id: string; member_did_key?: string; revoked_at: string | null; scopes: readonly string[] } | null;
}

/** The verified caller of a team-authenticated route. */
export interface TeamMember {
  team_id: string;
  certificate_id: string;
  alias: string;
  did_key: string;
  did_aw: string | null;
  address: string | null;
  lifetime: CertificateLifetime;
  scopes: string[];
}

export interface TeamRequest {
  method: string;
  /** The exact raw request target as received, query included. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The exact body bytes; undefined when the request had none. */
  rawBody: Buffer | undefined;
}

export interface TeamAuthDeps {
  teams: TeamKeyring;
  /** The origins of the surface being called (never derived from Host). */
  audiences: () => Iterable<string>;
  now: Date;
  /**
   * Also accept the compact v1 form upstream's current clients send: no X-SVC-Signed-Payload, the
   * signature over canonical `{body_sha256, team_id, timestamp}`. It binds neither method, path
   * nor audience, so only the core surface (upstream's clients) takes it; library and docs do not.
   */
  compact?: boolean | undefined;
}

/** A verified request: its member, and the signature (the key of what it did, replay-cache.ts). */
export interface VerifiedTeamRequest {
  member: TeamMember;
  signature: string;
  /** `envelope`: v2, the signature pins method, target and audience; `compact`: v1, it does not. */
  form: 'envelope' | 'compact';
}

const fail = (code: ErrorCodeWithStatus<401>, detail: string) => unauthorized(code, detail, SCHEME);

// A member presents the same certificate on every request; its signature check is a pure
// function of the exact header text and the team key, so it is verified once per pair.
const verifiedCertificates = new MemoCache<boolean>(4096);
const parsedCertificates = new MemoCache<Readonly<TeamCertificate> | null>(4096);

function header(request: TeamRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A body arrived that no parser kept the bytes of: it cannot be hashed, so it cannot be trusted. */
function hasUnhashedBody(request: TeamRequest): boolean {
  if (request.rawBody !== undefined) return false;
  const length = Number(header(request, 'content-length') ?? '0');
  return length > 0 || header(request, 'transfer-encoding') !== undefined;
}

function decodePayload(text: string | undefined): { bytes: Buffer; fields: Record<string, unknown> } {
  if (text === undefined || text === '') throw fail('SVC_ERR_TEAM_ENVELOPE_MALFORMED', 'Missing X-SVC-Signed-Payload header');
  if (text.includes('=')) throw fail('SVC_ERR_TEAM_ENVELOPE_MALFORMED', 'X-SVC-Signed-Payload must be base64url without padding ("=" is not allowed)');
  const bytes = fromBase64Url(text);
  if (!bytes) throw fail('SVC_ERR_TEAM_ENVELOPE_MALFORMED', 'X-SVC-Signed-Payload is not base64url');
  let fields: unknown;
  try {
    fields = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw fail('SVC_ERR_TEAM_ENVELOPE_MALFORMED', 'X-SVC-Signed-Payload is not JSON');
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
    throw fail('SVC_ERR_TEAM_ENVELOPE_MALFORMED', 'X-SVC-Signed-Payload is not a JSON object');
  let canonical: Buffer | null;
  try {
    canonical = canonicalJsonBytes(fields);
  } catch {
    canonical = null;
  }
  if (!canonical || !canonical.equals(bytes))
    throw fail('SVC_ERR_TEAM_ENVELOPE_MALFORMED', 'X-SVC-Signed-Payload is not canonical JSON (sorted keys, no whitespace)');
  return { bytes, fields: fields as Record<string, unknown> };
}

/** The envelope's reserved fields against the request; team_id waits for the certificate. */
function checkEnvelope(fields: Record<string, unknown>, request: TeamRequest, timestamp: string, audiences: Iterable<string>): void {
  if (fields.v !== ENVELOPE_VERSION) throw fail('SVC_ERR_TEAM_ENVELOPE_MALFORMED', 'Unsupported team-auth envelope version: v must be the integer 2');
  if (fields.method !== request.method.toUpperCase()) throw fail('SVC_ERR_TEAM_ENVELOPE_MISMATCH', 'Signed payload method does not match the request');
  if (fields.path !== request.url) throw fail('SVC_ERR_TEAM_ENVELOPE_MISMATCH', 'Signed payload path does not match the request target');
  if (fields.body_sha256 !== bodySha256Hex(request.rawBody ?? EMPTY_BODY))
    throw fail('SVC_ERR_TEAM_ENVELOPE_MISMATCH', 'Signed payload body_sha256 does not match the request body');
  if (fields.timestamp !== timestamp) throw fail('SVC_ERR_TEAM_ENVELOPE_MISMATCH', 'Signed payload timestamp does not match X-SVC-Timestamp');
  if (typeof fields.aud !== 'string' || ![...audiences].includes(fields.aud))
    throw fail('SVC_ERR_TEAM_ENVELOPE_MISMATCH', 'Signed payload audience (aud) is not allowed here');
}

/** The member whose envelope and certificate verify for this request; a 401 otherwise. */
export function verifyTeamRequest(request: TeamRequest, deps: TeamAuthDeps): TeamMember {
  return verifyTeamEnvelope(request, deps).member;
}

export function verifyTeamEnvelope(request: TeamRequest, deps: TeamAuthDeps): VerifiedTeamRequest {
  // 1. Presence and shape of the headers (three for compact v1, four for the envelope).
  const auth = parseDidKeyAuthorization(header(request, 'authorization'));
  if (!auth) throw fail('SVC_ERR_AUTH_MISSING', 'Missing Authorization header');
  const timestamp = header(request, TIMESTAMP_HEADER);
  checkRequestTimestamp(timestamp, 'X-SVC-Timestamp', deps.now, SCHEME);
  const payloadText = header(request, SIGNED_PAYLOAD_HEADER);
  const envelope = payloadText === undefined && deps.compact === true ? null : decodePayload(payloadText);
  const certificateText = header(request, CERTIFICATE_HEADER);
  if (!certificateText) throw fail('SVC_ERR_TEAM_CERTIFICATE_INVALID', 'Missing X-SVCID-Team-Certificate header');
  if (hasUnhashedBody(request)) throw fail('SVC_ERR_TEAM_ENVELOPE_MISMATCH', 'The request body could not be hashed for the signed payload');

  // 2. The envelope pins this request.
  if (envelope !== null) checkEnvelope(envelope.fields, request, timestamp as string, deps.audiences());
  const cert = parsedCertificates.get(certificateText, () => {
    const parsed = parseCertificateHeader(certificateText);
    return parsed && Object.freeze(parsed);
  });
  if (!cert) throw fail('SVC_ERR_TEAM_CERTIFICATE_INVALID', 'Malformed team certificate (X-SVCID-Team-Certificate)');
  if (envelope !== null && envelope.fields.team_id !== cert.team_id)
    throw fail('SVC_ERR_TEAM_ENVELOPE_MISMATCH', 'Signed payload team_id does not match the certificate');
  if (cert.member_did_key !== auth.didKey)
    throw fail('SVC_ERR_TEAM_CERTIFICATE_INVALID', 'Certificate member_did_key does not match the Authorization did:key');

  // 3. Signatures: the member's over the exact presented bytes (compact: over the body hash, the
  // certificate's team and the timestamp), the team's over the certificate.
  const signed =
    envelope?.bytes ?? canonicalJsonBytes({ body_sha256: bodySha256Hex(request.rawBody ?? EMPTY_BODY), team_id: cert.team_id, timestamp: timestamp as string });
  if (!verifyBytes(publicKeyFromDidKey(auth.didKey)!, signed, auth.signature)) {
    throw fail('SVC_ERR_SIGNATURE_INVALID', envelope === null ? 'Invalid DIDKey signature' : 'Invalid signature over the signed payload');
  }
  const teamDidKey = deps.teams.teamDidKey(cert.team_id);
  if (teamDidKey === null) throw fail('SVC_ERR_TEAM_CERTIFICATE_UNKNOWN', `Unknown team: ${cert.team_id}`);
  const teamKey = publicKeyFromDidKey(teamDidKey);
  const verified = teamKey !== null && verifiedCertificates.get(`${teamDidKey}\n${certificateText}`, () => verifyCertificateSignature(cert, teamKey));
  if (!verified) throw fail('SVC_ERR_TEAM_CERTIFICATE_UNKNOWN', 'Certificate signature verification failed (not issued by this team key)');

  // 4. Issued here, for this team and key, and still live.
  const issued = deps.teams.certificate(cert.certificate_id);
  if (!issued || issued.team_id !== cert.team_id || (issued.member_did_key !== undefined && issued.member_did_key !== cert.member_did_key)) {
    throw fail('SVC_ERR_TEAM_CERTIFICATE_UNKNOWN', `Certificate ${cert.certificate_id} was not issued by this node`);
  }
  if (issued.revoked_at !== null) throw fail('SVC_ERR_TEAM_CERTIFICATE_REVOKED', `Certificate ${cert.certificate_id} has been revoked`);

  const member: TeamMember = {
    team_id: cert.team_id,
    certificate_id: cert.certificate_id,
    alias: typeof cert.alias === 'string' ? cert.alias : '',
    did_key: auth.didKey,
    did_aw: typeof cert.member_did_aw === 'string' && cert.member_did_aw !== '' ? cert.member_did_aw : null,
    address: typeof cert.member_address === 'string' && cert.member_address !== '' ? cert.member_address : null,
    lifetime: cert.lifetime === 'persistent' ? 'persistent' : 'ephemeral',
    scopes: [...issued.scopes],
  };
  return { member, signature: auth.signatureText, form: envelope === null ? 'compact' : 'envelope' };
}

/** 403 unless the member's certificate carries `scope` (recorded by the node per certificate). */
export function requireScope(member: TeamMember, scope: string): void {
  if (!member.scopes.includes(scope)) throw forbidden('SVC_ERR_SCOPE_MISSING', `This team certificate lacks the ${scope} scope`);
}
