import { describe, expect, it } from 'vitest';
import { canonicalJsonBytes } from '../crypto/canonical-json.ts';
import { didKeyFromPublicKey } from '../crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from '../crypto/ed25519.ts';
import { sha256Hex, toBase64Unpadded, toBase64Url } from '../crypto/encoding.ts';
import { encodeCertificate, issueCertificate, type TeamCertificate } from '../crypto/team-certificate.ts';
import { ServiceError, type ErrorCode } from '../errors.ts';
import { buildTeamHeaders, envelopeTimestamp } from './team-envelope-client.ts';
import { requireScope, verifyTeamEnvelope, verifyTeamRequest, type TeamAuthDeps, type TeamKeyring, type TeamRequest } from './team-envelope.ts';

const NOW = new Date('2026-06-12T10:00:00.400Z');
const TS = envelopeTimestamp(NOW);
const AUD = 'http://127.0.0.1:7420';
const TEAM_ID = 'backend:acme.test';

const keyOf = (byte: number) => {
  const privateKey = privateKeyFromSeed(new Uint8Array(32).fill(byte));
  return { privateKey, didKey: didKeyFromPublicKey(rawPublicKey(privateKey)) };
};
const TEAM = keyOf(1);
const MEMBER = keyOf(2);
const STRANGER = keyOf(3);

function certificate(overrides: Partial<TeamCertificate> = {}, signer = TEAM): TeamCertificate {
  return issueCertificate(
    {
      certificate_id: overrides.certificate_id ?? 'c-alice',
      team_id: overrides.team_id ?? TEAM_ID,
      team_did_key: overrides.team_did_key ?? TEAM.didKey,
      member_did_key: overrides.member_did_key ?? MEMBER.didKey,
      member_did_aw: overrides.member_did_aw,
      member_address: overrides.member_address,
      alias: 'alice',
      lifetime: 'persistent',
      issued_at: '2026-06-01T00:00:00Z',
    },
    (bytes) => signBytes(signer.privateKey, bytes),
  );
}

/** An in-memory registry: one team, the certificates it issued. */
function keyring(revoked: string[] = []): TeamKeyring {
  const issued: Record<string, { team_id: string; member_did_key: string; scopes: string[] }> = {
    'c-alice': { team_id: TEAM_ID, member_did_key: MEMBER.didKey, scopes: ['docs:read'] },
    'c-other': { team_id: TEAM_ID, member_did_key: STRANGER.didKey, scopes: [] },
    'c-elsewhere': { team_id: 'other:acme.test', member_did_key: MEMBER.didKey, scopes: [] },
  };
  return {
    teamDidKey: (teamId) => (teamId === TEAM_ID ? TEAM.didKey : null),
    certificate: (id) => {
      const row = issued[id];
      return row ? { ...row, revoked_at: revoked.includes(id) ? '2026-06-02T00:00:00Z' : null } : null;
    },
  };
}

const deps = (over: Partial<TeamAuthDeps> = {}): TeamAuthDeps => ({
  teams: keyring(),
  audiences: () => [AUD, 'https://node.example'],
  now: NOW,
  ...over,
});

const BODY = '{"route":"aida"}';
const PATH = '/v1/shelf?dry_run=true&x=%2F';

/** A correctly signed POST, built by the real client. */
function signedRequest(cert = certificate()): TeamRequest {
  const headers = buildTeamHeaders({
    method: 'post',
    path: PATH,
    body: BODY,
    aud: AUD,
    teamId: TEAM_ID,
    certificateB64: encodeCertificate(cert),
    didKey: MEMBER.didKey,
    sign: (bytes) => signBytes(MEMBER.privateKey, bytes),
    timestamp: TS,
  });
  return { method: 'POST', url: PATH, headers: { ...headers }, rawBody: Buffer.from(BODY) };
}

const RESERVED = () => ({ aud: AUD, body_sha256: sha256Hex(BODY), method: 'POST', path: PATH, team_id: TEAM_ID, timestamp: TS, v: 2 as unknown });

/** A request whose envelope is `payload` (object canonicalised, or exact text), signed by `signer`. */
function withPayload(payload: Record<string, unknown> | string, signer = MEMBER): TeamRequest {
  const base = signedRequest();
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : canonicalJsonBytes(payload);
  return {
    ...base,
    headers: {
      ...base.headers,
      authorization: `DIDKey ${MEMBER.didKey} ${toBase64Unpadded(signBytes(signer.privateKey, bytes))}`,
      'x-svc-signed-payload': toBase64Url(bytes),
    },
  };
}

function refusal(request: TeamRequest, d: TeamAuthDeps = deps()): ServiceError {
  try {
    verifyTeamRequest(request, d);
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected the request to be refused');
}

function expect401(request: TeamRequest, detail: RegExp, code: ErrorCode, d?: TeamAuthDeps): void {
  const error = refusal(request, d);
  expect(error.statusCode).toBe(401);
  expect(error.code).toBe(code);
  expect(error.headers['www-authenticate']).toBe('DIDKey');
  expect(error.detail).toMatch(detail);
}

describe('verifyTeamRequest: success', () => {
  it('returns the member, with the scopes the node recorded', () => {
    const cert = certificate({ member_did_aw: 'did:svc:abc', member_address: 'acme.test/alice' });
    expect(verifyTeamRequest(signedRequest(cert), deps())).toEqual({
      team_id: TEAM_ID,
      certificate_id: 'c-alice',
      alias: 'alice',
      did_key: MEMBER.didKey,
      did_aw: 'did:svc:abc',
      address: 'acme.test/alice',
      lifetime: 'persistent',
      scopes: ['docs:read'],
    });
  });

  it('accepts extra custom fields, a bodyless GET (empty-string hash) and another configured audience', () => {
    expect(verifyTeamRequest(withPayload({ ...RESERVED(), operation: 'a2a_route_create', nested: { a: [1] } }), deps()).did_aw).toBeNull();
    const get = withPayload({ ...RESERVED(), method: 'GET', body_sha256: sha256Hex(''), aud: 'https://node.example' });
    expect(verifyTeamRequest({ ...get, method: 'GET', rawBody: undefined }, deps()).alias).toBe('alice');
  });
});

describe('verifyTeamRequest: the envelope must pin the request', () => {
  it('refuses a wrong aud', () => {
    expect401(withPayload({ ...RESERVED(), aud: 'http://evil.test' }), /aud/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
    expect401(withPayload({ ...RESERVED(), aud: `${AUD}/` }), /aud/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
  });
  it('refuses a wrong body_sha256 (tampered body)', () => {
    expect401({ ...signedRequest(), rawBody: Buffer.from('{"route":"evil"}') }, /body_sha256/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
  });
  it('refuses a wrong method', () => {
    expect401({ ...signedRequest(), method: 'PUT' }, /method/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
    expect401(withPayload({ ...RESERVED(), method: 'post' }), /method/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
  });
  it('refuses a wrong path, including a dropped or changed query', () => {
    expect401({ ...signedRequest(), url: '/v1/shelf' }, /path/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
    expect401({ ...signedRequest(), url: '/v1/shelf?dry_run=true&x=/' }, /path/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
    expect401({ ...signedRequest(), url: `/api${PATH}` }, /path/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
  });
  it('refuses a team_id other than the certificate team', () => {
    expect401(withPayload({ ...RESERVED(), team_id: 'other:acme.test' }), /team_id/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
  });
  it('refuses a timestamp field other than the header', () => {
    expect401(withPayload({ ...RESERVED(), timestamp: envelopeTimestamp(new Date(NOW.getTime() - 1000)) }), /timestamp/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
  });
  it('refuses v other than the integer 2, or missing', () => {
    expect401(withPayload({ ...RESERVED(), v: 1 }), /version/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
    expect401(withPayload({ ...RESERVED(), v: '2' }), /version/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
    const { v: _v, ...noVersion } = RESERVED();
    expect401(withPayload(noVersion), /version/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
  });
});

describe('verifyTeamRequest: the signed-payload header', () => {
  it('refuses "=" padding', () => {
    const request = signedRequest();
    const padded = `${request.headers['x-svc-signed-payload'] as string}=`;
    expect401({ ...request, headers: { ...request.headers, 'x-svc-signed-payload': padded } }, /=/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
    // The standard alphabet's "+" and "/" are not base64url.
    expect401({ ...request, headers: { ...request.headers, 'x-svc-signed-payload': 'eyJ2Ijo+fQ' } }, /not base64url/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
  });
  it('refuses non-canonical JSON: whitespace, unsorted keys', () => {
    const canonical = canonicalJsonBytes(RESERVED()).toString('utf8');
    expect401(withPayload(canonical.replace('"v":2', '"v": 2')), /not canonical/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
    const unsorted = `{"v":2,${canonical.slice(1, -7)}}`;
    expect(JSON.parse(unsorted)).toEqual(RESERVED());
    expect401(withPayload(unsorted), /not canonical/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
    expect401(withPayload(canonical.replace('"v":2', '"v":2.0')), /not canonical/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
  });
  it('refuses a payload that is not a JSON object', () => {
    expect401(withPayload('[1,2]'), /object/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
    expect401(withPayload('{nope'), /JSON/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
  });
});

describe('verifyTeamRequest: signatures and certificates', () => {
  it('refuses a bad signature (signed by another key)', () => {
    expect401(withPayload(RESERVED(), STRANGER), /Invalid signature/, 'SVC_ERR_SIGNATURE_INVALID');
  });
  it('refuses a certificate issued to another key', () => {
    const request = signedRequest();
    const other = encodeCertificate(certificate({ certificate_id: 'c-other', member_did_key: STRANGER.didKey }));
    expect401({ ...request, headers: { ...request.headers, 'x-svcid-team-certificate': other } }, /member_did_key/, 'SVC_ERR_TEAM_CERTIFICATE_INVALID');
  });
  it('refuses a revoked certificate', () => {
    expect401(signedRequest(), /revoked/, 'SVC_ERR_TEAM_CERTIFICATE_REVOKED', deps({ teams: keyring(['c-alice']) }));
  });
  it('refuses an unknown team', () => {
    expect401(signedRequest(), /Unknown team/, 'SVC_ERR_TEAM_CERTIFICATE_UNKNOWN', deps({ teams: { ...keyring(), teamDidKey: () => null } }));
  });
  it('refuses a certificate not signed by the team key the node holds, whatever team_did_key it claims', () => {
    expect401(signedRequest(certificate({ team_did_key: STRANGER.didKey }, STRANGER)), /not issued by this team key/, 'SVC_ERR_TEAM_CERTIFICATE_UNKNOWN');
    expect401(signedRequest(certificate({}, STRANGER)), /not issued by this team key/, 'SVC_ERR_TEAM_CERTIFICATE_UNKNOWN');
  });
  it('refuses a validly signed certificate this node has no record of, or recorded for another team', () => {
    expect401(signedRequest(certificate({ certificate_id: 'c-forgotten' })), /not issued by this node/, 'SVC_ERR_TEAM_CERTIFICATE_UNKNOWN');
    expect401(signedRequest(certificate({ certificate_id: 'c-elsewhere' })), /not issued by this node/, 'SVC_ERR_TEAM_CERTIFICATE_UNKNOWN');
  });
  it('refuses a malformed certificate header', () => {
    const request = signedRequest();
    expect401(
      { ...request, headers: { ...request.headers, 'x-svcid-team-certificate': 'bm90IGpzb24=' } },
      /Malformed team certificate/,
      'SVC_ERR_TEAM_CERTIFICATE_INVALID',
    );
  });
});

describe('verifyTeamRequest: time and repeats', () => {
  it('refuses a stale or future timestamp', () => {
    expect401(signedRequest(), /window/, 'SVC_ERR_TIMESTAMP_INVALID', deps({ now: new Date(NOW.getTime() + 301_000) }));
    expect401(signedRequest(), /window/, 'SVC_ERR_TIMESTAMP_INVALID', deps({ now: new Date(NOW.getTime() - 301_000) }));
  });
  it('verifies the identical request again: what a repeat gets is decided after (replay-cache.ts)', () => {
    const d = deps();
    const request = signedRequest();
    const first = verifyTeamEnvelope(request, d);
    expect(verifyTeamEnvelope(request, d)).toEqual(first);
    expect(first.signature).toBe(String(request.headers.authorization).split(' ')[2]);
  });
  it('lets two otherwise identical requests in one second through (the client adds a nonce)', () => {
    const d = deps();
    verifyTeamRequest(signedRequest(), d);
    verifyTeamRequest(signedRequest(), d);
  });
});

describe('verifyTeamRequest: missing headers', () => {
  const request = signedRequest();
  const without = (name: string): TeamRequest => {
    const { [name]: _dropped, ...headers } = request.headers;
    return { ...request, headers };
  };
  it.each([
    ['authorization', /Missing Authorization/, 'SVC_ERR_AUTH_MISSING'],
    ['x-svc-timestamp', /Missing X-SVC-Timestamp/, 'SVC_ERR_TIMESTAMP_INVALID'],
    ['x-svc-signed-payload', /Missing X-SVC-Signed-Payload/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED'],
    ['x-svcid-team-certificate', /Missing X-SVCID-Team-Certificate/, 'SVC_ERR_TEAM_CERTIFICATE_INVALID'],
  ] as const)('refuses a request without %s', (name, detail, code) => {
    expect401(without(name), detail, code);
  });
  it('refuses a malformed Authorization header', () => {
    expect401({ ...request, headers: { ...request.headers, authorization: `Bearer x` } }, /DIDKey/, 'SVC_ERR_AUTH_INVALID');
    expect401({ ...request, headers: { ...request.headers, authorization: `DIDKey ${MEMBER.didKey} abc=` } }, /64 bytes/, 'SVC_ERR_AUTH_INVALID');
  });
  it('refuses a body no parser kept the bytes of', () => {
    expect401(
      { ...request, rawBody: undefined, headers: { ...request.headers, 'content-length': '16' } },
      /body could not be hashed/,
      'SVC_ERR_TEAM_ENVELOPE_MISMATCH',
    );
  });
});

describe('requireScope', () => {
  it('is a 403 without the scope', () => {
    const member = verifyTeamRequest(signedRequest(), deps());
    expect(() => requireScope(member, 'docs:read')).not.toThrow();
    let error: unknown;
    try {
      requireScope(member, 'docs:write');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).statusCode).toBe(403);
    expect((error as ServiceError).code).toBe('SVC_ERR_SCOPE_MISSING');
    expect((error as ServiceError).detail).toMatch(/docs:write/);
  });
});
