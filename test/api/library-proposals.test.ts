/**
 * Proposals (spec §3, §7) and bindings with materialize
 * (docs/adr/0006-library-and-document-surfaces.md): changesets checked at submission and again at
 * approval, which mints the next patch version; stale bases rejected; bindings to exact shelf
 * versions; home files per runtime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../contract/errors.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { CHANGESET_SCHEMA, profileFiles } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, MEMBER_SCOPES, type TeamClient } from '../support/teams.ts';

let t: TestNode;
let team: TeamClient;
let reviewer: TeamClient;
let counter = 0;

beforeAll(async () => {
  t = await startTestNode();
  team = await addTeamMember(t, { team: 'props', domain: 'props.test', alias: 'author' });
  reviewer = await addTeamMember(t, { teamId: team.teamId, alias: 'coordinator', scopes: [...MEMBER_SCOPES, 'library:approve'] });
});
afterAll(async () => {
  await t.stop();
});

/** A fresh shelf profile and its current proposal digests. */
async function freshProfile(): Promise<{ ref: string; digests: Record<string, string> }> {
  const ref = `worker-${++counter}`;
  expectOk(await team.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref, skills: { triage: '# Triage\n' } }) } }), 201);
  const { proposal_asset_digests } = expectOk(await team.request('GET', `/v1/profiles/${ref}?include=files`));
  return { ref, digests: proposal_asset_digests };
}

const propose = (client: TeamClient, ref: string, assets: unknown[], extra: Record<string, unknown> = {}) =>
  client.request('POST', '/v1/proposals', { body: { target: 'profile', profile_ref: ref, content: { schema: CHANGESET_SCHEMA, assets }, ...extra } });

describe('submission', () => {
  it('stores a valid changeset as an open proposal by its author', async () => {
    const { ref, digests } = await freshProfile();
    const res = await propose(
      team,
      ref,
      [{ path: 'profile.yaml#mission', content: 'A sharper mission.', base_asset_digest: digests['profile.yaml#mission'] }],
      {
        summary: 'Sharpen the mission',
        rationale: 'Reviews kept asking what the role is for.',
      },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      target: 'profile',
      profile_ref: ref,
      status: 'open',
      created_by_alias: 'author',
      summary: 'Sharpen the mission',
      base_profile_version: '0.1.0',
    });
    expect(res.body.proposal_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rejects invalid changes before review, storing nothing', async () => {
    const { ref, digests } = await freshProfile();
    const before = (await team.request('GET', '/v1/proposals')).body.length;
    const cases: [unknown[] | { schema: string; assets: unknown[] }, number, ErrorCode][] = [
      [[{ path: 'profile.yaml', content_utf8: 'id: x' }], 422, 'SVC_ERR_VALIDATION'],
      [[{ path: 'profile.yaml#favourite_colour', content: 'blue' }], 422, 'SVC_ERR_VALIDATION'],
      [[{ path: '../escape.md', content_utf8: 'x' }], 422, 'SVC_ERR_VALIDATION'],
      [[{ path: 'notes.md', content_utf8: 'x', delete: true }], 422, 'SVC_ERR_VALIDATION'],
      [[{ path: 'instructions.md', content: 'not utf8 field' }], 422, 'SVC_ERR_VALIDATION'],
      [[], 422, 'SVC_ERR_VALIDATION'],
      [[{ path: 'instructions.md', content_utf8: 'new', base_asset_digest: `sha256:${'0'.repeat(64)}` }], 409, 'SVC_ERR_PROPOSAL_BASE_STALE'],
      [[{ path: 'instructions.md', content_utf8: 'new' }], 409, 'SVC_ERR_PROPOSAL_BASE_STALE'],
      [[{ path: 'missing.md', delete: true }], 409, 'SVC_ERR_PROPOSAL_BASE_STALE'],
      [
        [
          { path: 'profile.yaml#mission', content: 'a', base_asset_digest: digests['profile.yaml#mission'] },
          { path: 'profile.yaml#mission', content: 'b', base_asset_digest: digests['profile.yaml#mission'] },
        ],
        409,
        'SVC_ERR_PROPOSAL_CHANGES_COLLIDE',
      ],
      [[{ path: 'instructions.md', delete: true, base_asset_digest: digests['instructions.md'] }], 409, 'SVC_ERR_PROPOSAL_CHANGES_COLLIDE'],
    ];
    for (const [assets, status, code] of cases) {
      expectRefusal(await propose(team, ref, assets as unknown[]), status, undefined, code);
    }
    const wrongSchema = await team.request('POST', '/v1/proposals', {
      body: { target: 'profile', profile_ref: ref, content: { schema: 'aweb.library.profile-asset-changeset.v1', assets: [] } },
    });
    expectRefusal(wrongSchema, 422, undefined, 'SVC_ERR_VALIDATION');
    expectRefusal(await propose(team, 'no-such-profile', [{ path: 'notes.md', content_utf8: 'x' }]), 404, undefined, 'SVC_ERR_PROFILE_NOT_FOUND');
    expect((await team.request('GET', '/v1/proposals')).body.length).toBe(before);
  });

  it("lists the team's proposals newest first, filterable by status", async () => {
    const { ref } = await freshProfile();
    const a = expectOk(await propose(team, ref, [{ path: 'notes/a.md', content_utf8: 'a' }]), 201);
    const b = expectOk(await propose(team, ref, [{ path: 'notes/b.md', content_utf8: 'b' }]), 201);
    const list = expectOk(await team.request('GET', `/v1/proposals?profile_ref=${ref}`));
    expect(list.map((p: any) => p.proposal_id)).toEqual([b.proposal_id, a.proposal_id]);
    const open = expectOk(await team.request('GET', '/v1/proposals?status=open'));
    expect(open.every((p: any) => p.status === 'open')).toBe(true);
  });
});

describe('approval and rejection', () => {
  it('approves with current bases and mints the next patch version', async () => {
    const { ref, digests } = await freshProfile();
    const submitted = expectOk(
      await propose(team, ref, [
        { path: 'profile.yaml#mission', content: 'Approved mission.', base_asset_digest: digests['profile.yaml#mission'] },
        { path: 'instructions.md', content_utf8: 'Better instructions.\n', base_asset_digest: digests['instructions.md'] },
      ]),
      201,
    );
    const res = expectOk(await reviewer.request('POST', `/v1/proposals/${submitted.proposal_id}/approve`));
    expect(res).toMatchObject({ status: 'approved', decided_by_alias: 'coordinator' });
    const current = expectOk(await team.request('GET', `/v1/profiles/${ref}?include=files`));
    expect(res.minted).toEqual({
      profile_ref: ref,
      version: '0.1.1',
      digest: current.digest,
      supersedes_profile_version: '0.1.0',
      supersedes_profile_digest: expect.stringMatching(/^sha256:/),
    });
    expect(current).toMatchObject({ version: '0.1.1', mission: 'Approved mission.' });
    expect(current.files.find((f: any) => f.path === 'instructions.md').content_utf8).toBe('Better instructions.\n');
    expectRefusal(await reviewer.request('POST', `/v1/proposals/${submitted.proposal_id}/approve`), 409, /already approved/, 'SVC_ERR_PROPOSAL_DECIDED');
    expectRefusal(await reviewer.request('POST', `/v1/proposals/${submitted.proposal_id}/reject`), 409, undefined, 'SVC_ERR_PROPOSAL_DECIDED');
  });

  it('rejects at approval when a base went stale, and mints nothing', async () => {
    const { ref, digests } = await freshProfile();
    const base = digests['profile.yaml#mission'];
    const first = expectOk(await propose(team, ref, [{ path: 'profile.yaml#mission', content: 'First.', base_asset_digest: base }]), 201);
    const second = expectOk(await propose(team, ref, [{ path: 'profile.yaml#mission', content: 'Second.', base_asset_digest: base }]), 201);
    expectOk(await reviewer.request('POST', `/v1/proposals/${first.proposal_id}/approve`));
    // Its own code, not the submit-time SVC_ERR_PROPOSAL_BASE_STALE: the UI shows "rejected" without guessing from the 409.
    expectRefusal(
      await reviewer.request('POST', `/v1/proposals/${second.proposal_id}/approve`),
      409,
      /stale.*recheck rejected/,
      'SVC_ERR_PROPOSAL_RECHECK_REJECTED',
    );
    // Decided now: approving again is the ordinary "already decided" refusal.
    expectRefusal(await reviewer.request('POST', `/v1/proposals/${second.proposal_id}/approve`), 409, /already rejected/, 'SVC_ERR_PROPOSAL_DECIDED');
    const after = expectOk(await team.request('GET', `/v1/proposals?profile_ref=${ref}`)).find((p: any) => p.proposal_id === second.proposal_id);
    expect(after).toMatchObject({ status: 'rejected', decision_reason: expect.stringMatching(/stale/) });
    expect(expectOk(await team.request('GET', `/v1/profiles/${ref}`))).toMatchObject({ version: '0.1.1', mission: 'First.' });
  });

  it('composes non-overlapping proposals', async () => {
    const { ref, digests } = await freshProfile();
    const mission = expectOk(
      await propose(team, ref, [{ path: 'profile.yaml#mission', content: 'M.', base_asset_digest: digests['profile.yaml#mission'] }]),
      201,
    );
    const skill = expectOk(
      await propose(team, ref, [
        { path: 'skills/review/SKILL.md', content_utf8: '# Review\n' },
        {
          path: 'profile.yaml#skills',
          content: [
            { path: 'skills/triage/SKILL.md', kind: 'skill' },
            { path: 'skills/review/SKILL.md', kind: 'skill' },
          ],
          base_asset_digest: digests['profile.yaml#skills'],
        },
      ]),
      201,
    );
    expectOk(await reviewer.request('POST', `/v1/proposals/${mission.proposal_id}/approve`));
    const res = expectOk(await reviewer.request('POST', `/v1/proposals/${skill.proposal_id}/approve`));
    expect(res.minted.version).toBe('0.1.2');
    const current = expectOk(await team.request('GET', `/v1/profiles/${ref}?include=files`));
    expect(current.mission).toBe('M.');
    expect(current.files.map((f: any) => f.path)).toContain('skills/review/SKILL.md');
  });

  it('rejects an open proposal once', async () => {
    const { ref } = await freshProfile();
    const submitted = expectOk(await propose(team, ref, [{ path: 'notes.md', content_utf8: 'n' }]), 201);
    expect(expectOk(await reviewer.request('POST', `/v1/proposals/${submitted.proposal_id}/reject`))).toMatchObject({
      status: 'rejected',
      decided_by_alias: 'coordinator',
    });
    expectRefusal(await reviewer.request('POST', `/v1/proposals/${submitted.proposal_id}/reject`), 409, /already rejected/, 'SVC_ERR_PROPOSAL_DECIDED');
    expectRefusal(await reviewer.request('POST', `/v1/proposals/${submitted.proposal_id}/approve`), 409, /already rejected/, 'SVC_ERR_PROPOSAL_DECIDED');
    expect(expectOk(await team.request('GET', `/v1/profiles/${ref}`)).version).toBe('0.1.0');
  });

  it('hides proposals from other teams', async () => {
    const { ref } = await freshProfile();
    const submitted = expectOk(await propose(team, ref, [{ path: 'notes.md', content_utf8: 'n' }]), 201);
    const outsider = await addTeamMember(t, { team: 'elsewhere', domain: 'elsewhere.test', scopes: [...MEMBER_SCOPES, 'library:approve'] });
    expectRefusal(await outsider.request('POST', `/v1/proposals/${submitted.proposal_id}/approve`), 404, undefined, 'SVC_ERR_PROPOSAL_NOT_FOUND');
    expect(expectOk(await outsider.request('GET', '/v1/proposals'))).toEqual([]);
  });
});

describe('bindings and materialize', () => {
  let ref: string;
  beforeAll(async () => {
    ({ ref } = await freshProfile());
  });

  it('binds an agent to an exact shelf version and reads it back', async () => {
    const current = expectOk(await team.request('GET', `/v1/profiles/${ref}`));
    const res = expectOk(
      await team.request('POST', '/v1/agents/agent-1/profile-binding', {
        body: { profile_ref: ref, profile_version: '0.1.0', profile_digest: current.digest },
      }),
    );
    expect(res).toMatchObject({ agent_id: 'agent-1', profile_ref: ref, profile_version: '0.1.0', profile_digest: current.digest });
    expect(expectOk(await team.request('GET', '/v1/agents/agent-1/profile-binding'))).toEqual(res);
  });

  it('refuses a binding to something not on the shelf', async () => {
    expectRefusal(
      await team.request('POST', '/v1/agents/agent-2/profile-binding', { body: { profile_ref: 'nothing' } }),
      404,
      undefined,
      'SVC_ERR_PROFILE_NOT_FOUND',
    );
    expectRefusal(
      await team.request('POST', '/v1/agents/agent-2/profile-binding', { body: { profile_ref: ref, profile_version: '9.9.9' } }),
      404,
      undefined,
      'SVC_ERR_PROFILE_VERSION_NOT_FOUND',
    );
    expectRefusal(
      await team.request('POST', '/v1/agents/agent-2/profile-binding', { body: { profile_ref: ref, profile_digest: `sha256:${'1'.repeat(64)}` } }),
      409,
      undefined,
      'SVC_ERR_PROFILE_DIGEST_MISMATCH',
    );
    expectRefusal(await team.request('GET', '/v1/agents/agent-2/profile-binding'), 404, /No profile binding/, 'SVC_ERR_BINDING_NOT_FOUND');
  });

  it("materializes a bound agent's home for claude-code", async () => {
    const res = expectOk(await team.request('POST', '/v1/materialize', { body: { agent_id: 'agent-1', runtime_kind: 'claude-code', target: 'local' } }));
    expect(res).toMatchObject({ profile_ref: ref, profile_version: '0.1.0', runtime_kind: 'claude-code', target: 'local', source_blueprint_ref: null });
    const paths = res.home_files.map((f: any) => f.path);
    expect(paths).toEqual([...paths].sort());
    expect(res.managed_set).toEqual(paths);
    const agents = res.home_files.find((f: any) => f.path === 'AGENTS.md');
    expect(agents.content_utf8).toMatch(/^# The worker-\d+\n/);
    expect(agents.content_utf8).toContain('## Mission');
    expect(res.home_files.find((f: any) => f.path === 'CLAUDE.md')).toEqual({ path: 'CLAUDE.md', kind: 'symlink', target: 'AGENTS.md' });
    expect(paths).toContain('skills/triage/SKILL.md');
    const refJson = JSON.parse(res.home_files.find((f: any) => f.path.endsWith('ref.json')).content_utf8);
    expect(refJson).toMatchObject({ profile_ref: ref, profile_version: '0.1.0', runtime_kind: 'claude-code' });
  });

  it('materializes a named profile for another runtime without Claude symlinks', async () => {
    const res = expectOk(await team.request('POST', '/v1/materialize', { body: { profile_ref: ref, runtime_kind: 'codex', target: 'custodial-mcp' } }));
    expect(res.home_files.some((f: any) => f.kind === 'symlink')).toBe(false);
    expect(res.home_files.map((f: any) => f.path)).toContain('AGENTS.md');
  });

  it('needs a selector and a known target', async () => {
    expectRefusal(
      await team.request('POST', '/v1/materialize', { body: { runtime_kind: 'codex', target: 'local' } }),
      422,
      /agent_id|profile_ref/,
      'SVC_ERR_MATERIALIZE_SOURCE_MISSING',
    );
    expectRefusal(
      await team.request('POST', '/v1/materialize', { body: { profile_ref: ref, runtime_kind: 'codex', target: 'cloud' } }),
      422,
      undefined,
      'SVC_ERR_VALIDATION',
    );
    expectRefusal(
      await team.request('POST', '/v1/materialize', { body: { agent_id: 'agent-unbound', runtime_kind: 'codex', target: 'local' } }),
      404,
      undefined,
      'SVC_ERR_BINDING_NOT_FOUND',
    );
  });
});
