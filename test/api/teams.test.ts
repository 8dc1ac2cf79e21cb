/**
 * The owner's team routes (DESIGN §4; docs/adr/0003-request-authentication.md): teams whose key the
 * node holds, certificates in upstream's exact format (optional member fields omitted, never ""),
 * signed by that key, one active alias per team, revocation, and owner-member signing for the UI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyTeamRequest, type TeamKeyring } from '../../server/auth/team-envelope.ts';
import { publicKeyFromDidKey } from '../../server/crypto/did-key.ts';
import { parseCertificateHeader, verifyCertificateSignature } from '../../server/crypto/team-certificate.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { testKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember } from '../support/teams.ts';

let t: TestNode;
let counter = 0;
const newName = (): string => `team${++counter}`;

beforeAll(async () => {
  t = await startTestNode();
});
afterAll(async () => {
  await t.stop();
});

const teamUrl = (teamId: string, rest = ''): string => `/v1/node/teams/${encodeURIComponent(teamId)}${rest}`;

async function createTeam(name = newName(), domain = 'acme.test') {
  return expectOk(await t.owner('POST', '/v1/node/teams', { name, domain }), 201);
}

async function addMember(teamId: string, body: Record<string, unknown>) {
  return t.owner('POST', teamUrl(teamId, '/members'), body);
}

describe('POST /v1/node/teams', () => {
  it('creates <name>:<domain> with a team key, and an owner member', async () => {
    const team = await createTeam('backend', 'Acme.TEST.');
    expect(team).toMatchObject({ team_id: 'backend:acme.test', name: 'backend', domain: 'acme.test', member_count: 1 });
    expect(publicKeyFromDidKey(team.team_did_key)).not.toBeNull();
    expect(team).not.toHaveProperty('key_id');
    const { members, available_scopes } = expectOk(await t.owner('GET', teamUrl(team.team_id, '/members')));
    // The owner member holds every scope: the UI acts through it on the library and documents.
    expect(members).toEqual([
      expect.objectContaining({
        certificate_id: team.owner_certificate_id,
        alias: 'owner',
        lifetime: 'persistent',
        scopes: ['docs:read', 'docs:write', 'library:approve', 'library:publish', 'library:read', 'library:write', 'team:admin'],
        revoked_at: null,
        owner: true,
      }),
    ]);
    expect(members[0].member_did_key).not.toBe(team.team_did_key);
    // The listing names every scope there is, what it grants, and the four a member gets by default.
    expect(available_scopes.map((s: { scope: string }) => s.scope).sort()).toEqual([
      'docs:read',
      'docs:write',
      'library:approve',
      'library:publish',
      'library:read',
      'library:write',
      'team:admin',
    ]);
    for (const s of available_scopes) expect(s.grants).toEqual(expect.any(String));
    expect(available_scopes.filter((s: { default: boolean }) => s.default).map((s: { scope: string }) => s.scope)).toEqual([
      'docs:read',
      'docs:write',
      'library:read',
      'library:write',
    ]);
    const listed = expectOk(await t.owner('GET', '/v1/node/teams'));
    expect(listed.teams.map((x: { team_id: string }) => x.team_id)).toContain('backend:acme.test');
    expect(expectOk(await t.owner('GET', teamUrl(team.team_id)))).toEqual(team);
    // The `:` in the id also routes unencoded.
    expect(expectOk(await t.owner('GET', `/v1/node/teams/${team.team_id}`))).toEqual(team);
  });

  it('refuses an existing team with 409', async () => {
    const team = await createTeam();
    expectRefusal(await t.owner('POST', '/v1/node/teams', { name: team.name, domain: team.domain }), 409, /already exists/, 'SVC_ERR_TEAM_EXISTS');
  });

  it('refuses a bad name, a bad domain and unknown fields with 422', async () => {
    for (const name of ['', 'has space', 'dot.ted', 'a/b', '-lead', 'x'.repeat(65)]) {
      expectValidation(await t.owner('POST', '/v1/node/teams', { name, domain: 'acme.test' }), 'name');
    }
    expectValidation(await t.owner('POST', '/v1/node/teams', { name: newName(), domain: 'not a domain' }), 'domain');
    expectRefusal(await t.owner('POST', '/v1/node/teams', { name: newName(), domain: 'acme.test', extra: 1 }), 422, undefined, 'SVC_ERR_VALIDATION');
  });

  it('needs the owner token', async () => {
    expectRefusal(await t.request('GET', '/v1/node/teams'), 401, undefined, 'SVC_ERR_OWNER_TOKEN_REQUIRED');
    expectRefusal(
      await t.request('POST', '/v1/node/teams', { body: { name: newName(), domain: 'acme.test' } }),
      401,
      undefined,
      'SVC_ERR_OWNER_TOKEN_REQUIRED',
    );
  });

  it('answers 404 for an unknown team', async () => {
    expectRefusal(await t.owner('GET', teamUrl('nobody:acme.test')), 404, undefined, 'SVC_ERR_TEAM_NOT_FOUND');
    expectRefusal(await t.owner('GET', teamUrl('nobody:acme.test', '/members')), 404, undefined, 'SVC_ERR_TEAM_NOT_FOUND');
    expectRefusal(await addMember('nobody:acme.test', { did_key: testKey().didKey, alias: 'a' }), 404, undefined, 'SVC_ERR_TEAM_NOT_FOUND');
  });
});

describe('POST /v1/node/teams/:team_id/members', () => {
  it('issues an ephemeral certificate by default, without member_did_aw or member_address keys', async () => {
    const team = await createTeam();
    const member = testKey();
    const issued = expectOk(await addMember(team.team_id, { did_key: member.didKey, alias: 'alice' }), 201);
    expect(Object.keys(issued).sort()).toEqual(['certificate', 'certificate_b64']);
    const cert = issued.certificate;
    expect(Object.keys(cert).sort()).toEqual(
      ['alias', 'certificate_id', 'issued_at', 'lifetime', 'member_did_key', 'signature', 'team_did_key', 'team_id', 'version'].sort(),
    );
    expect(cert).toMatchObject({
      version: 1,
      team_id: team.team_id,
      team_did_key: team.team_did_key,
      member_did_key: member.didKey,
      alias: 'alice',
      lifetime: 'ephemeral',
    });
    expect(cert.certificate_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(cert.issued_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(cert.signature).toMatch(/^[A-Za-z0-9+/]{86}$/);
    // The b64 form is standard padded base64 of the same document, and the team key signed it.
    expect(issued.certificate_b64).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(JSON.parse(Buffer.from(issued.certificate_b64, 'base64').toString('utf8'))).toEqual(cert);
    expect(verifyCertificateSignature(parseCertificateHeader(issued.certificate_b64)!, publicKeyFromDidKey(team.team_did_key)!)).toBe(true);
    expect(verifyCertificateSignature(cert, testKey().publicKey)).toBe(false);
  });

  it('carries did_aw and address when given, and the recorded scopes', async () => {
    const team = await createTeam();
    const member = testKey();
    const body = {
      did_key: member.didKey,
      alias: 'bob',
      lifetime: 'persistent',
      did_aw: 'did:svc:2CiZ88hVF4JuQim8nnSuyeiV2HF2',
      address: 'acme.test/bob',
      scopes: ['docs:read'],
    };
    const { certificate } = expectOk(await addMember(team.team_id, body), 201);
    expect(certificate).toMatchObject({ lifetime: 'persistent', member_did_aw: body.did_aw, member_address: 'acme.test/bob' });
    expect(verifyCertificateSignature(certificate, publicKeyFromDidKey(team.team_did_key)!)).toBe(true);
    const { members } = expectOk(await t.owner('GET', teamUrl(team.team_id, '/members')));
    expect(members.find((m: { alias: string }) => m.alias === 'bob')).toEqual({
      certificate_id: certificate.certificate_id,
      team_id: team.team_id,
      alias: 'bob',
      member_did_key: member.didKey,
      member_did_aw: body.did_aw,
      member_address: 'acme.test/bob',
      lifetime: 'persistent',
      issued_at: certificate.issued_at,
      revoked_at: null,
      scopes: ['docs:read'],
      owner: false,
      // Presence: never connected.
      agent_id: null,
      online: false,
      last_seen: null,
    });
  });

  it('refuses an alias already active in the team with 409; another team may use it', async () => {
    const team = await createTeam();
    expectOk(await addMember(team.team_id, { did_key: testKey().didKey, alias: 'carol' }), 201);
    expectRefusal(
      await addMember(team.team_id, { did_key: testKey().didKey, alias: 'carol' }),
      409,
      /Alias already active in team/,
      'SVC_ERR_TEAM_ALIAS_TAKEN',
    );
    expectRefusal(await addMember(team.team_id, { did_key: testKey().didKey, alias: 'owner' }), 409, /Alias already active/, 'SVC_ERR_TEAM_ALIAS_TAKEN');
    const other = await createTeam();
    expectOk(await addMember(other.team_id, { did_key: testKey().didKey, alias: 'carol' }), 201);
  });

  it('refuses a bad did_key, alias, lifetime, did_aw, address or scope with 422', async () => {
    const team = await createTeam();
    const did_key = testKey().didKey;
    expectValidation(await addMember(team.team_id, { did_key: 'did:key:zNope', alias: 'a' }), 'did_key');
    expectValidation(await addMember(team.team_id, { did_key, alias: 'has space' }), 'alias');
    expectValidation(await addMember(team.team_id, { did_key, alias: 'a', lifetime: 'forever' }), 'lifetime');
    expectValidation(await addMember(team.team_id, { did_key, alias: 'a', did_aw: 'did:web:x' }), 'did_aw');
    expectValidation(await addMember(team.team_id, { did_key, alias: 'a', address: 'no-slash' }), 'address');
    expectValidation(await addMember(team.team_id, { did_key, alias: 'a', scopes: ['library:admin'] }), 'scopes');
    const { members } = expectOk(await t.owner('GET', teamUrl(team.team_id, '/members')));
    expect(members).toHaveLength(1);
  });
});

describe('POST /v1/node/teams/:team_id/members/:certificate_id/revoke', () => {
  it('revokes once, frees the alias, and 409s the second time', async () => {
    const team = await createTeam();
    const { certificate } = expectOk(await addMember(team.team_id, { did_key: testKey().didKey, alias: 'dave' }), 201);
    const revokeUrl = teamUrl(team.team_id, `/members/${certificate.certificate_id}/revoke`);
    const revoked = expectOk(await t.owner('POST', revokeUrl));
    expect(revoked).toMatchObject({ revoked: true, certificate_id: certificate.certificate_id });
    expectRefusal(await t.owner('POST', revokeUrl), 409, /already revoked/, 'SVC_ERR_TEAM_CERTIFICATE_ALREADY_REVOKED');
    const { members } = expectOk(await t.owner('GET', teamUrl(team.team_id, '/members')));
    expect(members.find((m: { alias: string }) => m.alias === 'dave').revoked_at).toBe(revoked.revoked_at);
    expectOk(await addMember(team.team_id, { did_key: testKey().didKey, alias: 'dave' }), 201);
  });

  it('answers 404 for an unknown certificate or one of another team, and refuses the owner member', async () => {
    const team = await createTeam();
    const other = await createTeam();
    const { certificate } = expectOk(await addMember(other.team_id, { did_key: testKey().didKey, alias: 'erin' }), 201);
    expectRefusal(
      await t.owner('POST', teamUrl(team.team_id, '/members/00000000-0000-4000-8000-000000000000/revoke')),
      404,
      undefined,
      'SVC_ERR_TEAM_CERTIFICATE_NOT_FOUND',
    );
    expectRefusal(
      await t.owner('POST', teamUrl(team.team_id, `/members/${certificate.certificate_id}/revoke`)),
      404,
      undefined,
      'SVC_ERR_TEAM_CERTIFICATE_NOT_FOUND',
    );
    expectRefusal(
      await t.owner('POST', teamUrl(team.team_id, `/members/${team.owner_certificate_id}/revoke`)),
      403,
      /owner/,
      'SVC_ERR_TEAM_OWNER_NOT_REVOCABLE',
    );
  });
});

describe('POST /v1/node/teams/:team_id/sign', () => {
  it('returns the four headers of a request signed by the owner member for the library origin', async () => {
    const team = await createTeam();
    const body = '{"tags":["x"]}';
    const signed = expectOk(await t.owner('POST', teamUrl(team.team_id, '/sign'), { method: 'POST', path: '/v1/shelf?x=1', body }));
    expect(Object.keys(signed.headers).sort()).toEqual(['authorization', 'x-svc-signed-payload', 'x-svc-timestamp', 'x-svcid-team-certificate']);
    expect(signed.url).toBe(`${t.node.info.library_url}/v1/shelf?x=1`);
    const payload = JSON.parse(Buffer.from(signed.headers['x-svc-signed-payload'], 'base64url').toString('utf8'));
    expect(payload).toMatchObject({ aud: t.node.info.library_url, method: 'POST', path: '/v1/shelf?x=1', team_id: team.team_id, v: 2 });
    expect(typeof payload.nonce).toBe('string');

    // What the library's team auth will run, against the registry as the owner API reports it.
    const { members } = expectOk(await t.owner('GET', teamUrl(team.team_id, '/members')));
    const teams: TeamKeyring = {
      teamDidKey: (id) => (id === team.team_id ? team.team_did_key : null),
      certificate: (id) => members.find((m: { certificate_id: string }) => m.certificate_id === id) ?? null,
    };
    const member = verifyTeamRequest(
      { method: 'POST', url: '/v1/shelf?x=1', headers: signed.headers, rawBody: Buffer.from(body) },
      { teams, audiences: () => [t.node.info.library_url], now: new Date() },
    );
    expect(member).toMatchObject({
      team_id: team.team_id,
      alias: 'owner',
      certificate_id: team.owner_certificate_id,
      scopes: ['docs:read', 'docs:write', 'library:approve', 'library:publish', 'library:read', 'library:write', 'team:admin'],
    });
  });

  it('refuses an unknown team with 404 and a bad request with 422', async () => {
    expectRefusal(await t.owner('POST', teamUrl('nobody:acme.test', '/sign'), { method: 'GET', path: '/v1/shelf' }), 404, undefined, 'SVC_ERR_TEAM_NOT_FOUND');
    const team = await createTeam();
    expectValidation(await t.owner('POST', teamUrl(team.team_id, '/sign'), { method: 'GET', path: 'v1/shelf' }), 'path');
    expectValidation(await t.owner('POST', teamUrl(team.team_id, '/sign'), { method: 'TRACE', path: '/v1/shelf' }), 'method');
  });
});

describe('test/support/teams.ts', () => {
  it('adds a member with a fresh key to a new or an existing team', async () => {
    const first = await addTeamMember(t, { scopes: ['docs:read'] });
    const second = await addTeamMember(t, { teamId: first.teamId, alias: 'second' });
    expect(second.teamId).toBe(first.teamId);
    expect(second.teamDidKey).toBe(first.teamDidKey);
    expect(second.certificate).toMatchObject({ alias: 'second', member_did_key: second.key.didKey });
    const { members } = expectOk(await t.owner('GET', teamUrl(first.teamId, '/members')));
    expect(members.map((m: { alias: string }) => m.alias).sort()).toEqual([first.alias, 'owner', 'second'].sort());
  });
});
