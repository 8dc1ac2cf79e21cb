/**
 * The private shelf (spec §3, §4.6; docs/adr/0006-library-and-document-surfaces.md): profiles and
 * immutable versions, import from the catalog (idempotent per source profile), the newer-source
 * flag, update-from-source with its per-part 3-way merge, publish, tags and delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { blueprintPayload, file, profileFiles, type ProfileSpec } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, PUBLISHER_SCOPES, type TeamClient } from '../support/teams.ts';

let t: TestNode;
let team: TeamClient;
let other: TeamClient;

beforeAll(async () => {
  t = await startTestNode();
  // Publishes blueprints to import from, and approves (a deleted profile's proposal is gone: 404).
  team = await addTeamMember(t, { team: 'shelf', domain: 'shelf.test', scopes: [...PUBLISHER_SCOPES, 'library:approve'] });
  other = await addTeamMember(t, { team: 'outsiders', domain: 'outsiders.test' });
});
afterAll(async () => {
  await t.stop();
});

async function publishBlueprint(ref: string, version: string, profiles: ProfileSpec[]) {
  return expectOk(await team.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref, version, profiles }) }), 201);
}

async function shelfEntry(client: TeamClient, ref: string) {
  const shelf = expectOk(await client.request('GET', '/v1/shelf'));
  return shelf.profiles.find((p: any) => p.profile_ref === ref);
}

describe('profiles created on the shelf', () => {
  it('creates a profile whose ref is its profile.yaml id, with normalised tags', async () => {
    const res = await team.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'writer' }), tags: ['Marketing', 'twitter'] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      profile_ref: 'writer',
      version: '0.1.0',
      tags: ['marketing', 'twitter'],
      mission: 'Do what a writer does.',
      source_blueprint_ref: null,
      source_profile_digest: null,
    });
    expect(res.body.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expectRefusal(
      await team.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'writer', version: '0.2.0' }) } }),
      409,
      undefined,
      'SVC_ERR_PROFILE_EXISTS',
    );
  });

  it('refuses a payload without profile.yaml, or with one that does not parse', async () => {
    expectRefusal(
      await team.request('POST', '/v1/profiles', { body: { files: [file('instructions.md', 'x')] } }),
      422,
      /profile\.yaml/,
      'SVC_ERR_MANIFEST_INVALID',
    );
    expectRefusal(
      await team.request('POST', '/v1/profiles', { body: { files: [file('profile.yaml', 'id: [unclosed')] } }),
      422,
      undefined,
      'SVC_ERR_MANIFEST_INVALID',
    );
    expectRefusal(
      await team.request('POST', '/v1/profiles', { body: { files: [file('profile.yaml', 'id: x\nversion: 1.0\n')] } }),
      422,
      /version/,
      'SVC_ERR_MANIFEST_INVALID',
    );
  });

  it('adds versions: new ones only, newer than the latest, keeping the tags', async () => {
    await team.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'editor' }), tags: ['words'] } });
    const v2 = await team.request('POST', '/v1/profiles/editor/versions', {
      body: { files: profileFiles({ ref: 'editor', version: '0.2.0', mission: 'Edit.' }) },
    });
    expect(v2.status).toBe(201);
    expect(v2.body).toMatchObject({ version: '0.2.0', mission: 'Edit.', tags: ['words'] });
    expectRefusal(
      await team.request('POST', '/v1/profiles/editor/versions', { body: { files: profileFiles({ ref: 'editor', version: '0.2.0', mission: 'Overwrite?' }) } }),
      409,
      /immutable/,
      'SVC_ERR_PROFILE_VERSION_EXISTS',
    );
    expectRefusal(
      await team.request('POST', '/v1/profiles/editor/versions', { body: { files: profileFiles({ ref: 'editor', version: '0.1.5' }) } }),
      422,
      /newer/,
      'SVC_ERR_PROFILE_VERSION_NOT_NEWER',
    );
    expectRefusal(
      await team.request('POST', '/v1/profiles/editor/versions', { body: { files: profileFiles({ ref: 'someone', version: '0.3.0' }) } }),
      422,
      /id/,
      'SVC_ERR_PROFILE_ID_MISMATCH',
    );
    expectRefusal(
      await team.request('POST', '/v1/profiles/nobody/versions', { body: { files: profileFiles({ ref: 'nobody' }) } }),
      404,
      undefined,
      'SVC_ERR_PROFILE_NOT_FOUND',
    );
    const history = expectOk(await team.request('GET', '/v1/profiles/editor/versions'));
    expect(history.versions.map((v: any) => [v.version, v.origin])).toEqual([
      ['0.2.0', 'version'],
      ['0.1.0', 'created'],
    ]);
    expect((await team.request('GET', '/v1/profiles/editor?version=0.1.0')).body.mission).toBe('Do what a editor does.');
  });

  it('includes files and proposal asset digests on request', async () => {
    const plain = expectOk(await team.request('GET', '/v1/profiles/editor'));
    expect(plain.files).toBeUndefined();
    const full = expectOk(await team.request('GET', '/v1/profiles/editor?include=files'));
    expect(full.files.map((f: any) => f.path)).toEqual(['instructions.md', 'profile.yaml']);
    const instructions = full.files.find((f: any) => f.path === 'instructions.md');
    expect(full.proposal_asset_digests['instructions.md']).toBe(instructions.sha256);
    expect(full.proposal_asset_digests['profile.yaml#mission']).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(full.proposal_asset_digests['profile.yaml#event_subscriptions']).toBeUndefined();
  });

  it("sets tags on every version and hides other teams' profiles", async () => {
    expect(expectOk(await team.request('PUT', '/v1/profiles/editor/tags', { body: { tags: ['b', 'A'] } }))).toEqual({
      profile_ref: 'editor',
      tags: ['a', 'b'],
    });
    expect((await team.request('GET', '/v1/profiles/editor?version=0.1.0')).body.tags).toEqual(['a', 'b']);
    expectRefusal(await other.request('GET', '/v1/profiles/editor'), 404, undefined, 'SVC_ERR_PROFILE_NOT_FOUND');
    expect((await other.request('GET', '/v1/shelf')).body.profiles.some((p: any) => p.profile_ref === 'editor')).toBe(false);
  });
});

describe('import from the catalog', () => {
  beforeAll(async () => {
    await publishBlueprint('source.team', '1.0.0', [{ ref: 'analyst', mission: 'Analyse.' }]);
  });

  it('copies the profile byte for byte, then re-import returns the copy unchanged', async () => {
    const first = await team.request('POST', '/v1/shelf/import', { body: { source_blueprint_ref: 'source.team', profile_ref: 'analyst', tags: ['Data'] } });
    expect(first.status).toBe(201);
    const source = expectOk(await t.request('GET', '/v1/blueprints/source.team/profiles/analyst'));
    expect(first.body).toMatchObject({
      profile_ref: 'analyst',
      version: '0.1.0',
      digest: source.digest,
      source_blueprint_ref: 'source.team',
      source_blueprint_version: '1.0.0',
      source_profile_ref: 'analyst',
      source_profile_digest: source.digest,
      created: true,
    });
    const again = await team.request('POST', '/v1/shelf/import', { body: { source_blueprint_ref: 'source.team', profile_ref: 'analyst', tags: ['other'] } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, created: false });
    const history = expectOk(await team.request('GET', '/v1/profiles/analyst/versions'));
    expect(history.versions).toHaveLength(1);
  });

  it('refuses the same ref from a different source, and an unknown source', async () => {
    await publishBlueprint('rival.team', '1.0.0', [{ ref: 'analyst' }]);
    expectRefusal(
      await team.request('POST', '/v1/shelf/import', { body: { source_blueprint_ref: 'rival.team', profile_ref: 'analyst' } }),
      409,
      undefined,
      'SVC_ERR_PROFILE_EXISTS',
    );
    expectRefusal(
      await team.request('POST', '/v1/shelf/import', { body: { source_blueprint_ref: 'missing.team', profile_ref: 'analyst' } }),
      404,
      undefined,
      'SVC_ERR_BLUEPRINT_NOT_FOUND',
    );
    expectRefusal(
      await team.request('POST', '/v1/shelf/import', { body: { source_blueprint_ref: 'source.team', profile_ref: 'ghost' } }),
      404,
      undefined,
      'SVC_ERR_BLUEPRINT_PROFILE_NOT_FOUND',
    );
  });

  it('flags a newer source version on the shelf', async () => {
    expect(await shelfEntry(team, 'analyst')).toMatchObject({ update_available: false, source_blueprint_latest_version: '1.0.0', summary: 'Analyse.' });
    await publishBlueprint('source.team', '1.1.0', [{ ref: 'analyst', mission: 'Analyse.' }]);
    // The blueprint moved on, but this profile is the same there: nothing would be pulled.
    expect(await shelfEntry(team, 'analyst')).toMatchObject({
      update_available: true,
      source_profile_changed: false,
      source_blueprint_version: '1.0.0',
      source_blueprint_latest_version: '1.1.0',
    });
    await publishBlueprint('source.team', '1.2.0', [{ ref: 'analyst', mission: 'Analyse deeper.' }]);
    expect(await shelfEntry(team, 'analyst')).toMatchObject({ update_available: true, source_profile_changed: true });
  });
});

describe('update from source', () => {
  const upstream = (version: string, spec: Partial<ProfileSpec>) => publishBlueprint('merge.team', version, [{ ref: 'builder', ...spec }]);

  beforeAll(async () => {
    await upstream('1.0.0', { mission: 'Build things.', instructions: 'Original instructions.\n' });
    expectOk(await team.request('POST', '/v1/shelf/import', { body: { source_blueprint_ref: 'merge.team', profile_ref: 'builder' } }), 201);
  });

  it('is a no-op when nothing is pullable, minting nothing', async () => {
    await upstream('1.0.1', { mission: 'Build things.', instructions: 'Original instructions.\n' });
    const res = expectOk(await team.request('POST', '/v1/profiles/builder/update-from-source', { body: { target_version: '0.2.0' } }));
    expect(res).toMatchObject({ profile_ref: 'builder', version: '0.1.0', updated: false, updated_parts: [], preserved_parts: [] });
    expectRefusal(await team.request('GET', '/v1/profiles/builder?version=0.2.0'), 404, undefined, 'SVC_ERR_PROFILE_VERSION_NOT_FOUND');
  });

  it('takes un-evolved parts from upstream and keeps local edits', async () => {
    // A local edit of the instructions, then upstream changes both the mission and the instructions.
    const local = profileFiles({ ref: 'builder', version: '0.1.1', mission: 'Build things.', instructions: 'My own instructions.\n' });
    expectOk(await team.request('POST', '/v1/profiles/builder/versions', { body: { files: local } }), 201);
    await upstream('2.0.0', { mission: 'Build better things.', instructions: 'New upstream instructions.\n' });

    const preview = expectOk(await team.request('POST', '/v1/profiles/builder/update-from-source', { body: { target_version: '0.2.0', dry_run: true } }));
    expect(preview).toMatchObject({
      version: '0.1.1',
      updated: false,
      dry_run: true,
      updated_parts: ['field:mission'],
      preserved_parts: ['file:instructions.md'],
    });
    expectRefusal(await team.request('GET', '/v1/profiles/builder?version=0.2.0'), 404, undefined, 'SVC_ERR_PROFILE_VERSION_NOT_FOUND');
    expect(await shelfEntry(team, 'builder')).toMatchObject({ source_blueprint_version: '1.0.0', update_available: true });

    const res = expectOk(await team.request('POST', '/v1/profiles/builder/update-from-source', { body: { target_version: '0.2.0' } }));
    expect(res).toMatchObject({
      profile_ref: 'builder',
      version: '0.2.0',
      updated: true,
      updated_parts: ['field:mission'],
      preserved_parts: ['file:instructions.md'],
      source_blueprint_version: '2.0.0',
    });
    const merged = expectOk(await team.request('GET', '/v1/profiles/builder?include=files'));
    expect(merged).toMatchObject({ version: '0.2.0', mission: 'Build better things.', source_blueprint_version: '2.0.0' });
    expect(merged.files.find((f: any) => f.path === 'instructions.md').content_utf8).toBe('My own instructions.\n');
    expect(await shelfEntry(team, 'builder')).toMatchObject({ update_available: false });
  });

  it('pins a requested source version and refuses a target version that exists', async () => {
    await upstream('2.1.0', { mission: 'Build the best things.', instructions: 'New upstream instructions.\n' });
    expectRefusal(
      await team.request('POST', '/v1/profiles/builder/update-from-source', { body: { target_version: '0.2.0' } }),
      409,
      undefined,
      'SVC_ERR_PROFILE_VERSION_EXISTS',
    );
    expectRefusal(
      await team.request('POST', '/v1/profiles/builder/update-from-source', { body: { target_version: '0.3.0', source_blueprint_version: '9.9.9' } }),
      404,
      undefined,
      'SVC_ERR_BLUEPRINT_VERSION_NOT_FOUND',
    );
    expectRefusal(await team.request('POST', '/v1/profiles/builder/update-from-source', { body: {} }), 422, undefined, 'SVC_ERR_VALIDATION');
    const res = expectOk(
      await team.request('POST', '/v1/profiles/builder/update-from-source', { body: { target_version: '0.3.0', source_blueprint_version: '2.1.0' } }),
    );
    expect(res).toMatchObject({ version: '0.3.0', updated_parts: ['field:mission'], source_blueprint_version: '2.1.0' });
  });
});

describe('publish', () => {
  beforeAll(async () => {
    await team.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'scout', mission: 'Find things.' }) } });
    await team.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'courier', mission: 'Carry things.' }) } });
  });

  it('publishes into a new blueprint, keeping the shelf digest', async () => {
    const shelf = expectOk(await team.request('GET', '/v1/profiles/scout'));
    const res = await team.request('POST', '/v1/profiles/scout/publish', {
      body: { blueprint_version: '1.0.0', new_blueprint: { blueprint_ref: 'field.team', name: 'Field team', tags: ['Outdoor'], readme: '# Field team\n' } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      blueprint_ref: 'field.team',
      blueprint_version: '1.0.0',
      profile_ref: 'scout',
      profile_version: '0.1.0',
      profile_digest: shelf.digest,
    });
    const blueprint = expectOk(await t.request('GET', '/v1/blueprints/field.team'));
    expect(blueprint).toMatchObject({ name: 'Field team', tags: ['outdoor'], digest: res.body.blueprint_digest });
    expect(blueprint.files.map((f: any) => f.path)).toEqual(expect.arrayContaining(['blueprint.yaml', 'README.md', 'profiles/scout/profile.yaml']));
  });

  it('accumulates profiles in a new version of an owned blueprint and keeps its README', async () => {
    const res = await team.request('POST', '/v1/profiles/courier/publish', { body: { blueprint_version: '1.1.0', target_blueprint_ref: 'field.team' } });
    expect(res.status).toBe(201);
    const blueprint = expectOk(await t.request('GET', '/v1/blueprints/field.team'));
    expect(blueprint.version).toBe('1.1.0');
    expect(blueprint.profiles.map((p: any) => p.profile_ref)).toEqual(['courier', 'scout']);
    expect(blueprint.files.find((f: any) => f.path === 'README.md').content_utf8).toBe('# Field team\n');
    expect(blueprint.tags).toEqual(['outdoor']);
    // Publishing the same profile into the same version again would change nothing.
    expectRefusal(
      await team.request('POST', '/v1/profiles/courier/publish', { body: { blueprint_version: '1.1.0', target_blueprint_ref: 'field.team' } }),
      409,
      /exactly this content/,
      'SVC_ERR_BLUEPRINT_VERSION_UNCHANGED',
    );
  });

  it('needs exactly one target, an owned blueprint, and a free ref for a new one', async () => {
    expectRefusal(
      await team.request('POST', '/v1/profiles/scout/publish', { body: { blueprint_version: '2.0.0' } }),
      422,
      /exactly one/,
      'SVC_ERR_PUBLISH_TARGET_AMBIGUOUS',
    );
    const both = { blueprint_version: '2.0.0', target_blueprint_ref: 'field.team', new_blueprint: { blueprint_ref: 'x.team', name: 'X' } };
    expectRefusal(await team.request('POST', '/v1/profiles/scout/publish', { body: both }), 422, /exactly one/, 'SVC_ERR_PUBLISH_TARGET_AMBIGUOUS');
    expectRefusal(
      await team.request('POST', '/v1/profiles/scout/publish', {
        body: { blueprint_version: '2.0.0', new_blueprint: { blueprint_ref: 'field.team', name: 'Again' } },
      }),
      409,
      undefined,
      'SVC_ERR_BLUEPRINT_EXISTS',
    );
    await other.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'intruder' }) } });
    expectRefusal(
      await other.request('POST', '/v1/profiles/intruder/publish', { body: { blueprint_version: '3.0.0', target_blueprint_ref: 'field.team' } }),
      403,
      undefined,
      'SVC_ERR_SCOPE_MISSING',
    );
    const otherPublisher = await addTeamMember(t, { teamId: other.teamId, scopes: PUBLISHER_SCOPES });
    expectRefusal(
      await otherPublisher.request('POST', '/v1/profiles/intruder/publish', { body: { blueprint_version: '3.0.0', target_blueprint_ref: 'field.team' } }),
      403,
      /owned by/,
      'SVC_ERR_BLUEPRINT_OWNED_BY_OTHER_TEAM',
    );
    expectRefusal(
      await team.request('POST', '/v1/profiles/scout/publish', { body: { blueprint_version: '1.0.5', target_blueprint_ref: 'field.team' } }),
      422,
      /newer/,
      'SVC_ERR_BLUEPRINT_VERSION_NOT_NEWER',
    );
  });
});

describe('delete', () => {
  it('hard-deletes every version, binding and proposal of the profile', async () => {
    await team.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'temp' }) } });
    await team.request('POST', '/v1/profiles/temp/versions', { body: { files: profileFiles({ ref: 'temp', version: '0.2.0' }) } });
    expectOk(await team.request('POST', '/v1/agents/agent-temp/profile-binding', { body: { profile_ref: 'temp' } }));
    const digests = expectOk(await team.request('GET', '/v1/profiles/temp?include=files')).proposal_asset_digests;
    const proposal = {
      target: 'profile',
      profile_ref: 'temp',
      content: {
        schema: 'svc.library.profile-asset-changeset.v1',
        assets: [{ path: 'profile.yaml#mission', content: 'Temporary.', base_asset_digest: digests['profile.yaml#mission'] }],
      },
    };
    const submitted = expectOk(await team.request('POST', '/v1/proposals', { body: proposal }), 201);

    const res = expectOk(await team.request('DELETE', '/v1/profiles/temp'));
    expect(res).toEqual({ profile_ref: 'temp', deleted_versions: ['0.1.0', '0.2.0'] });
    expectRefusal(await team.request('GET', '/v1/profiles/temp'), 404, undefined, 'SVC_ERR_PROFILE_NOT_FOUND');
    expectRefusal(await team.request('GET', '/v1/agents/agent-temp/profile-binding'), 404, undefined, 'SVC_ERR_BINDING_NOT_FOUND');
    expectRefusal(await team.request('POST', `/v1/proposals/${submitted.proposal_id}/approve`), 404, undefined, 'SVC_ERR_PROPOSAL_NOT_FOUND');
    expectRefusal(await team.request('DELETE', '/v1/profiles/temp'), 404, undefined, 'SVC_ERR_PROFILE_NOT_FOUND');
  });
});

describe('paging the shelf (ours: limit and after)', () => {
  let pager: TeamClient;
  const refs = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
  const page = async (query: string) => expectOk(await pager.request('GET', `/v1/shelf?${query}`));

  beforeAll(async () => {
    pager = await addTeamMember(t, { team: 'pager', domain: 'pager.test' });
    // Created out of order: the listing is in profile_ref order, not creation order.
    for (const ref of [...refs].reverse()) expectOk(await pager.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref }) } }), 201);
  });

  it('walks the shelf in profile_ref order with has_more and next_after', async () => {
    const first = await page('limit=2');
    expect(first.profiles.map((p: any) => p.profile_ref)).toEqual(['alpha', 'bravo']);
    expect(first).toMatchObject({ has_more: true, next_after: 'bravo' });
    const second = await page(`limit=2&after=${first.next_after}`);
    expect(second.profiles.map((p: any) => p.profile_ref)).toEqual(['charlie', 'delta']);
    expect(second).toMatchObject({ has_more: true, next_after: 'delta' });
    const last = await page(`limit=2&after=${second.next_after}`);
    expect(last.profiles.map((p: any) => p.profile_ref)).toEqual(['echo']);
    expect(last).toMatchObject({ has_more: false, next_after: null });
    // A page that exactly ends the shelf says so; it does not promise an empty one after it.
    expect(await page('limit=5')).toMatchObject({ has_more: false, next_after: null });
  });

  it('takes any ref as the bound, held or not, with or without a limit', async () => {
    expect((await page('limit=2&after=bz')).profiles.map((p: any) => p.profile_ref)).toEqual(['charlie', 'delta']);
    expect((await page('after=delta')).profiles.map((p: any) => p.profile_ref)).toEqual(['echo']);
    expect(await page('limit=2&after=zulu')).toEqual({ profiles: [], has_more: false, next_after: null });
  });

  it('without a limit lists the whole working set, the same entries the pages hold', async () => {
    const all = expectOk(await pager.request('GET', '/v1/shelf'));
    expect(Object.keys(all)).toEqual(['profiles', 'has_more', 'next_after']);
    expect(all).toMatchObject({ has_more: false, next_after: null });
    expect(all.profiles.map((p: any) => p.profile_ref)).toEqual(refs);
    const paged = [...(await page('limit=3')).profiles, ...(await page('limit=3&after=charlie')).profiles];
    expect(paged).toEqual(all.profiles);
  });

  it('refuses a limit outside 1..500 and an after that is not a profile_ref', async () => {
    for (const limit of ['0', '501', '-1', '1.5', 'ten', '']) expectValidation(await pager.request('GET', `/v1/shelf?limit=${limit}`), 'limit');
    for (const after of ['Alpha', '-x', '%2E%2E', '', 'a'.repeat(129)])
      expectValidation(await pager.request('GET', `/v1/shelf?limit=2&after=${after}`), 'after');
  });
});
