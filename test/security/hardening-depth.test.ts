/**
 * Deep nesting and YAML bombs. Each attack once answered 500 (a stack overflow in whatever
 * walked the value first, or the YAML library's alias guard thrown as an internal error): `context`
 * nested thousands deep on PATCH /v1/agents/me and POST /v1/workspaces/init, a proposal's field
 * asset nested 3,000 deep, and an alias bomb in profile.yaml. Each is sent over real HTTP and must
 * be a 4xx with a plain detail that leaves the stored data as it was. The limits are
 * MAX_JSON_DEPTH (64) for JSON bodies and YAML, MAX_YAML_BYTES for a YAML file, no YAML aliases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../server/json-depth.ts';
import { MAX_YAML_BYTES } from '../../server/surfaces/library/domain/yaml-doc.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createProject, type Project } from '../support/identities.ts';
import { blueprintPayload, CHANGESET_SCHEMA, file, profileFiles } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, type TeamClient } from '../support/teams.ts';

const TOO_DEEP = /deeper than 64 levels/;

/** JSON text of `depth` arrays, one inside the other. */
const arrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** An alias bomb: each level names the previous one nine times (9^9 strings once expanded). */
function aliasBomb(): string {
  const lines = ['l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i <= 9; i++)
    lines.push(
      `l${i}: &l${i} [${Array(9)
        .fill(`*l${i - 1}`)
        .join(', ')}]`,
    );
  return `${lines.join('\n')}\n`;
}

/** profile.yaml for `ref` with `extra` lines appended (top-level keys). */
const profileYaml = (ref: string, extra: string): string => `id: ${ref}\nversion: "0.1.0"\nname: Worker\nmission: Work.\n${extra}`;

/** A profile payload whose profile.yaml is `yaml`. */
const profileWithYaml = (ref: string, yaml: string) => [file('profile.yaml', yaml), ...profileFiles({ ref }).filter((f) => f.path !== 'profile.yaml')];

let t: TestNode;
let project: Project;
let agent: { api_key: string };
let team: TeamClient;

beforeAll(async () => {
  t = await startTestNode();
  project = await createProject(t, 'deep');
  agent = await createIdentity(t, project.api_key, { alias: 'target', context: { repo: 'svc-node' } });
  team = await addTeamMember(t, { team: 'deep', domain: 'deep.test', scopes: ['library:read', 'library:write', 'library:publish'] });
  expectOk(await team.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'worker' }) } }), 201);
});
afterAll(async () => {
  await t.stop();
});

const introspect = async () => expectOk(await t.request('GET', '/v1/auth/introspect', { token: agent.api_key }));
const identityCount = async () => expectOk(await t.owner('GET', '/v1/node/identities')).identities.length as number;

describe('JSON nested deeper than the limit', () => {
  it(`PATCH /v1/agents/me with context nested 3,000 and 100,000 deep: 400, context unchanged`, async () => {
    for (const depth of [3000, 100_000]) {
      const res = await t.request('PATCH', '/v1/agents/me', { token: agent.api_key, raw: `{"context":{"a":${arrays(depth)}}}` });
      expectRefusal(res, 400, TOO_DEEP, 'SVC_ERR_JSON_TOO_DEEP');
    }
    expect((await introspect()).context).toEqual({ repo: 'svc-node' });
  });

  it('POST /v1/workspaces/init with context nested 8,000 deep: 400, no identity created', async () => {
    const before = await identityCount();
    const res = await t.request('POST', '/v1/workspaces/init', { token: project.api_key, raw: `{"alias":"deep","context":{"a":${arrays(8000)}}}` });
    expectRefusal(res, 400, TOO_DEEP, 'SVC_ERR_JSON_TOO_DEEP');
    expect(await identityCount()).toBe(before);
  });

  it('takes a body exactly 64 deep, refuses 65, and counts no bracket inside a string', async () => {
    // The body object and context are two levels; the arrays make up the rest.
    const ok = await t.request('PATCH', '/v1/agents/me', {
      token: agent.api_key,
      raw: `{"context":{"a":${arrays(MAX_JSON_DEPTH - 2)},"s":"${'['.repeat(500)}"}}`,
    });
    expect(expectOk(ok).context.s).toBe('['.repeat(500));
    expectRefusal(
      await t.request('PATCH', '/v1/agents/me', { token: agent.api_key, raw: `{"context":{"a":${arrays(MAX_JSON_DEPTH - 1)}}}` }),
      400,
      TOO_DEEP,
      'SVC_ERR_JSON_TOO_DEEP',
    );
    expectOk(await t.request('PATCH', '/v1/agents/me', { token: agent.api_key, body: { context: { repo: 'svc-node' } } }));
  });

  it('a proposal whose field asset is nested 3,000 deep: 400, no proposal stored', async () => {
    const { proposal_asset_digests: digests } = expectOk(await team.request('GET', '/v1/profiles/worker?include=files'));
    const before = expectOk(await team.request('GET', '/v1/proposals')).length;
    const deep = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;
    const raw = `{"target":"profile","profile_ref":"worker","content":{"schema":"${CHANGESET_SCHEMA}","assets":[{"path":"profile.yaml#mission","content":${deep},"base_asset_digest":"${digests['profile.yaml#mission']}"}]}}`;
    expectRefusal(await team.request('POST', '/v1/proposals', { raw }), 400, TOO_DEEP, 'SVC_ERR_JSON_TOO_DEEP');
    expect(expectOk(await team.request('GET', '/v1/proposals')).length).toBe(before);
  });
});

describe('YAML bombs and deep YAML in payload files', () => {
  const shelfRefs = async () => (expectOk(await team.request('GET', '/v1/shelf')).profiles as { profile_ref: string }[]).map((p) => p.profile_ref).sort();
  const versionsOf = async (ref: string) => expectOk(await team.request('GET', `/v1/profiles/${ref}/versions`));

  it('an alias bomb in profile.yaml: 422 naming aliases, on a new profile and on a new version; nothing stored', async () => {
    const shelf = await shelfRefs();
    const history = await versionsOf('worker');
    const created = await team.request('POST', '/v1/profiles', { body: { files: profileWithYaml('bomb', profileYaml('bomb', aliasBomb())) } });
    expectRefusal(created, 422, /aliases \(\*l0\) are not allowed/);
    const bumped = profileYaml('worker', aliasBomb()).replace('0.1.0', '0.2.0');
    expectRefusal(await team.request('POST', '/v1/profiles/worker/versions', { body: { files: profileWithYaml('worker', bumped) } }), 422, /aliases/);
    expect(await shelfRefs()).toEqual(shelf);
    expect(await versionsOf('worker')).toEqual(history);
  });

  it('a single alias is refused too, and so is an alias bomb in blueprint.yaml; the catalog is unchanged', async () => {
    const one = profileYaml('aliased', 'accepted_work: &work [reviews]\nexpected_apps: *work\n');
    expectRefusal(await team.request('POST', '/v1/profiles', { body: { files: profileWithYaml('aliased', one) } }), 422, /aliases \(\*work\)/);

    const payload = blueprintPayload({ ref: 'bombs', profiles: [{ ref: 'worker' }] });
    const manifest = payload.files[0]!;
    payload.files[0] = file('blueprint.yaml', `${manifest.content_utf8}${aliasBomb()}`);
    expectRefusal(await team.request('POST', '/v1/blueprints/import', { body: payload }), 422, /aliases/);
    expectRefusal(await t.request('GET', '/v1/blueprints/bombs'), 404);
  });

  it('profile.yaml nested 3,000 deep (flow and block style): 422, nothing stored', async () => {
    const shelf = await shelfRefs();
    const flow = profileYaml('flow', `accepted_work: ${arrays(3000)}\n`);
    const block = profileYaml('block', `accepted_work:\n${'- '.repeat(3000)}x\n`);
    for (const [ref, yaml] of [
      ['flow', flow],
      ['block', block],
    ] as const) {
      expectRefusal(await team.request('POST', '/v1/profiles', { body: { files: profileWithYaml(ref, yaml) } }), 422, TOO_DEEP);
    }
    expect(await shelfRefs()).toEqual(shelf);
  });

  it(`a profile.yaml over ${MAX_YAML_BYTES} bytes: 422`, async () => {
    const big = profileYaml('big', `notes: "${'x'.repeat(MAX_YAML_BYTES)}"\n`);
    expectRefusal(await team.request('POST', '/v1/profiles', { body: { files: profileWithYaml('big', big) } }), 422, /at most 262144 bytes/);
    expectRefusal(await team.request('GET', '/v1/profiles/big'), 404);
  });
});
