/**
 * App event subscriptions and `docs/doc.changed` delivery (DESIGN §5): an identity subscribes,
 * over its Bearer key, to a team's document events (one slug, or every slug with a null
 * resource_ref) if it is a member of that team; a document change then arrives on its event
 * stream as metadata, never the body. The routes are tested on a whole node; delivery on the core
 * surface in-process, where the test can call `appEvents.emit` as the document surface does.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DocChangedEvent } from '../../server/teams/app-events.ts';
import { startCoreNode, type CoreNode } from '../support/core-node.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { testKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, type SseClient } from '../support/sse.ts';

const PATH = '/v1/events/subscriptions';
const TYPE = 'docs/doc.changed';
let counter = 0;

describe('/v1/events/subscriptions', () => {
  let t: TestNode;
  let project: Project;

  beforeAll(async () => {
    t = await startTestNode();
    return () => t.stop();
  });
  beforeAll(async () => {
    await createNodeNamespace(t, 'subs.test');
    project = await createProject(t, 'subs', 'subs.test');
  });

  const newIdentity = async (): Promise<any> => createIdentity(t, project.api_key, { alias: `id${++counter}` });
  const newTeam = async (): Promise<string> =>
    expectOk(await t.owner('POST', '/v1/node/teams', { name: `team${++counter}`, domain: 'subs.test' }), 201).team_id;
  const addMember = async (teamId: string, member: { did_key?: string; did_aw?: string }): Promise<string> => {
    const body = { did_key: member.did_key ?? testKey().didKey, alias: `m${++counter}`, ...(member.did_aw ? { did_aw: member.did_aw } : {}) };
    return expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(teamId)}/members`, body), 201).certificate.certificate_id;
  };
  const post = (who: { api_key: string }, body: unknown) => t.request('POST', PATH, { token: who.api_key, body });
  const list = async (who: { api_key: string }) => expectOk(await t.request('GET', PATH, { token: who.api_key })).subscriptions;

  it('subscribes (201), returns the same subscription on a repeat (200), lists and deletes', async () => {
    const ann = await newIdentity();
    const teamId = await newTeam();
    await addMember(teamId, ann);

    const one = expectOk(await post(ann, { type: TYPE, resource_ref: 'a' }), 201);
    expect(one).toEqual({ subscription_id: expect.any(String), type: TYPE, team_id: teamId, resource_ref: 'a', created_at: expect.any(String) });
    expect(expectOk(await post(ann, { type: TYPE, resource_ref: 'a', team_id: teamId }), 200)).toEqual(one);

    const all = expectOk(await post(ann, { type: TYPE }), 201);
    expect(all).toMatchObject({ team_id: teamId, resource_ref: null });
    expect(expectOk(await post(ann, { type: TYPE, resource_ref: null }), 200).subscription_id).toBe(all.subscription_id);
    expect(await list(ann)).toEqual([one, all]);

    // Another identity sees only its own, and cannot delete someone else's.
    const bob = await newIdentity();
    expect(await list(bob)).toEqual([]);
    expectRefusal(await t.request('DELETE', `${PATH}/${one.subscription_id}`, { token: bob.api_key }), 404, undefined, 'SVC_ERR_SUBSCRIPTION_NOT_FOUND');

    expect(expectOk(await t.request('DELETE', `${PATH}/${one.subscription_id}`, { token: ann.api_key }))).toEqual({ deleted: true });
    expect(await list(ann)).toEqual([all]);
    expectRefusal(await t.request('DELETE', `${PATH}/${one.subscription_id}`, { token: ann.api_key }), 404, undefined, 'SVC_ERR_SUBSCRIPTION_NOT_FOUND');
  });

  it('refuses an unknown type or a malformed body (422), no key (401), a project key (403)', async () => {
    const ann = await newIdentity();
    await addMember(await newTeam(), ann);
    expectValidation(await post(ann, { type: 'docs/doc.deleted' }), 'type');
    expectValidation(await post(ann, {}), 'type');
    expectValidation(await post(ann, { type: TYPE, resource_ref: '' }), 'resource_ref');
    expectValidation(await post(ann, { type: TYPE, body: true }), 'body');
    expectRefusal(await t.request('POST', PATH, { body: { type: TYPE } }), 401);
    expectRefusal(await t.request('GET', PATH), 401);
    expectRefusal(await post({ api_key: project.api_key }, { type: TYPE }), 403);
  });

  it('refuses an identity that is not a member (403), of no team or of the named one', async () => {
    const ann = await newIdentity();
    const teamId = await newTeam();
    await addMember(teamId, await newIdentity());
    expectRefusal(await post(ann, { type: TYPE }), 403, /not a member of any team/, 'SVC_ERR_TEAM_NOT_MEMBER');
    expectRefusal(await post(ann, { type: TYPE, team_id: teamId }), 403, /not a member of team/, 'SVC_ERR_TEAM_NOT_MEMBER');
    expectRefusal(await post(ann, { type: TYPE, team_id: 'nope:subs.test' }), 403, undefined, 'SVC_ERR_TEAM_NOT_MEMBER');
  });

  it('asks which team when the identity is a member of two (422), and takes an explicit team_id', async () => {
    const ann = await newIdentity();
    const [first, second] = [await newTeam(), await newTeam()];
    await addMember(first, ann);
    await addMember(second, ann);
    const refused = await post(ann, { type: TYPE, resource_ref: 'a' });
    expectValidation(refused, 'team_id');
    expect(JSON.stringify(refused.body)).toContain(first);
    expect(JSON.stringify(refused.body)).toContain(second);
    expect(expectOk(await post(ann, { type: TYPE, resource_ref: 'a', team_id: second }), 201).team_id).toBe(second);
    expect(expectOk(await post(ann, { type: TYPE, resource_ref: 'a', team_id: first }), 201).team_id).toBe(first);
    expect((await list(ann)).map((s: any) => s.team_id).sort()).toEqual([first, second].sort());
  });

  it('counts a certificate for the identity’s did:svc, and no longer a revoked one', async () => {
    const cy = await createIdentity(t, project.api_key, persistent(`cy${++counter}`));
    const byStableId = await newTeam();
    await addMember(byStableId, { did_aw: cy.did_aw });
    expectOk(await post(cy, { type: TYPE }), 201);

    const dee = await newIdentity();
    const teamId = await newTeam();
    const certificateId = await addMember(teamId, dee);
    expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(teamId)}/members/${certificateId}/revoke`), 200);
    expectRefusal(await post(dee, { type: TYPE }), 403, undefined, 'SVC_ERR_TEAM_NOT_MEMBER');
  });
});

describe('docs/doc.changed on the event stream', () => {
  let node: CoreNode;
  let projectId: string;
  let teamId: string;

  beforeAll(async () => {
    node = await startCoreNode();
    return () => node.close();
  });
  beforeAll(() => {
    projectId = node.services.projects.create({ slug: 'deliver' }).project_id;
    teamId = node.services.teams.create('docs', 'deliver.test').team_id;
  });

  const open: SseClient[] = [];
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });

  /** A new identity, a member of the team, subscribed to `refs` (null: every slug) over HTTP. */
  async function member(refs: (string | null)[]): Promise<{ agent_id: string; api_key: string }> {
    const identity = node.services.identities.create(projectId, { alias: `r${++counter}` });
    node.services.teams.addMember(teamId, { did_key: identity.did_key, alias: `r${counter}` });
    for (const ref of refs) {
      const response = await fetch(`${node.url}${PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${identity.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: TYPE, resource_ref: ref }),
      });
      expect(response.status).toBe(201);
    }
    return identity;
  }

  async function connect(who: { api_key: string; agent_id: string }): Promise<SseClient> {
    const deadline = new Date(node.ctx.clock.now().getTime() + 30_000).toISOString();
    const response = await connectSse(`${node.url}/v1/events/stream?deadline=${encodeURIComponent(deadline)}`, { token: who.api_key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const stream = response.stream as SseClient;
    open.push(stream);
    expect((await stream.next()).event).toBe('connected');
    return stream;
  }

  const changed = (slug: string, version: number, source: DocChangedEvent['payload']['source'] = 'api'): DocChangedEvent => ({
    type: TYPE,
    resource_ref: slug,
    payload: { slug, version, source },
  });

  it('reaches identities subscribed to the slug or to every slug, live; not the others', async () => {
    const exact = await member(['a']);
    const all = await member([null]);
    const other = await member(['b']);
    const unsubscribed = await member([]);
    const streams = await Promise.all([exact, all, other, unsubscribed].map(connect));

    node.services.appEvents.emit(teamId, changed('a', 2, 'template'));
    const [toExact, toAll] = await Promise.all([streams[0]!.next(), streams[1]!.next()]);
    for (const frame of [toExact!, toAll!]) {
      expect(frame.event).toBe(TYPE);
      expect(frame.data).toEqual({
        type: TYPE,
        event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        team_id: teamId,
        resource_ref: 'a',
        slug: 'a',
        version: 2,
        source: 'template',
        created_at: expect.any(String),
      });
      expect(frame.data).not.toHaveProperty('body');
    }
    expect(toExact!.data.event_id).toBe(toAll!.data.event_id);
    expect(await streams[2]!.maybeNext(300)).toBeNull();
    expect(await streams[3]!.maybeNext(300)).toBeNull();

    // The slug-b subscriber hears about b; the slug-a subscriber does not.
    node.services.appEvents.emit(teamId, changed('b', 5));
    expect((await streams[2]!.next()).data).toMatchObject({ slug: 'b', version: 5, source: 'api' });
    expect((await streams[1]!.next()).data).toMatchObject({ slug: 'b' });
    expect(await streams[0]!.maybeNext(300)).toBeNull();
  });

  it('replays the last five minutes to a stream that connects afterwards; nothing older', async () => {
    const reader = await member([null]);
    node.services.appEvents.emit(teamId, changed('early', 3, 'present-link'));
    node.advance(6 * 60 * 1000);
    node.services.appEvents.emit(teamId, changed('late', 4));
    const stream = await connect(reader);
    const frame = await stream.next();
    expect(frame).toMatchObject({ event: TYPE, data: { slug: 'late', version: 4, source: 'api' } });
    expect(await stream.maybeNext(300)).toBeNull();

    // Replays are possible (nothing is consumed): a second connection sees it again.
    const again = await connect(reader);
    expect((await again.next()).data.event_id).toBe(frame.data.event_id);
  });

  it('stops once the subscription is deleted', async () => {
    const reader = await member(['c']);
    const [subscription] = node.services.subscriptions.list(reader.agent_id).subscriptions;
    const stream = await connect(reader);
    const deleted = await fetch(`${node.url}${PATH}/${subscription!.subscription_id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${reader.api_key}` },
    });
    expect(deleted.status).toBe(200);
    node.services.appEvents.emit(teamId, changed('c', 2));
    expect(await stream.maybeNext(300)).toBeNull();
  });
});
