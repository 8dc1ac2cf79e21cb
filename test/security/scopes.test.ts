/**
 * Scopes on every team-authenticated library route, attacked
 * over real HTTP with real certificates issued by the owner API. Before this change only document
 * routes checked scopes: a certificate with no scopes renamed the team with
 * `POST /v1/team/register` and could do every library write.
 *
 * The route table below is written out here, independently of the routes' configs, and must name
 * exactly the library routes and scopes the server declares as it registers them (read from
 * Fastify's route table; a team route that declares no scope stops the node from starting, so
 * this covers every route it serves). For each route: a
 * certificate with no scopes, one with every scope but the route's, and a default member where the
 * route needs more than the default, are refused 403 naming the scope, and the stored data (every
 * row of the real encrypted database, read through a second connection) does not change; then a
 * certificate holding only that scope gets through.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { DataWatch, describeChange } from '../support/fuzz.ts';
import { blueprintPayload, CHANGESET_SCHEMA, profileFiles } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, ALL_SCOPES, MEMBER_SCOPES, type TeamClient } from '../support/teams.ts';

const LIBRARY_SCOPES = ['library:read', 'library:write', 'library:publish', 'library:approve', 'team:admin'];

interface Fixtures {
  approveId: string;
  rejectId: string;
}

interface Row {
  route: string;
  scope: string;
  path: (fx: Fixtures) => string;
  body?: unknown;
}

const fixed = (path: string) => () => path;

/** Every team-authenticated library route, the scope it needs, and a request that succeeds with it. */
const ROWS: Row[] = [
  { route: 'POST /v1/team/register', scope: 'team:admin', path: fixed('/v1/team/register'), body: { owner: 'Mallory', display_name: 'Renamed by Mallory' } },

  { route: 'GET /v1/shelf', scope: 'library:read', path: fixed('/v1/shelf') },
  { route: 'GET /v1/search/library', scope: 'library:read', path: fixed('/v1/search/library?q=worker') },
  { route: 'GET /v1/profiles/:profile_ref', scope: 'library:read', path: fixed('/v1/profiles/worker?include=files') },
  { route: 'GET /v1/profiles/:profile_ref/versions', scope: 'library:read', path: fixed('/v1/profiles/worker/versions') },
  { route: 'GET /v1/proposals', scope: 'library:read', path: fixed('/v1/proposals') },
  { route: 'GET /v1/proposals/:proposal_id', scope: 'library:read', path: (fx) => `/v1/proposals/${fx.approveId}` },
  { route: 'GET /v1/agents/:agent_id/profile-binding', scope: 'library:read', path: fixed('/v1/agents/agent-1/profile-binding') },
  { route: 'GET /v1/profile-bindings', scope: 'library:read', path: fixed('/v1/profile-bindings') },
  {
    route: 'POST /v1/materialize',
    scope: 'library:read',
    path: fixed('/v1/materialize'),
    body: { agent_id: 'agent-1', runtime_kind: 'claude-code', target: 'local' },
  },

  {
    route: 'POST /v1/shelf/import',
    scope: 'library:write',
    path: fixed('/v1/shelf/import'),
    body: { source_blueprint_ref: 'src.team', profile_ref: 'helper' },
  },
  { route: 'POST /v1/profiles', scope: 'library:write', path: fixed('/v1/profiles'), body: { files: profileFiles({ ref: 'fresh' }) } },
  {
    route: 'POST /v1/profiles/:profile_ref/versions',
    scope: 'library:write',
    path: fixed('/v1/profiles/versioned/versions'),
    body: { files: profileFiles({ ref: 'versioned', version: '0.2.0' }) },
  },
  {
    route: 'POST /v1/profiles/:profile_ref/update-from-source',
    scope: 'library:write',
    path: fixed('/v1/profiles/analyst/update-from-source'),
    body: { target_version: '0.2.0' },
  },
  { route: 'PUT /v1/profiles/:profile_ref/tags', scope: 'library:write', path: fixed('/v1/profiles/worker/tags'), body: { tags: ['defaced'] } },
  { route: 'DELETE /v1/profiles/:profile_ref', scope: 'library:write', path: fixed('/v1/profiles/doomed') },
  {
    route: 'POST /v1/proposals',
    scope: 'library:write',
    path: fixed('/v1/proposals'),
    body: { target: 'profile', profile_ref: 'worker', content: { schema: CHANGESET_SCHEMA, assets: [{ path: 'extra.md', content_utf8: 'extra' }] } },
  },
  {
    route: 'POST /v1/agents/:agent_id/profile-binding',
    scope: 'library:write',
    path: fixed('/v1/agents/agent-2/profile-binding'),
    body: { profile_ref: 'worker' },
  },

  {
    route: 'POST /v1/blueprints/import',
    scope: 'library:publish',
    path: fixed('/v1/blueprints/import'),
    body: blueprintPayload({ ref: 'new.team', profiles: [{ ref: 'lead' }] }),
  },
  {
    route: 'POST /v1/profiles/:profile_ref/publish',
    scope: 'library:publish',
    path: fixed('/v1/profiles/worker/publish'),
    body: { blueprint_version: '1.0.0', new_blueprint: { blueprint_ref: 'worker.team', name: 'Worker team' } },
  },
  { route: 'PUT /v1/blueprints/:blueprint_ref/tags', scope: 'library:publish', path: fixed('/v1/blueprints/src.team/tags'), body: { tags: ['defaced'] } },
  { route: 'DELETE /v1/blueprints/:blueprint_ref', scope: 'library:publish', path: fixed('/v1/blueprints/doomed.team') },

  { route: 'POST /v1/proposals/:proposal_id/approve', scope: 'library:approve', path: (fx) => `/v1/proposals/${fx.approveId}/approve` },
  { route: 'POST /v1/proposals/:proposal_id/reject', scope: 'library:approve', path: (fx) => `/v1/proposals/${fx.rejectId}/reject` },
];

const methodOf = (row: Row): string => row.route.split(' ')[0]!;

/*
 * Every table but the replay store: a refused request has still spent its signature (each signed
 * request is accepted once, DESIGN §5), which is request bookkeeping, not the team's data.
 */
function storedData(): ReturnType<DataWatch['snapshot']> {
  const snapshot = watch.snapshot();
  snapshot.delete('replay_signatures');
  return snapshot;
}

let t: TestNode;
let watch: DataWatch;
let fx: Fixtures;
let noScopes: TeamClient;
let defaultMember: TeamClient;
const only = new Map<string, TeamClient>();
const allBut = new Map<string, TeamClient>();

async function setUpLibrary(admin: TeamClient): Promise<Fixtures> {
  const ok = async (method: string, path: string, body?: unknown, status = 201) =>
    expectOk(await admin.request(method, path, body === undefined ? {} : { body }), status);
  await ok('POST', '/v1/blueprints/import', blueprintPayload({ ref: 'src.team', profiles: [{ ref: 'analyst', mission: 'Analyse.' }, { ref: 'helper' }] }));
  await ok('POST', '/v1/shelf/import', { source_blueprint_ref: 'src.team', profile_ref: 'analyst' });
  // The source moves on, so update-from-source has something to take.
  await ok(
    'POST',
    '/v1/blueprints/import',
    blueprintPayload({ ref: 'src.team', version: '1.1.0', profiles: [{ ref: 'analyst', mission: 'Analyse deeper.' }, { ref: 'helper' }] }),
  );
  await ok('POST', '/v1/blueprints/import', blueprintPayload({ ref: 'doomed.team', profiles: [{ ref: 'goner' }] }));
  for (const ref of ['worker', 'versioned', 'doomed']) await ok('POST', '/v1/profiles', { files: profileFiles({ ref }) });
  await ok('POST', '/v1/agents/agent-1/profile-binding', { profile_ref: 'worker' }, 200);
  const digests = expectOk(await admin.request('GET', '/v1/profiles/worker?include=files')).proposal_asset_digests;
  const propose = (assets: unknown[]) =>
    ok('POST', '/v1/proposals', { target: 'profile', profile_ref: 'worker', content: { schema: CHANGESET_SCHEMA, assets } });
  const approve = await propose([{ path: 'profile.yaml#mission', content: 'Sharper.', base_asset_digest: digests['profile.yaml#mission'] }]);
  const reject = await propose([{ path: 'notes.md', content_utf8: 'Notes.' }]);
  return { approveId: approve.proposal_id, rejectId: reject.proposal_id };
}

/** `METHOD /pattern` → scope, for every library team route the node registered. */
const declared: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestNode({
    onRoute: (listener, route) => {
      if (listener === 'loopback' && route.auth === 'team' && route.scope !== undefined && LIBRARY_SCOPES.includes(route.scope) && route.method !== 'HEAD') {
        declared[`${route.method} ${route.url}`] = route.scope;
      }
    },
  });
  return () => t.stop();
});
beforeAll(async () => {
  const admin = await addTeamMember(t, { team: 'guarded', domain: 'scopes.test', alias: 'admin', scopes: ALL_SCOPES });
  const teamId = admin.teamId;
  fx = await setUpLibrary(admin);
  noScopes = await addTeamMember(t, { teamId, alias: 'no-scopes', scopes: [] });
  defaultMember = await addTeamMember(t, { teamId, alias: 'default-member' });
  for (const scope of LIBRARY_SCOPES) {
    only.set(scope, await addTeamMember(t, { teamId, alias: `only-${scope.replace(':', '-')}`, scopes: [scope] }));
    allBut.set(scope, await addTeamMember(t, { teamId, alias: `all-but-${scope.replace(':', '-')}`, scopes: ALL_SCOPES.filter((s) => s !== scope) }));
  }
  watch = await DataWatch.open(t.dataDir);
  return () => watch.close();
});

describe('the scope table', () => {
  it('is exactly the routes and scopes the server enforces', () => {
    expect(Object.fromEntries(ROWS.map((row) => [row.route, row.scope]))).toEqual(declared);
    expect(new Set(ROWS.map((row) => row.route)).size).toBe(ROWS.length);
  });

  it('gives a member issued without scopes documents and the shelf, nothing more', async () => {
    const { members } = expectOk(await t.owner('GET', `/v1/node/teams/${encodeURIComponent(defaultMember.teamId)}/members`));
    const issued = members.find((m: { certificate_id: string }) => m.certificate_id === defaultMember.certificateId);
    expect(issued.scopes).toEqual([...MEMBER_SCOPES].sort());
  });
});

describe('a certificate without the route’s scope', () => {
  it.each(ROWS.map((row) => [row.route, row] as const))('is refused 403 on %s, and nothing stored changes', async (_route, row) => {
    const refused = [noScopes, allBut.get(row.scope)!, ...(MEMBER_SCOPES.includes(row.scope) ? [] : [defaultMember])];
    for (const client of refused) {
      const before = storedData();
      const response = await client.request(methodOf(row), row.path(fx), row.body === undefined ? {} : { body: row.body });
      expectRefusal(response, 403, new RegExp(`lacks the ${row.scope} scope`));
      expect(describeChange(before, storedData()), `${client.alias} on ${row.route}`).toEqual([]);
    }
  });

  it('cannot rename the team in the public catalog (POST /v1/team/register)', async () => {
    for (const client of [noScopes, defaultMember, allBut.get('team:admin')!]) {
      expectRefusal(await client.request('POST', '/v1/team/register', { body: { display_name: 'Mallory’s team' } }), 403, /team:admin/);
    }
    expect(expectOk(await t.request('GET', '/v1/blueprints/src.team')).display_name).toBeNull();
  });
});

describe('a certificate holding only the route’s scope', () => {
  // In table order: the deletes and decisions act on fixtures no earlier row needs.
  it.each(ROWS.map((row) => [row.route, row] as const))('gets through on %s', async (_route, row) => {
    const response = await only.get(row.scope)!.request(methodOf(row), row.path(fx), row.body === undefined ? {} : { body: row.body });
    expect(response.status, `${row.route}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
  });

  it('renames the team only with team:admin', async () => {
    expect(expectOk(await t.request('GET', '/v1/blueprints/src.team')).display_name).toBe('Renamed by Mallory');
  });

  it('leaves the three public catalog reads public', async () => {
    expectOk(await t.request('GET', '/v1/blueprints'));
    expectOk(await t.request('GET', '/v1/blueprints/src.team'));
    expectOk(await t.request('GET', '/v1/blueprints/src.team/profiles/analyst'));
  });
});
