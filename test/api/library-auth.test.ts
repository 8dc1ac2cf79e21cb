/**
 * Team-certificate auth on the library surface over real HTTP (spec §5 mode 3, §7): the public
 * reads need nothing, every other route needs the whole envelope, and a refused request changes
 * nothing. The envelope's rejections one by one are unit-tested in server/auth/team-envelope.test.ts;
 * here they are checked end to end through Fastify, where the raw target and body bytes come from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { profileFiles } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, type TeamClient } from '../support/teams.ts';

let t: TestNode;
let member: TeamClient;

beforeAll(async () => {
  t = await startTestNode();
  member = await addTeamMember(t, { team: 'auth', domain: 'auth.test' });
});
afterAll(async () => {
  await t.stop();
});

const create = (ref: string) => ({ files: profileFiles({ ref }) });

async function shelfRefs(): Promise<string[]> {
  return expectOk(await member.request('GET', '/v1/shelf')).profiles.map((p: any) => p.profile_ref);
}

describe('library auth over HTTP', () => {
  it('serves the public catalog reads without a certificate', async () => {
    expect((await t.request('GET', '/v1/blueprints')).status).toBe(200);
    expect((await t.request('GET', '/v1/blueprints?tags=a')).status).toBe(200);
  });

  it('refuses every team route without the headers', async () => {
    for (const [method, path] of [
      ['GET', '/v1/shelf'],
      ['POST', '/v1/profiles'],
      ['GET', '/v1/proposals'],
      ['POST', '/v1/materialize'],
    ] as const) {
      const res = await t.request(method, path, method === 'POST' ? { body: {} } : {});
      expectRefusal(res, 401, undefined, 'SVC_ERR_AUTH_MISSING');
      expect(res.headers.get('www-authenticate')).toBe('DIDKey');
    }
  });

  it('accepts a signed request with a query string and a body', async () => {
    expectOk(await member.request('POST', '/v1/profiles', { body: create('signed') }), 201);
    expectOk(await member.request('GET', '/v1/profiles/signed?include=files'));
  });

  it('refuses a body that differs from the signed one, storing nothing', async () => {
    const signedBody = JSON.stringify(create('honest'));
    const headers = member.sign('POST', '/v1/profiles', signedBody);
    const res = await fetch(`${t.url}/v1/profiles`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(create('forged')),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: expect.stringMatching(/body_sha256/), code: 'SVC_ERR_TEAM_ENVELOPE_MISMATCH' });
    expect(await shelfRefs()).not.toContain('forged');
  });

  it('refuses a request signed for another path or query', async () => {
    const headers = member.sign('GET', '/v1/profiles/signed');
    const res = await fetch(`${t.url}/v1/profiles/signed?include=files`, { headers });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: expect.stringMatching(/path/), code: 'SVC_ERR_TEAM_ENVELOPE_MISMATCH' });
  });

  it('refuses another audience', async () => {
    expectRefusal(await member.request('GET', '/v1/shelf', { aud: 'https://library.example' }), 401, /aud/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
  });

  it('lets an identical signed read repeat; an identical write gets its first answer and runs once', async () => {
    const headers = member.sign('GET', '/v1/shelf');
    expect((await fetch(`${t.url}/v1/shelf`, { headers })).status).toBe(200);
    expect((await fetch(`${t.url}/v1/shelf`, { headers })).status).toBe(200);
    const body = JSON.stringify(create('once'));
    const write = { method: 'POST', headers: { ...member.sign('POST', '/v1/profiles', body), 'content-type': 'application/json' }, body };
    const first = await fetch(`${t.url}/v1/profiles`, write);
    const again = await fetch(`${t.url}/v1/profiles`, write);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(await again.json()).toEqual(await first.json());
    expect((await shelfRefs()).filter((ref) => ref === 'once')).toHaveLength(1);
  });

  it('refuses a revoked member from then on', async () => {
    const leaving = await addTeamMember(t, { teamId: member.teamId });
    expectOk(await leaving.request('GET', '/v1/shelf'));
    expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(member.teamId)}/members/${leaving.certificateId}/revoke`));
    expectRefusal(await leaving.request('POST', '/v1/profiles', { body: create('after-revoke') }), 401, /revoked/, 'SVC_ERR_TEAM_CERTIFICATE_REVOKED');
    expect(await shelfRefs()).not.toContain('after-revoke');
  });

  it("keeps teams apart: a member sees only its own team's shelf", async () => {
    const outsider = await addTeamMember(t, { team: 'auth-other', domain: 'auth.test' });
    expect(expectOk(await outsider.request('GET', '/v1/shelf')).profiles).toEqual([]);
  });
});

describe('library on the peer listener', () => {
  let peer: TestNode;
  let remote: TeamClient;

  beforeAll(async () => {
    peer = await startTestNode({ publicPort: 0 });
    remote = await addTeamMember(peer, { team: 'peer', domain: 'peer.test' });
  });
  afterAll(async () => {
    await peer.stop();
  });

  it('serves the public reads and takes envelopes addressed to the public origin', async () => {
    const publicUrl = peer.node.info.public_url as string;
    expect((await fetch(`${publicUrl}/v1/blueprints`)).status).toBe(200);
    const headers = remote.sign('GET', '/v1/shelf', undefined, { aud: publicUrl });
    const res = await fetch(`${publicUrl}/v1/shelf`, { headers });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { profiles: unknown[] }).profiles).toEqual([]);
  });

  it("refuses an audience that is not one of the surface's origins", async () => {
    const publicUrl = peer.node.info.public_url as string;
    const headers = remote.sign('GET', '/v1/shelf', undefined, { aud: 'http://127.0.0.1:1' });
    expect((await fetch(`${publicUrl}/v1/shelf`, { headers })).status).toBe(401);
  });
});
