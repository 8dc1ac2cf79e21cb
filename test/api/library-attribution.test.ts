/**
 * Who submitted and who decided a proposal, over real HTTP: the app signs through the owner's sign
 * route naming the identity chosen in its switcher (`acting_as`), and the node records that
 * identity beside the owner member's alias, so the app can say "Approved by alice" rather than
 * "by owner" (or "by you", whoever of the node's identities was acting). Without a claim, and for
 * an agent's own envelope whatever it claims, the certificate's alias alone names who acted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { CHANGESET_SCHEMA, profileFiles } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, asOwnerApp, MEMBER_SCOPES, type TeamClient } from '../support/teams.ts';

let t: TestNode;
let agent: TeamClient;
let reviewer: TeamClient;
let alice: { agent_id: string };
let bob: { agent_id: string };
let counter = 0;

const ALICE = { alias: 'alice', name: 'alice', address: 'credit.test/alice' };
const BOB = { alias: 'bob', name: 'bob', address: null };

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, 'credit.test');
  const project = await createProject(t, 'credit', 'credit.test');
  alice = await createIdentity(t, project.api_key, persistent('alice'));
  bob = await createIdentity(t, project.api_key, { alias: 'bob' });
  agent = await addTeamMember(t, { team: 'credit', domain: 'credit.test', alias: 'scout' });
  reviewer = await addTeamMember(t, { teamId: agent.teamId, alias: 'coordinator', scopes: [...MEMBER_SCOPES, 'library:approve'] });
});
afterAll(async () => {
  await t.stop();
});

const asApp = (method: string, path: string, actingAs?: string, json?: unknown) =>
  asOwnerApp(t, agent.teamId, method, path, { json, ...(actingAs === undefined ? {} : { actingAs }) });

/** A fresh shelf profile and an open proposal on it by the agent, changing its mission. */
async function openProposal(): Promise<{ ref: string; proposal_id: string; body: Record<string, unknown> }> {
  const ref = `worker-${++counter}`;
  expectOk(await agent.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref }) } }), 201);
  const { proposal_asset_digests: digests } = expectOk(await agent.request('GET', `/v1/profiles/${ref}?include=files`));
  const body = {
    target: 'profile',
    profile_ref: ref,
    content: {
      schema: CHANGESET_SCHEMA,
      assets: [{ path: 'profile.yaml#mission', content: `Mission ${counter}.`, base_asset_digest: digests['profile.yaml#mission'] }],
    },
  };
  const proposal = expectOk(await agent.request('POST', '/v1/proposals', { body }), 201);
  return { ref, proposal_id: proposal.proposal_id, body };
}

describe('decisions made in the app', () => {
  it('record the identity the app acted as when it approves, beside the owner member', async () => {
    const { proposal_id } = await openProposal();
    const approved = expectOk(await asApp('POST', `/v1/proposals/${proposal_id}/approve`, alice.agent_id));
    expect(approved).toMatchObject({ status: 'approved', decided_by_alias: 'owner', decided_by_acting_as: { agent_id: alice.agent_id, ...ALICE } });
    // The agent that proposed is named by its certificate alone.
    expect(approved).toMatchObject({ created_by_alias: 'scout', created_by_acting_as: null });
    // Read back by anyone in the team, the record says the same.
    expect(expectOk(await agent.request('GET', `/v1/proposals/${proposal_id}`)).decided_by_acting_as).toEqual({ agent_id: alice.agent_id, ...ALICE });
  });

  it('record another identity of the node when it rejects, and none when the app names none', async () => {
    const first = await openProposal();
    const rejected = expectOk(await asApp('POST', `/v1/proposals/${first.proposal_id}/reject`, bob.agent_id));
    expect(rejected).toMatchObject({ status: 'rejected', decided_by_alias: 'owner', decided_by_acting_as: { agent_id: bob.agent_id, ...BOB } });

    const second = await openProposal();
    expect(expectOk(await asApp('POST', `/v1/proposals/${second.proposal_id}/reject`))).toMatchObject({
      decided_by_alias: 'owner',
      decided_by_acting_as: null,
    });
  });

  it('record who acted when the approval recheck rejects a stale proposal', async () => {
    const { ref, body } = await openProposal();
    const stale = expectOk(await agent.request('POST', '/v1/proposals', { body }), 201);
    const open = expectOk(await agent.request('GET', `/v1/proposals?profile_ref=${ref}&status=open`)).find(
      (p: { proposal_id: string }) => p.proposal_id !== stale.proposal_id,
    );
    expectOk(await asApp('POST', `/v1/proposals/${open.proposal_id}/approve`, alice.agent_id));
    expectRefusal(
      await asApp('POST', `/v1/proposals/${stale.proposal_id}/approve`, bob.agent_id),
      409,
      /recheck rejected/,
      'SVC_ERR_PROPOSAL_RECHECK_REJECTED',
    );
    const after = expectOk(await agent.request('GET', `/v1/proposals/${stale.proposal_id}`));
    expect(after).toMatchObject({ status: 'rejected', decided_by_alias: 'owner', decided_by_acting_as: { agent_id: bob.agent_id, ...BOB } });
  });

  it('record the identity the app acted as when it submits', async () => {
    const { body } = await openProposal();
    const submitted = expectOk(await asApp('POST', '/v1/proposals', alice.agent_id, body), 201);
    expect(submitted).toMatchObject({ created_by_alias: 'owner', created_by_acting_as: { agent_id: alice.agent_id, ...ALICE }, decided_by_acting_as: null });
  });
});

describe('agents', () => {
  it('are named by their certificate, whatever their own envelope claims', async () => {
    const { proposal_id } = await openProposal();
    const claim = { agent_id: alice.agent_id, ...ALICE };
    const approved = expectOk(await reviewer.request('POST', `/v1/proposals/${proposal_id}/approve`, { extra: { acting_as: claim } }));
    expect(approved).toMatchObject({ decided_by_alias: 'coordinator', decided_by_acting_as: null });
  });
});
