/**
 * The client half of team-certificate auth (spec §5 mode 3): builds the four headers a member
 * sends. One implementation for the owner's signing endpoint, the tests and the benchmarks, so
 * they cannot drift from what team-envelope.ts verifies.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJsonBytes, type JsonValue } from '../crypto/canonical-json.ts';
import { sha256Hex, toBase64Unpadded, toBase64Url } from '../crypto/encoding.ts';

export const SIGNED_PAYLOAD_HEADER = 'x-svc-signed-payload';
export const CERTIFICATE_HEADER = 'x-svcid-team-certificate';

export type TeamHeaders = {
  authorization: string;
  'x-svc-timestamp': string;
  'x-svc-signed-payload': string;
  'x-svcid-team-certificate': string;
};

export interface TeamRequestToSign {
  method: string;
  /** The exact request target the server will receive, query included. */
  path: string;
  body?: string | Uint8Array | undefined;
  /** Origin of the surface being called. */
  aud: string;
  teamId: string;
  /** Standard base64 of the certificate JSON. */
  certificateB64: string;
  /** The member key's did:key (the certificate's member_did_key). */
  didKey: string;
  sign: (bytes: Uint8Array) => Uint8Array;
  /** RFC 3339 UTC; defaults to now at second precision. */
  timestamp?: string | undefined;
  /** Custom envelope fields; the seven reserved ones always win. */
  extra?: Record<string, JsonValue> | undefined;
  /**
   * Ed25519 is deterministic and the node accepts each signature once, so two identical requests
   * in one second would collide: a random `nonce` field tells them apart. `false` leaves it out.
   */
  nonce?: string | false | undefined;
}

/** RFC 3339 UTC at second precision. */
export function envelopeTimestamp(at: Date = new Date()): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The canonical envelope v2 payload bytes for a request (what gets signed). */
export function teamPayloadBytes(request: TeamRequestToSign, timestamp: string): Buffer {
  const nonce = request.nonce ?? randomBytes(12).toString('hex');
  return canonicalJsonBytes({
    ...(nonce === false ? {} : { nonce }),
    ...request.extra,
    aud: request.aud,
    body_sha256: sha256Hex(request.body ?? ''),
    method: request.method.toUpperCase(),
    path: request.path,
    team_id: request.teamId,
    timestamp,
    v: 2,
  });
}

export function buildTeamHeaders(request: TeamRequestToSign): TeamHeaders {
  const timestamp = request.timestamp ?? envelopeTimestamp();
  const payload = teamPayloadBytes(request, timestamp);
  return {
    authorization: `DIDKey ${request.didKey} ${toBase64Unpadded(request.sign(payload))}`,
    'x-svc-timestamp': timestamp,
    'x-svc-signed-payload': toBase64Url(payload),
    'x-svcid-team-certificate': request.certificateB64,
  };
}
