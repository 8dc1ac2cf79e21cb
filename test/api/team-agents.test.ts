/**
 * Team-certificate identities on the core (docs/adr/0003-request-authentication.md,
 * docs/adr/0004-custody-model.md): an upstream client generates its own key, the owner issues it a
 * certificate, and it connects, opens its event stream, mails and chats (client-signed), is paused
 * and interrupted, and is revoked mid-stream. Every signature here is
 * test/support/upstream-client.ts's (node:crypto and its own canonical JSON), not the node's
 * signing code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connected, Heartbeat, TeamAgentDetail, TeamAgents, TeamInfo, WorkspaceDeleted } from '../../contract/core/team.ts';
import { Settings } from '../../contract/core/identities.ts';
import { MemberList } from '../../contract/node/teams.ts';
import { createIdentity, createProject } from '../support/identities.ts';
import { MailMessage } from '../../contract/core/mail.ts';
import { ControlSent } from '../../contract/core/control.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { asApiResponse, type SseClient } from '../support/sse.ts';
import { nowSeconds, selfKey, signedFields, type Envelope } from '../support/self-signer.ts';
import { signRequest, upstreamMember, type UpstreamClient } from '../support/upstream-client.ts';
import { requestJson } from '../support/node.ts';

const DOMAIN = 'upstream.example';
let t: TestNode;
/** The node's clock runs `offset` ms ahead of the real one (workspace cleanup needs 30 minutes). */
let offset = 0;
let teamId: string;
let alice: UpstreamClient;
let bob: UpstreamClient;
let aliceAgent: Connected;
let bobAgent: Connected;
let stream: SseClient;
/** The streams a test opened for the ones after it, closed once they have all run. */
const streams: SseClient[] = [];

const at = () => nowSeconds(offset / 1000);
const streamPath = () => `/v1/events/stream?deadline=${encodeURIComponent(new Date(Date.now() + offset + 120_000).toISOString())}`;

beforeAll(async () => {
  t = await startTestNode({ clock: { now: () => new Date(Date.now() + offset) } });
  return () => t.stop();
});
beforeAll(async () => {
  teamId = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'crew', domain: DOMAIN }), 201).team_id;
  alice = await upstreamMember(t, teamId, 'alice');
  bob = await upstreamMember(t, teamId, 'bob');
});
afterAll(() => {
  for (const open of streams) open.close();
});

async function nextOf(client: SseClient, event: string): Promise<any> {
  for (;;) {
    const frame = await client.next(5000);
    if (frame.event === event) return typeof frame.data === 'string' ? JSON.parse(frame.data) : frame.data;
  }
}

describe('team-certificate auth on the core', () => {
  it('refuses a member that never connected (403), a team this node does not host (by name), and identity-only auth off the messaging routes', async () => {
    expectRefusal(await alice.request('GET', '/v1/agents'), 403, /Agent not connected/, 'SVC_ERR_AGENT_NOT_CONNECTED');
    // The certificate of a team this node does not host.
    const foreign = JSON.parse(Buffer.from(alice.certificateB64, 'base64').toString('utf8'));
    const other = {
      ...alice,
      teamId: 'other:elsewhere.example',
      certificateB64: Buffer.from(JSON.stringify({ ...foreign, team_id: 'other:elsewhere.example' })).toString('base64'),
    };
    const headers = signRequest(other, 'GET', '/v1/agents', '');
    expectRefusal(
      await requestJson(t.url, 'GET', '/v1/agents', { headers }),
      401,
      /Unknown team: other:elsewhere\.example/,
      'SVC_ERR_TEAM_CERTIFICATE_UNKNOWN',
    );
    expectRefusal(
      await alice.request('GET', '/v1/agents', undefined, { mode: 'identity' }),
      401,
      /X-SVCID-Team-Certificate/,
      'SVC_ERR_TEAM_CERTIFICATE_REQUIRED',
    );
    // A bad signature, a stale timestamp.
    expectRefusal(
      await alice.request('GET', '/v1/agents', undefined, { headers: { authorization: `DIDKey ${alice.key.didKey} ${selfKey().sign('x')}` } }),
      401,
      /signature/i,
      'SVC_ERR_SIGNATURE_INVALID',
    );
    expectRefusal(await alice.request('GET', '/v1/agents', undefined, { at: nowSeconds(-600) }), 401, undefined, 'SVC_ERR_TIMESTAMP_INVALID');
  });

  it('connects a member from its certificate (compact v1 and envelope v2): a self-custodial identity and its workspace, once', async () => {
    aliceAgent = Connected.parse(expectOk(await alice.request('POST', '/v1/connect', { hostname: 'laptop', workspace_path: '/src/a', role: 'dev' })));
    expect(aliceAgent).toMatchObject({
      team_id: teamId,
      alias: 'alice',
      did_key: alice.key.didKey,
      custody: 'self',
      lifetime: 'ephemeral',
      role: 'dev',
      created: true,
    });
    const again = Connected.parse(expectOk(await alice.request('POST', '/v1/connect', {})));
    expect(again).toMatchObject({ agent_id: aliceAgent.agent_id, workspace_id: aliceAgent.workspace_id, created: false });
    bobAgent = Connected.parse(expectOk(await bob.request('POST', '/v1/connect', { hostname: 'ci' }, { mode: 'envelope' })));
    expect(bobAgent.created).toBe(true);
    // The envelope names the core's origin; another audience is refused.
    expectRefusal(
      await bob.request('GET', '/v1/team', undefined, { mode: 'envelope', aud: 'https://elsewhere.example' }),
      401,
      /audience/,
      'SVC_ERR_TEAM_ENVELOPE_MISMATCH',
    );
    // alice's key under another alias: upstream's 409.
    const twin = await upstreamMember(t, teamId, 'alice-two', { key: alice.key });
    expectRefusal(await twin.request('POST', '/v1/connect', { hostname: 'twin' }), 409, /already connected/, 'SVC_ERR_TEAM_AGENT_CONFLICT');
  });

  it('answers the team, its members with presence, heartbeats and the workspace fields', async () => {
    expect(TeamInfo.parse(expectOk(await alice.request('GET', '/v1/team')))).toMatchObject({ team_id: teamId, namespace: DOMAIN, team_name: 'crew' });
    const before = TeamAgents.parse(expectOk(await alice.request('GET', '/v1/agents')));
    expect(before.agents.map((a) => [a.alias, a.online])).toEqual([
      ['alice', false],
      ['bob', false],
    ]);
    expect(Heartbeat.parse(expectOk(await bob.request('POST', '/v1/agents/heartbeat'))).alias).toBe('bob');
    const after = TeamAgents.parse(expectOk(await alice.request('GET', '/v1/agents')));
    expect(after.agents.find((a) => a.alias === 'bob')).toMatchObject({ online: true, status: 'online', hostname: 'ci' });
  });

  it("answers one member of the caller's team by alias, as the channel client asks to pin a sender", async () => {
    const path = (team: string, alias: string) => `/v1/teams/${encodeURIComponent(team)}/agents/${alias}`;
    const detail = TeamAgentDetail.parse(expectOk(await alice.request('GET', path(teamId, 'bob'))));
    expect(detail).toMatchObject({ agent_id: bobAgent.agent_id, alias: 'bob', did_key: bob.key.didKey, lifetime: 'ephemeral', online: true, status: 'online' });
    expect(Date.parse(detail.created_at)).not.toBeNaN();
    expectRefusal(await alice.request('GET', path(teamId, 'nobody')), 404, /Agent not found/, 'SVC_ERR_IDENTITY_NOT_FOUND');
    expectRefusal(await alice.request('GET', path('other:elsewhere.example', 'bob')), 403, /Not a member/, 'SVC_ERR_TEAM_NOT_MEMBER');
  });

  it("lists the owner's team members with the identity each connected as, online and last seen", async () => {
    const listing = () => t.owner('GET', `/v1/node/teams/${encodeURIComponent(teamId)}/members`);
    const { members } = MemberList.parse(expectOk(await listing()));
    const of = (alias: string) => members.find((m) => m.alias === alias);
    // bob heartbeated (online); alice connected but sent no sign of life since (offline, seen at the connect).
    expect(of('bob')).toMatchObject({ agent_id: bobAgent.agent_id, online: true, last_seen: expect.any(String) });
    expect(of('alice')).toMatchObject({ agent_id: aliceAgent.agent_id, online: false, last_seen: expect.any(String) });
    // Never connected: the owner member, and alice's key under another alias (its connect was refused).
    expect(of('owner')).toMatchObject({ agent_id: null, online: false, last_seen: null });
    expect(of('alice-two')).toMatchObject({ agent_id: null, online: false, last_seen: null });
  });

  it("takes upstream's PATCH /v1/agents/me: the workspace fields beside the settings, answered with upstream's fields beside ours", async () => {
    // Upstream's body and answer (§9.1), compact v1 and envelope v2.
    const patched = Settings.parse(expectOk(await alice.request('PATCH', '/v1/agents/me', { hostname: 'desk', human_name: 'Alice' })));
    expect(patched).toMatchObject({
      agent_id: aliceAgent.agent_id,
      alias: 'alice',
      hostname: 'desk',
      workspace_path: '/src/a',
      role: 'dev',
      human_name: 'Alice',
    });
    const moved = Settings.parse(expectOk(await alice.request('PATCH', '/v1/agents/me', { workspace_path: '/src/b', role: 'lead' }, { mode: 'envelope' })));
    expect(moved).toMatchObject({ hostname: 'desk', workspace_path: '/src/b', role: 'lead', human_name: 'Alice', address_reachability: 'public' });
    // Ours in the same body; a member's answer carries its workspace fields even when it sends none.
    expect(Settings.parse(expectOk(await alice.request('PATCH', '/v1/agents/me', { program: 'aw' })))).toMatchObject({
      program: 'aw',
      hostname: 'desk',
      workspace_path: '/src/b',
    });
    const listed = TeamAgents.parse(expectOk(await bob.request('GET', '/v1/agents'))).agents.find((a) => a.alias === 'alice');
    expect(listed).toMatchObject({ hostname: 'desk', workspace_path: '/src/b', role: 'lead', human_name: 'Alice' });
    // Still strict, with upstream's limits.
    expectRefusal(await alice.request('PATCH', '/v1/agents/me', { hostname: 'h'.repeat(257) }), 422, /hostname/);
    expectRefusal(await alice.request('PATCH', '/v1/agents/me', { repo_origin: 'x' }), 422, /repo_origin/);
    // The old path is gone (no dead routes).
    expect((await alice.request('PATCH', '/v1/agents/me/workspace', { hostname: 'x' })).status).toBe(404);

    // An API-key identity has no team workspace: its workspace fields are refused, nothing changes.
    const project = await createProject(t, 'keyed');
    const keyed = await createIdentity(t, project.api_key, { alias: 'keyed', human_name: 'Kept' });
    const patch = (body: unknown) => t.request('PATCH', '/v1/agents/me', { token: keyed.api_key, body });
    expectRefusal(await patch({ hostname: 'desk', human_name: 'Changed' }), 404, /did not connect to a team/, 'SVC_ERR_WORKSPACE_NOT_FOUND');
    const own = Settings.parse(expectOk(await patch({ role: 'dev' })));
    expect(own).toMatchObject({ alias: 'keyed', human_name: 'Kept', role: 'dev', hostname: null, workspace_path: null });
  });

  it('streams events, and mail and chat arrive client-signed from identity-only and team auth alike', async () => {
    const opened = await alice.stream(streamPath());
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    stream = opened.stream as SseClient;
    streams.push(stream);
    expect((await nextOf(stream, 'connected')).agent_id).toBe(aliceAgent.agent_id);
    expect(TeamAgents.parse(expectOk(await bob.request('GET', '/v1/agents'))).agents.find((a) => a.alias === 'alice')?.online).toBe(true);

    // bob mails alice, identity-only (no certificate): the node holds no key for bob, bob signs.
    const envelope: Envelope = { type: 'mail', from: 'bob', to: 'alice', to_did: alice.key.didKey, subject: 'hi', body: 'from an upstream client' };
    const signed = signedFields(bob.key, envelope, { at: at() });
    const sent = expectOk(
      await bob.request('POST', '/v1/messages', { to_alias: 'alice', subject: 'hi', body: envelope.body, ...signed }, { mode: 'identity' }),
    );
    expect(sent.message_id).toBe(signed.message_id);
    expect((await nextOf(stream, 'mail_message')).message_id).toBe(signed.message_id);
    const inbox: MailMessage[] = expectOk(await alice.request('GET', '/v1/messages/inbox?limit=50')).messages.map((m: unknown) => MailMessage.parse(m));
    expect(inbox.find((m) => m.message_id === signed.message_id)).toMatchObject({
      from_did: bob.key.didKey,
      signature_status: 'verified',
      body: envelope.body,
    });
    // Unsigned mail from a self-custodial member is refused: the node signs nothing for it.
    expectRefusal(await bob.request('POST', '/v1/messages', { to_alias: 'alice', body: 'unsigned' }), 422, /self-custodial/, 'SVC_ERR_SIGNATURE_REQUIRED');

    // alice starts a chat with bob over team auth; bob sees it pending.
    const chat: Envelope = { type: 'chat', from: 'alice', to: 'bob', to_did: bob.key.didKey, body: 'pair?', wait_seconds: 0 };
    const chatSigned = signedFields(alice.key, chat, { at: at() });
    const started = expectOk(await alice.request('POST', '/v1/chat/sessions', { to_aliases: ['bob'], message: chat.body, wait_seconds: 0, ...chatSigned }));
    expect(started.message_id).toBe(chatSigned.message_id);
    const pending = expectOk(await bob.request('GET', '/v1/chat/pending', undefined, { mode: 'identity' }));
    expect(JSON.stringify(pending)).toContain(started.session_id);
  });

  it('takes a signed write once: the identical request again gets the first answer', async () => {
    const when = at();
    const first = ControlSent.parse(expectOk(await bob.request('POST', '/v1/agents/alice/control', { signal: 'pause' }, { at: when })));
    const repeat = ControlSent.parse(expectOk(await bob.request('POST', '/v1/agents/alice/control', { signal: 'pause' }, { at: when })));
    expect(repeat.signal_id).toBe(first.signal_id);
    expect((await nextOf(stream, 'control_pause')).signal_id).toBe(first.signal_id);
    expect(await stream.maybeNext(300)).toBeNull();
    // Two empty-bodied writes in one second sign alike in compact v1: another target is another write.
    const ack1 = await bob.request('POST', '/v1/agents/heartbeat', undefined, { at: when });
    expect(ack1.status).toBe(200);
  });

  it('is paused and interrupted within the team', async () => {
    const interrupt = ControlSent.parse(expectOk(await bob.request('POST', '/v1/agents/alice/control', { signal: 'interrupt' }, { mode: 'envelope' })));
    expect((await nextOf(stream, 'control_interrupt')).signal_id).toBe(interrupt.signal_id);
    expectRefusal(await bob.request('POST', '/v1/agents/nobody/control', { signal: 'pause' }), 404);
  });

  it('serves MCP to a member signed as on REST', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    const raw = JSON.stringify(body);
    const response = await fetch(`${t.url}/mcp/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...signRequest(alice, 'POST', '/mcp/', raw) },
      body: raw,
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(text).toContain(aliceAgent.agent_id);
  });

  it('takes a signed MCP call once: the identical request again gets the first answer, byte for byte', async () => {
    const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'send_control', arguments: { alias: 'alice', signal: 'pause' } } };
    const raw = JSON.stringify(body);
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...signRequest(bob, 'POST', '/mcp', raw, { at: at() }),
    };
    const call = async () => {
      const response = await fetch(`${t.url}/mcp`, { method: 'POST', headers, body: raw });
      return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
    };
    const first = await call();
    expect(first.status, first.text).toBe(200);
    const sent = ControlSent.parse(JSON.parse(first.text).result.structuredContent);
    expect(await call()).toEqual(first);
    // One signal reached alice.
    expect((await nextOf(stream, 'control_pause')).signal_id).toBe(sent.signal_id);
    expect(await stream.maybeNext(300)).toBeNull();
  });

  it('checks X-SVC-DID-AW against the did:svc log this node holds', async () => {
    expectRefusal(
      await bob.request('GET', '/v1/messages/inbox', undefined, { mode: 'identity', didAw: selfKey().didSvc }),
      401,
      /did:svc does not match/,
      'SVC_ERR_DID_AW_MISMATCH',
    );
  });

  it('ends the stream when the certificate is revoked; every later request is 401', async () => {
    // A heartbeat just before: presence still counts alice online, the listing must not.
    expectOk(await alice.request('POST', '/v1/agents/heartbeat'));
    expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(teamId)}/members/${alice.certificateId}/revoke`));
    const error = await nextOf(stream, 'error');
    expect(error.detail).toMatch(/revoked/);
    await stream.done;
    expect(stream.ended).toBe(true);
    expectRefusal(await alice.request('GET', '/v1/agents'), 401, /revoked/, 'SVC_ERR_TEAM_CERTIFICATE_REVOKED');
    expectRefusal(await alice.request('GET', '/v1/messages/inbox', undefined, { mode: 'identity' }), 401, /revoked/, 'SVC_ERR_TEAM_CERTIFICATE_REVOKED');
    expectRefusal(asApiResponse(await alice.stream(streamPath())), 401, /revoked/, 'SVC_ERR_TEAM_CERTIFICATE_REVOKED');
    // The owner's listing still names the identity; a revoked member is never online.
    const { members } = MemberList.parse(expectOk(await t.owner('GET', `/v1/node/teams/${encodeURIComponent(teamId)}/members`)));
    expect(members.find((m) => m.certificate_id === alice.certificateId)).toMatchObject({
      agent_id: aliceAgent.agent_id,
      online: false,
      revoked_at: expect.any(String),
    });
  });

  it('deletes a gone ephemeral workspace of the team, not one seen in the last 30 minutes', async () => {
    expectRefusal(await bob.request('DELETE', `/v1/workspaces/${aliceAgent.workspace_id}`), 409, /30 minutes/, 'SVC_ERR_WORKSPACE_IN_USE');
    offset = 31 * 60 * 1000;
    const deleted = WorkspaceDeleted.parse(expectOk(await bob.request('DELETE', `/v1/workspaces/${aliceAgent.workspace_id}`, undefined, { at: at() })));
    expect(deleted).toEqual({ workspace_id: aliceAgent.workspace_id, agent_id: aliceAgent.agent_id, deleted: true });
    // Signed anew (the identical request would get the first answer again).
    expectRefusal(
      await bob.request('DELETE', `/v1/workspaces/${aliceAgent.workspace_id}`, undefined, { at: nowSeconds(offset / 1000 + 1) }),
      404,
      undefined,
      'SVC_ERR_WORKSPACE_NOT_FOUND',
    );
  });
});
