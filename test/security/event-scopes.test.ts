/**
 * `docs/doc.changed` needs `docs:read` (a scope that guards document reads guards news of them
 * too), attacked over real HTTP: before this change a member without docs:read subscribed to
 * `docs/doc.changed` and received slugs and versions. Now the subscription is refused (403, nothing
 * stored), and an identity whose certificate lost docs:read (revoked and re-issued without it) or
 * was revoked receives nothing, on the live stream or in the replay a new connection gets.
 *
 * "Nothing" is shown without a timeout: the identities are also subscribed in a second team where
 * they keep docs:read, whose event is written after the forbidden one. Streams deliver in write
 * order, so the first frame being the second team's event proves the first was skipped.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { DataWatch, describeChange } from '../support/fuzz.ts';
import { createIdentity, createNodeNamespace, createProject } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';

const TYPE = 'docs/doc.changed';
const PATH = '/v1/events/subscriptions';

interface Identity {
  agent_id: string;
  api_key: string;
  did_key: string;
}

let t: TestNode;
let projectKey: string;
let watched: DocsClient;
let other: DocsClient;
let counter = 0;
const open: SseClient[] = [];

const membersUrl = (teamId: string) => `/v1/node/teams/${encodeURIComponent(teamId)}/members`;

async function join(teamId: string, who: Identity, scopes?: string[]): Promise<string> {
  const body = { did_key: who.did_key, alias: `m${++counter}`, ...(scopes ? { scopes } : {}) };
  return expectOk(await t.owner('POST', membersUrl(teamId), body), 201).certificate.certificate_id;
}

const revoke = async (teamId: string, certificateId: string) => expectOk(await t.owner('POST', `${membersUrl(teamId)}/${certificateId}/revoke`));
const subscribe = (who: Identity, teamId?: string) =>
  t.request('POST', PATH, { token: who.api_key, body: { type: TYPE, ...(teamId ? { team_id: teamId } : {}) } });

async function connect(who: Identity): Promise<SseClient> {
  const response = await connectSse(`${t.url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(30))}`, { token: who.api_key });
  expect(response.status).toBe(200);
  const stream = response.stream!;
  open.push(stream);
  expect((await stream.next()).event).toBe('connected');
  return stream;
}

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});
beforeAll(async () => {
  await createNodeNamespace(t, 'events-scope.test');
  projectKey = (await createProject(t, 'event-scopes', 'events-scope.test')).api_key;
  watched = await addDocsMember(t, { team: 'watched', domain: 'events-scope.test', alias: 'writer' });
  other = await addDocsMember(t, { team: 'other', domain: 'events-scope.test', alias: 'writer' });
});
afterEach(() => {
  for (const stream of open.splice(0)) stream.close();
});

const newIdentity = async (): Promise<Identity> => createIdentity(t, projectKey, { alias: `watcher${++counter}` });

describe('subscribing to docs/doc.changed', () => {
  it('is refused 403 to a member without docs:read, storing nothing', async () => {
    const watch = await DataWatch.open(t.dataDir);
    try {
      const writerOnly = await newIdentity();
      await join(watched.teamId, writerOnly, ['docs:write', 'library:read', 'library:write']);
      const before = watch.snapshot();
      expectRefusal(await subscribe(writerOnly), 403, /docs:read/, 'SVC_ERR_SCOPE_MISSING');
      expectRefusal(await subscribe(writerOnly, watched.teamId), 403, /docs:read/, 'SVC_ERR_SCOPE_MISSING');
      expect(describeChange(before, watch.snapshot())).toEqual([]);
      expect(expectOk(await t.request('GET', PATH, { token: writerOnly.api_key })).subscriptions).toEqual([]);
    } finally {
      watch.close();
    }
  });

  it('is allowed with docs:read', async () => {
    const reader = await newIdentity();
    await join(watched.teamId, reader, ['docs:read']);
    expect(expectOk(await subscribe(reader), 201)).toMatchObject({ type: TYPE, team_id: watched.teamId });
  });
});

describe('delivering docs/doc.changed', () => {
  it('skips an identity whose certificate lost docs:read or was revoked, live and on replay', async () => {
    // All three subscribe in both teams while they hold docs:read in both.
    const narrowed = await newIdentity();
    const revoked = await newIdentity();
    const control = await newIdentity();
    const certificates = new Map<Identity, string>();
    for (const who of [narrowed, revoked, control]) {
      certificates.set(who, await join(watched.teamId, who));
      await join(other.teamId, who);
      expectOk(await subscribe(who, watched.teamId), 201);
      expectOk(await subscribe(who, other.teamId), 201);
    }
    // Narrowed: re-issued without docs:read (still a member of the team). Revoked: gone.
    await revoke(watched.teamId, certificates.get(narrowed)!);
    await join(watched.teamId, narrowed, ['docs:write']);
    await revoke(watched.teamId, certificates.get(revoked)!);

    const live = await Promise.all([narrowed, revoked, control].map(connect));
    expectOk(await watched.create('secret-plan', 'body\n'), 201);
    expectOk(await other.create('public-note', 'body\n'), 201);

    // The member that kept docs:read hears both, in order: the forbidden event did happen.
    const controlFrames = [await live[2]!.next(), await live[2]!.next()];
    expect(controlFrames.map((f) => [f.data.team_id, f.data.slug])).toEqual([
      [watched.teamId, 'secret-plan'],
      [other.teamId, 'public-note'],
    ]);
    for (const stream of [live[0]!, live[1]!, await connect(narrowed), await connect(revoked)]) {
      const frame = await stream.next();
      expect(frame.event).toBe(TYPE);
      expect(frame.data).toMatchObject({ team_id: other.teamId, slug: 'public-note' });
    }
  });
});
