/**
 * Route auth fails closed. Every route declares its auth mode (`public` included): an app with a
 * route that declares none, or a mode that does not exist, is not built. A `team` route is
 * checked by the route-auth hook wherever it is registered, not only inside a surface that
 * installed team auth: before, such a route answered anyone.
 *
 * Team certificates are verified by one authenticator with one replay rule (http/team-auth.ts),
 * so each kind of route that takes one is attacked with a captured signed write: the identical
 * request again gets the first answer and the write runs once; an envelope's signature serves no
 * other request. Real encrypted databases, real HTTP on loopback, certificates issued by the node,
 * signatures made by test/support/upstream-client.ts (none of the node's signing code).
 */
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseApp } from '../../server/http/app.ts';
import { declareRoutesAuth, type AuthMode } from '../../server/http/route-auth.ts';
import { startCoreNode, type CoreNode } from '../support/core-node.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { profileFiles } from '../support/library.ts';
import { requestJson, startTestNode, type ApiResponse, type TestNode } from '../support/node.ts';
import { selfKey } from '../support/self-signer.ts';
import { signRequest, upstreamMember, type SignOptions, type UpstreamMember } from '../support/upstream-client.ts';

/** A signed request as an eavesdropper keeps it: its exact headers and body bytes. */
interface Captured {
  url: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  raw: string;
}

function capture(url: string, member: UpstreamMember, method: string, path: string, body: unknown, options: SignOptions): Captured {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const headers = { ...signRequest(member, method, path, raw, options), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  return { url, method, path, headers, raw };
}

const send = (c: Captured, at: { method?: string; path?: string } = {}): Promise<ApiResponse> =>
  requestJson(c.url, at.method ?? c.method, at.path ?? c.path, { headers: c.headers, ...(c.raw === '' ? {} : { raw: c.raw }) });

/** The captured write sent again: its first answer, byte for byte (so it did not run again). */
async function expectFirstAnswer(c: Captured, first: ApiResponse): Promise<void> {
  const again = await send(c);
  expect(again.status).toBe(first.status);
  expect(again.body).toEqual(first.body);
}

describe('a route that declares no auth mode', () => {
  let core: CoreNode;
  beforeAll(async () => {
    core = await startCoreNode();
    return () => core.close();
  });

  /** An app as every listener builds it, with `routes` registered in it; resolves once it is ready. */
  async function build(routes: (app: FastifyInstance) => void | Promise<void>): Promise<FastifyInstance> {
    const app = baseApp({ services: core.services, log: false });
    try {
      await app.register(async (scope) => routes(scope));
      await app.ready();
      return app;
    } catch (error) {
      await app.close();
      throw error;
    }
  }

  it('stops the app from being built, naming the route', async () => {
    await expect(build((app) => void app.post('/v1/probe/undeclared', async () => ({ reached: true })))).rejects.toThrow(
      /^Route POST \/v1\/probe\/undeclared declares no auth mode: set config\.auth to one of public, key, identity, project, owner, didkey, team/,
    );
    // A config without `auth` is no declaration either.
    await expect(build((app) => void app.get('/v1/probe/config', { config: { ownerToo: true } }, async () => ({})))).rejects.toThrow(
      /Route GET \/v1\/probe\/config declares no auth mode/,
    );
  });

  it('stops it too for a mode that does not exist', async () => {
    const typo = 'teams' as AuthMode;
    await expect(build((app) => void app.get('/v1/probe/typo', { config: { auth: typo } }, async () => ({})))).rejects.toThrow(
      /Route GET \/v1\/probe\/typo declares an unknown auth mode "teams"/,
    );
  });

  it("takes a third-party plugin's routes in a context that declares their mode, and serves them so", async () => {
    const app = await build(async (scope) => {
      await scope.register(async (plugin) => {
        declareRoutesAuth(plugin, 'public');
        plugin.get('/v1/probe/plugin', { schema: { response: { 200: z.object({ reached: z.boolean() }) } } }, async () => ({ reached: true }));
      });
    });
    const response = await app.inject({ method: 'GET', url: '/v1/probe/plugin' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ reached: true });
    await app.close();
  });
});

describe('a team route registered outside any team surface', () => {
  let core: CoreNode;
  let member: UpstreamMember;
  let runs = 0;

  beforeAll(async () => {
    // Answers leave only as a declared schema parses them.
    const schema = { response: { 200: z.object({ alias: z.string().nullable(), run: z.number() }) } };
    core = await startCoreNode({
      routes: async (app) => {
        app.post('/v1/probe/team', { config: { auth: 'team' }, schema }, async (request) => ({ alias: request.teamMember?.alias ?? null, run: ++runs }));
        app.post('/v1/probe/team/other', { config: { auth: 'team' }, schema }, async (request) => ({ alias: request.teamMember?.alias ?? null, run: ++runs }));
      },
    });
    return () => core.close();
  });
  beforeAll(() => {
    const team = core.services.teams.create('probe', 'route-auth.test');
    const key = selfKey();
    const issued = core.services.teams.addMember(team.team_id, { did_key: key.didKey, alias: 'prober' });
    member = { key, teamId: team.team_id, alias: 'prober', certificateId: issued.certificate.certificate_id, certificateB64: issued.certificate_b64 };
  });

  it('is refused without a certificate (401), and its handler does not run', async () => {
    expectRefusal(await requestJson(core.url, 'POST', '/v1/probe/team', { body: {} }), 401, /Authorization/, 'SVC_ERR_AUTH_MISSING');
    expect(runs).toBe(0);
  });

  it('takes only an envelope addressed to the core, not the compact form nor another audience', async () => {
    const compact = capture(core.url, member, 'POST', '/v1/probe/team', {}, { mode: 'compact' });
    expectRefusal(await send(compact), 401, /X-SVC-Signed-Payload/, 'SVC_ERR_TEAM_ENVELOPE_MALFORMED');
    const elsewhere = capture(core.url, member, 'POST', '/v1/probe/team', {}, { mode: 'envelope', aud: 'https://elsewhere.example' });
    expectRefusal(await send(elsewhere), 401, /audience/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
    expect(runs).toBe(0);
  });

  it('runs a signed write once: its repeat gets the first answer, its signature serves no other target', async () => {
    const write = capture(core.url, member, 'POST', '/v1/probe/team', {}, { mode: 'envelope', aud: core.url });
    const first = await send(write);
    expect(expectOk(first)).toEqual({ alias: 'prober', run: 1 });
    await expectFirstAnswer(write, first);
    expectRefusal(await send(write, { path: '/v1/probe/team/other' }), 401, /path/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
    expect(runs).toBe(1);
  });

  it('refuses a revoked certificate', async () => {
    core.services.teams.revoke(member.teamId, member.certificateId);
    const write = capture(core.url, member, 'POST', '/v1/probe/team', {}, { mode: 'envelope', aud: core.url });
    expectRefusal(await send(write), 401, /revoked/, 'SVC_ERR_TEAM_CERTIFICATE_REVOKED');
    expect(runs).toBe(1);
  });
});

describe('a captured signed write, on each kind of route that takes a team certificate', () => {
  let t: TestNode;
  let teamId: string;

  beforeAll(async () => {
    t = await startTestNode();
    return () => t.stop();
  });
  beforeAll(async () => {
    teamId = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'replays', domain: 'route-auth.test' }), 201).team_id;
  });

  it('library (`team`, envelope): runs once, and its signature serves no other target', async () => {
    const writer = await upstreamMember(t, teamId, 'librarian');
    const create = capture(t.url, writer, 'POST', '/v1/profiles', { files: profileFiles({ ref: 'captured' }) }, { mode: 'envelope', aud: t.info.library_url });
    const first = await send(create);
    expectOk(first, 201);
    await expectFirstAnswer(create, first);
    expectRefusal(await send(create, { path: '/v1/profiles?again=1' }), 401, /path/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
  });

  it('documents (`team`, envelope): runs once, and its signature serves no other target', async () => {
    const writer = await upstreamMember(t, teamId, 'scribe');
    const create = capture(
      t.url,
      writer,
      'POST',
      '/v1/documents',
      { slug: 'captured', title: 'Captured', body: '# Captured\n' },
      { mode: 'envelope', aud: t.info.docs_url },
    );
    const first = await send(create);
    expect(expectOk(first, 201).current_version).toBe(1);
    await expectFirstAnswer(create, first);
    expectRefusal(await send(create, { path: '/v1/documents?again=1' }), 401, /path/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
  });

  for (const mode of ['envelope', 'compact'] as const) {
    it(`connect (\`team\` on the core, ${mode}): the repeat gets the first answer, while a fresh signature finds the member connected`, async () => {
      const joiner = await upstreamMember(t, teamId, `joiner-${mode}`);
      const connect = capture(t.url, joiner, 'POST', '/v1/connect', { hostname: 'laptop' }, { mode, aud: t.url });
      const first = await send(connect);
      expect(expectOk(first).created).toBe(true);
      await expectFirstAnswer(connect, first);
      // Another request (signed in the same second, the identical one would be the same signature).
      expect(expectOk(await joiner.request('POST', '/v1/connect', {}, { mode })).created).toBe(false);
    });

    it(`an identity route signed with a certificate (${mode}): a control signal is sent once`, async () => {
      const sender = await upstreamMember(t, teamId, `sender-${mode}`);
      const target = await upstreamMember(t, teamId, `target-${mode}`);
      expectOk(await sender.request('POST', '/v1/connect', {}));
      expectOk(await target.request('POST', '/v1/connect', {}));
      const pause = capture(t.url, sender, 'POST', `/v1/agents/target-${mode}/control`, { signal: 'pause' }, { mode, aud: t.url });
      const first = await send(pause);
      expect(expectOk(first).signal_id).toEqual(expect.any(String));
      await expectFirstAnswer(pause, first);
      if (mode === 'envelope') expectRefusal(await send(pause, { path: `/v1/agents/sender-${mode}/control` }), 401, /path/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
    });
  }
});
