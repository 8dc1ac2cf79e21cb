/**
 * The public blueprint catalog (spec §4.6; docs/adr/0006-library-and-document-surfaces.md): imports
 * checked file by file, immutable versions, refs owned by their first publisher, tags on the ref,
 * the three public reads, and delete detaching the shelf copies that track a blueprint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusal } from '../support/expect.ts';
import { blueprintPayload, file } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, PUBLISHER_SCOPES, type TeamClient } from '../support/teams.ts';

let t: TestNode;
let alice: TeamClient;
let bob: TeamClient;

beforeAll(async () => {
  t = await startTestNode();
  alice = await addTeamMember(t, { team: 'alpha', domain: 'alpha.test', scopes: PUBLISHER_SCOPES });
  // Bob also registers his team's public name.
  bob = await addTeamMember(t, { team: 'beta', domain: 'beta.test', scopes: [...PUBLISHER_SCOPES, 'team:admin'] });
});
afterAll(async () => {
  await t.stop();
});

const coordinator = { ref: 'coordinator', mission: 'Coordinate the team.' };
const reviewer = { ref: 'reviewer', mission: 'Review every change.' };

describe('import', () => {
  it('needs a team certificate', async () => {
    const res = await t.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'unauth.team', profiles: [coordinator] }) });
    expectRefusal(res, 401, undefined, 'SVC_ERR_AUTH_MISSING');
    expect((await t.request('GET', '/v1/blueprints/unauth.team')).status).toBe(404);
  });

  it('publishes a blueprint with its profiles and digests', async () => {
    const payload = blueprintPayload({ ref: 'import.team', profiles: [coordinator, reviewer] });
    const res = await alice.request('POST', '/v1/blueprints/import', { body: payload });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ blueprint_ref: 'import.team', version: '1.0.0', created: true });
    expect(res.body.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(res.body.profiles.map((p: any) => p.profile_ref)).toEqual(['coordinator', 'reviewer']);

    const read = await t.request('GET', '/v1/blueprints/import.team');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ blueprint_ref: 'import.team', version: '1.0.0', digest: res.body.digest, owner: alice.teamId });
    expect(read.body.profiles.map((p: any) => [p.profile_ref, p.digest])).toEqual(res.body.profiles.map((p: any) => [p.profile_ref, p.digest]));
    expect(read.body.files.map((f: any) => f.path)).toContain('blueprint.yaml');
  });

  it('is a no-op for identical content and a 409 for different content under the same version', async () => {
    const payload = blueprintPayload({ ref: 'immutable.team', profiles: [coordinator] });
    expect((await alice.request('POST', '/v1/blueprints/import', { body: payload })).status).toBe(201);
    const again = await alice.request('POST', '/v1/blueprints/import', { body: payload });
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    const changed = blueprintPayload({ ref: 'immutable.team', profiles: [{ ...coordinator, mission: 'Something else.' }] });
    expectRefusal(
      await alice.request('POST', '/v1/blueprints/import', { body: changed }),
      409,
      /immutable|already published/,
      'SVC_ERR_BLUEPRINT_VERSION_EXISTS',
    );
    const read = await t.request('GET', '/v1/blueprints/immutable.team/profiles/coordinator');
    expect(read.body.mission).toBe('Coordinate the team.');
  });

  it('refuses a version older than the latest', async () => {
    await alice.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'order.team', version: '2.0.0', profiles: [coordinator] }) });
    const older = blueprintPayload({ ref: 'order.team', version: '1.5.0', profiles: [coordinator] });
    expectRefusal(await alice.request('POST', '/v1/blueprints/import', { body: older }), 422, /newer/, 'SVC_ERR_BLUEPRINT_VERSION_NOT_NEWER');
  });

  it('recomputes every sha256 and refuses a mismatch, storing nothing', async () => {
    const payload = blueprintPayload({ ref: 'tampered.team', profiles: [coordinator] });
    payload.files[1] = { ...payload.files[1]!, content_utf8: `${payload.files[1]!.content_utf8}tampered` };
    expectRefusal(await alice.request('POST', '/v1/blueprints/import', { body: payload }), 422, /sha256/, 'SVC_ERR_VALIDATION');
    expect((await t.request('GET', '/v1/blueprints/tampered.team')).status).toBe(404);
  });

  it('refuses unsafe paths and a payload without blueprint.yaml', async () => {
    const payload = blueprintPayload({ ref: 'paths.team', profiles: [coordinator] });
    const escaping = { ...payload, files: [...payload.files, file('../outside.md', 'x')] };
    expectRefusal(await alice.request('POST', '/v1/blueprints/import', { body: escaping }), 422, undefined, 'SVC_ERR_VALIDATION');
    const headless = { ...payload, files: payload.files.filter((f) => f.path !== 'blueprint.yaml') };
    expectRefusal(await alice.request('POST', '/v1/blueprints/import', { body: headless }), 422, /blueprint\.yaml/, 'SVC_ERR_MANIFEST_INVALID');
    expectRefusal(
      await alice.request('POST', '/v1/blueprints/import', { body: { ...payload, schema: 'aweb.blueprint.import-payload.v1' } }),
      422,
      undefined,
      'SVC_ERR_VALIDATION',
    );
  });

  it('keeps a ref for the team that first published it', async () => {
    await alice.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'owned.team', profiles: [coordinator] }) });
    const takeover = blueprintPayload({ ref: 'owned.team', version: '9.0.0', profiles: [coordinator] });
    expectRefusal(await bob.request('POST', '/v1/blueprints/import', { body: takeover }), 403, /owned by/, 'SVC_ERR_BLUEPRINT_OWNED_BY_OTHER_TEAM');
    expectRefusal(
      await bob.request('PUT', '/v1/blueprints/owned.team/tags', { body: { tags: ['mine'] } }),
      403,
      undefined,
      'SVC_ERR_BLUEPRINT_OWNED_BY_OTHER_TEAM',
    );
    expectRefusal(await bob.request('DELETE', '/v1/blueprints/owned.team'), 403, undefined, 'SVC_ERR_BLUEPRINT_OWNED_BY_OTHER_TEAM');
    expect((await t.request('GET', '/v1/blueprints/owned.team')).body.version).toBe('1.0.0');
  });
});

describe('public reads and tags', () => {
  beforeAll(async () => {
    await alice.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'tagged.team', profiles: [coordinator] }) });
    await alice.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'plain.team', profiles: [reviewer] }) });
  });

  it('normalises tags and filters the list by any overlap', async () => {
    const res = await alice.request('PUT', '/v1/blueprints/tagged.team/tags', { body: { tags: [' Coder ', 'github', 'coder'] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ blueprint_ref: 'tagged.team', tags: ['coder', 'github'] });
    const filtered = await t.request('GET', '/v1/blueprints?tags=CODER');
    expect(filtered.status).toBe(200);
    expect(filtered.body.map((b: any) => b.blueprint_ref)).toEqual(['tagged.team']);
    const either = await t.request('GET', '/v1/blueprints?tags=github&tags=nothing');
    expect(either.body.map((b: any) => b.blueprint_ref)).toEqual(['tagged.team']);
    const all = await t.request('GET', '/v1/blueprints');
    expect(all.body.map((b: any) => b.blueprint_ref)).toEqual(expect.arrayContaining(['tagged.team', 'plain.team']));
  });

  it('refuses a tag that cannot be one where it was sent: the filter in the query, a set in the body', async () => {
    const filter = await t.request('GET', '/v1/blueprints?tags=coder,c%2B%2B');
    expectRefusal(filter, 422, undefined, 'SVC_ERR_VALIDATION');
    expect(filter.body.detail).toEqual([{ loc: ['query', 'tags', 1], msg: 'tag "c++" may only use a-z, 0-9, ".", "_" and "-"', type: 'custom' }]);
    const set = await alice.request('PUT', '/v1/blueprints/tagged.team/tags', { body: { tags: ['ok', 'x'.repeat(65)] } });
    expectRefusal(set, 422, undefined, 'SVC_ERR_VALIDATION');
    expect(set.body.detail).toEqual([{ loc: ['body', 'tags', 1], msg: 'tag must be at most 64 characters', type: 'custom' }]);
  });

  it('keeps the tags when a new version is published', async () => {
    await alice.request('PUT', '/v1/blueprints/tagged.team/tags', { body: { tags: ['coder'] } });
    await alice.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'tagged.team', version: '1.1.0', profiles: [coordinator] }) });
    const list = await t.request('GET', '/v1/blueprints?tags=coder');
    expect(list.body).toEqual([expect.objectContaining({ blueprint_ref: 'tagged.team', version: '1.1.0', tags: ['coder'] })]);
  });

  it('reads one profile with its manifest fields and profile-relative files', async () => {
    const res = await t.request('GET', '/v1/blueprints/plain.team/profiles/reviewer');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      blueprint_ref: 'plain.team',
      blueprint_version: '1.0.0',
      profile_ref: 'reviewer',
      version: '0.1.0',
      mission: 'Review every change.',
    });
    expect(res.body.files.map((f: any) => f.path)).toEqual(['instructions.md', 'profile.yaml']);
    expectRefusal(await t.request('GET', '/v1/blueprints/plain.team/profiles/nobody'), 404, undefined, 'SVC_ERR_BLUEPRINT_PROFILE_NOT_FOUND');
    expectRefusal(await t.request('GET', '/v1/blueprints/nothing.here'), 404, undefined, 'SVC_ERR_BLUEPRINT_NOT_FOUND');
  });

  it('reads an older version on request and lists every version', async () => {
    const res = await t.request('GET', '/v1/blueprints/tagged.team?version=1.0.0');
    expect(res.body.version).toBe('1.0.0');
    expect(res.body.versions.map((v: any) => v.version)).toEqual(['1.1.0', '1.0.0']);
    expectRefusal(await t.request('GET', '/v1/blueprints/tagged.team?version=9.9.9'), 404, /version 9\.9\.9/, 'SVC_ERR_BLUEPRINT_VERSION_NOT_FOUND');
  });

  it('answers a malformed ref with a 422', async () => {
    expectRefusal(await t.request('GET', '/v1/blueprints/Not%20A%20Ref'), 422, undefined, 'SVC_ERR_VALIDATION');
  });
});

describe('team register', () => {
  it('is idempotent and the first write wins', async () => {
    const first = await bob.request('POST', '/v1/team/register', { body: { owner: 'Bob', display_name: 'Beta team' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ team_id: bob.teamId, owner: 'Bob', display_name: 'Beta team' });
    const second = await bob.request('POST', '/v1/team/register', { body: { display_name: 'Renamed' } });
    expect(second.body).toEqual(first.body);
    expect((await bob.request('POST', '/v1/team/register')).body).toEqual(first.body);
  });
});

describe('delete', () => {
  it('hard-deletes every version and detaches the shelf copies', async () => {
    await alice.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'doomed.team', profiles: [coordinator] }) });
    await alice.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'doomed.team', version: '1.1.0', profiles: [coordinator] }) });
    const copy = await bob.request('POST', '/v1/shelf/import', { body: { source_blueprint_ref: 'doomed.team', profile_ref: 'coordinator' } });
    expect(copy.status).toBe(201);

    const res = await alice.request('DELETE', '/v1/blueprints/doomed.team');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ blueprint_ref: 'doomed.team', deleted_versions: ['1.0.0', '1.1.0'] });
    expect((await t.request('GET', '/v1/blueprints/doomed.team')).status).toBe(404);

    const shelf = await bob.request('GET', '/v1/shelf');
    const held = shelf.body.profiles.find((p: any) => p.profile_ref === 'coordinator');
    expect(held).toMatchObject({ source_blueprint_ref: null, source_blueprint_version: null, update_available: false });
    expectRefusal(
      await bob.request('POST', '/v1/profiles/coordinator/update-from-source', { body: { target_version: '0.2.0' } }),
      409,
      /no source/,
      'SVC_ERR_PROFILE_NO_SOURCE',
    );
    expectRefusal(await alice.request('DELETE', '/v1/blueprints/doomed.team'), 404, undefined, 'SVC_ERR_BLUEPRINT_NOT_FOUND');
  });
});
