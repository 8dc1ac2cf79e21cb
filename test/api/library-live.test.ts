/**
 * What the owner's UI hears on its feed (`GET /v1/node/events/stream`) when something else
 * changes the teams or a team's library: a team created, a member added or revoked (the owner
 * API, which the CLI uses too) nudges `teams_changed`; a proposal submitted by a member through
 * the library API nudges `library_changed` for its team, so the Shelf shows it without a Refresh.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { blueprintPayload, CHANGESET_SCHEMA, profileFiles } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';
import { addTeamMember, PUBLISHER_SCOPES } from '../support/teams.ts';
import { testKey } from '../support/keys.ts';
import { upstreamMember } from '../support/upstream-client.ts';

let t: TestNode;

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});

/** The owner feed, past its `connected` frame. */
async function ownerFeed(): Promise<SseClient> {
  const response = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(15))}`, { token: t.node.ownerToken });
  const stream = response.stream!;
  expect((await stream.next()).event).toBe('connected');
  return stream;
}

describe('teams on the owner feed', () => {
  it('nudges teams_changed when a team is created, a member added and a member revoked; not on reads or refusals', async () => {
    const stream = await ownerFeed();
    try {
      expectOk(await t.owner('GET', '/v1/node/teams'));
      expectRefusal(await t.owner('POST', '/v1/node/teams', { name: 'bad name!', domain: 'live.test' }), 422);
      expect(await stream.maybeNext(200)).toBeNull();

      const team = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'live', domain: 'live.test' }), 201);
      expect(await stream.next()).toMatchObject({ event: 'teams_changed', data: {} });

      const key = testKey();
      const path = `/v1/node/teams/${encodeURIComponent(team.team_id)}/members`;
      const added = expectOk(await t.owner('POST', path, { did_key: key.didKey, alias: 'helper' }), 201);
      expect((await stream.next()).event).toBe('teams_changed');
      // The member count the picker shows moved with it.
      expect(expectOk(await t.owner('GET', `/v1/node/teams/${encodeURIComponent(team.team_id)}`)).member_count).toBe(2);

      expectOk(await t.owner('POST', `${path}/${added.certificate.certificate_id}/revoke`));
      expect((await stream.next()).event).toBe('teams_changed');
      expectRefusal(await t.owner('POST', `${path}/${added.certificate.certificate_id}/revoke`), 409);
      expect(await stream.maybeNext(200)).toBeNull();
    } finally {
      stream.close();
    }
  });
});

describe('invites and connects on the owner feed', () => {
  it('nudges teams_changed when an invite is made or cancelled, and when a member first connects; not when it connects again', async () => {
    const team = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'invites', domain: 'live.test' }), 201);
    const path = `/v1/node/teams/${encodeURIComponent(team.team_id)}`;
    const worker = await upstreamMember(t, team.team_id, 'worker');
    const stream = await ownerFeed();
    try {
      const made = expectOk(await t.owner('POST', `${path}/invites`, { alias: 'scout' }), 201);
      expect((await stream.next()).event).toBe('teams_changed');
      expectOk(await t.owner('DELETE', `${path}/invites/${made.invite_id}`));
      expect((await stream.next()).event).toBe('teams_changed');
      expectOk(await worker.request('POST', '/v1/connect', {}));
      expect((await stream.next()).event).toBe('teams_changed');
      expectOk(await worker.request('POST', '/v1/connect', { hostname: 'again' }));
      expect(await stream.maybeNext(200)).toBeNull();
    } finally {
      stream.close();
    }
  });
});

describe('proposals on the owner feed', () => {
  it('nudges library_changed for the team when a member submits a proposal through the API, and when it is decided', async () => {
    const author = await addTeamMember(t, { team: 'props', domain: 'live.test', alias: 'author' });
    const reviewer = await addTeamMember(t, { teamId: author.teamId, alias: 'reviewer', scopes: ['library:read', 'library:write', 'library:approve'] });
    expectOk(await author.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'drafter' }) } }), 201);
    const { proposal_asset_digests: bases } = expectOk(await author.request('GET', '/v1/profiles/drafter?include=files'));
    const stream = await ownerFeed();
    try {
      const proposal = expectOk(
        await author.request('POST', '/v1/proposals', {
          body: {
            target: 'profile',
            profile_ref: 'drafter',
            summary: 'Sharper mission',
            content: {
              schema: CHANGESET_SCHEMA,
              assets: [{ path: 'profile.yaml#mission', content: 'Draft less, ship more.', base_asset_digest: bases['profile.yaml#mission'] }],
            },
          },
        }),
        201,
      );
      expect(await stream.next()).toMatchObject({ event: 'library_changed', data: { team_id: author.teamId } });
      // Reading the proposals is not a change.
      expectOk(await reviewer.request('GET', '/v1/proposals?status=open'));
      expect(await stream.maybeNext(200)).toBeNull();
      expectOk(await reviewer.request('POST', `/v1/proposals/${proposal.proposal_id}/approve`));
      expect(await stream.next()).toMatchObject({ event: 'library_changed', data: { team_id: author.teamId } });
    } finally {
      stream.close();
    }
  });
});

describe('library writes on the owner feed, announced by the services', () => {
  it('nudges nothing for a refused write, nor for a POST that only reads; a rejection by the approval recheck, though answered 409, is heard', async () => {
    const author = await addTeamMember(t, { team: 'quiet', domain: 'live.test', alias: 'author' });
    const reviewer = await addTeamMember(t, { teamId: author.teamId, alias: 'reviewer', scopes: ['library:read', 'library:write', 'library:approve'] });
    const publisher = await addTeamMember(t, { teamId: author.teamId, alias: 'publisher', scopes: PUBLISHER_SCOPES });
    expectOk(await publisher.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'quiet.team', profiles: [{ ref: 'quiet' }] }) }), 201);
    expectOk(await author.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'quiet' }) } }), 201);
    const { proposal_asset_digests: bases } = expectOk(await author.request('GET', '/v1/profiles/quiet?include=files'));
    const proposal = expectOk(
      await author.request('POST', '/v1/proposals', {
        body: {
          target: 'profile',
          profile_ref: 'quiet',
          content: {
            schema: CHANGESET_SCHEMA,
            assets: [{ path: 'profile.yaml#mission', content: 'Say less.', base_asset_digest: bases['profile.yaml#mission'] }],
          },
        },
      }),
      201,
    );
    const stream = await ownerFeed();
    try {
      // Refused: the profile exists, the version is not new. Nothing was written, nothing is said.
      expectRefusal(
        await author.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'quiet' }) } }),
        409,
        undefined,
        'SVC_ERR_PROFILE_EXISTS',
      );
      expectRefusal(
        await author.request('POST', '/v1/profiles/quiet/versions', { body: { files: profileFiles({ ref: 'quiet' }) } }),
        409,
        undefined,
        'SVC_ERR_PROFILE_VERSION_EXISTS',
      );
      const changed = blueprintPayload({ ref: 'quiet.team', profiles: [{ ref: 'quiet', mission: 'Other.' }] });
      expectRefusal(await publisher.request('POST', '/v1/blueprints/import', { body: changed }), 409, undefined, 'SVC_ERR_BLUEPRINT_VERSION_EXISTS');
      // A POST that only computes the home files a runtime writes changes nothing either.
      expectOk(await author.request('POST', '/v1/materialize', { body: { profile_ref: 'quiet', runtime_kind: 'claude-code', target: 'local' } }));
      expect(await stream.maybeNext(200)).toBeNull();

      // A new version makes the proposal's base stale: approving it is refused, and the rejection is written.
      expectOk(
        await author.request('POST', '/v1/profiles/quiet/versions', {
          body: { files: profileFiles({ ref: 'quiet', version: '0.2.0', mission: 'Say more.' }) },
        }),
        201,
      );
      expect(await stream.next()).toMatchObject({ event: 'library_changed', data: { team_id: author.teamId } });
      expectRefusal(await reviewer.request('POST', `/v1/proposals/${proposal.proposal_id}/approve`), 409, undefined, 'SVC_ERR_PROPOSAL_RECHECK_REJECTED');
      expect(await stream.next()).toMatchObject({ event: 'library_changed', data: { team_id: author.teamId } });
      expect(expectOk(await reviewer.request('GET', `/v1/proposals/${proposal.proposal_id}`)).status).toBe('rejected');
    } finally {
      stream.close();
    }
  });
});
