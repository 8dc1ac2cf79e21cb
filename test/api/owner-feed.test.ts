/**
 * What the owner's UI and the desktop shell use to act for identities and hear about new mail
 * and chat: per-identity session keys, the node-wide wake stream, and RunningNode.onWake.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { NodeWakeItem } from '../../contract/core/events.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { blueprintPayload, profileFiles } from '../support/library.ts';
import { connectSse, deadlineIn } from '../support/sse.ts';
import { addTeamMember, PUBLISHER_SCOPES } from '../support/teams.ts';

/** A clock the test can move: session keys expire in node time. */
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

let t: TestNode;
let alice: { agent_id: string; api_key: string };
let bob: { agent_id: string; api_key: string };

beforeAll(async () => {
  t = await startTestNode({ clock });
  return () => t.stop();
});
beforeAll(async () => {
  await createNodeNamespace(t, 'feed.test');
  const project = await createProject(t, 'feed', 'feed.test');
  alice = await createIdentity(t, project.api_key, persistent('alice'));
  bob = await createIdentity(t, project.api_key, persistent('bob'));
});

describe('POST /v1/node/identities/{agent_id}/session-key', () => {
  it('mints a day-long key that acts as the identity, then expires', async () => {
    const minted = expectOk(await t.owner('POST', `/v1/node/identities/${bob.agent_id}/session-key`), 201);
    expect(minted.api_key).toMatch(/^svc_sk_[0-9a-f]{64}$/);
    expect(Date.parse(minted.expires_at) - clock.now().getTime()).toBeGreaterThan(23 * 3600 * 1000);
    const me = expectOk(await t.request('GET', '/v1/auth/introspect', { token: minted.api_key }));
    expect(me.agent_id).toBe(bob.agent_id);
    offsetMs = 25 * 3600 * 1000;
    try {
      expectRefusal(await t.request('GET', '/v1/auth/introspect', { token: minted.api_key }), 401, undefined, 'SVC_ERR_AUTH_INVALID');
      // The identity's own key has no expiry.
      expectOk(await t.request('GET', '/v1/auth/introspect', { token: bob.api_key }));
    } finally {
      offsetMs = 0;
    }
  });

  it('needs the owner token and a live identity', async () => {
    expectRefusal(
      await t.request('POST', `/v1/node/identities/${bob.agent_id}/session-key`, { token: bob.api_key }),
      401,
      undefined,
      'SVC_ERR_OWNER_TOKEN_REQUIRED',
    );
    expectRefusal(await t.owner('POST', '/v1/node/identities/00000000-0000-4000-8000-000000000000/session-key'), 404, undefined, 'SVC_ERR_IDENTITY_NOT_FOUND');
    expectRefusal(await t.owner('POST', '/v1/node/identities/not-a-uuid/session-key'), 422, undefined, 'SVC_ERR_VALIDATION');
  });
});

describe('the node-wide wake feed', () => {
  it('streams new mail and chat for every identity to the owner', async () => {
    expectRefusal(
      await t.request('GET', `/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(5))}`),
      401,
      undefined,
      'SVC_ERR_OWNER_TOKEN_REQUIRED',
    );
    const response = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(10))}`, { token: t.node.ownerToken });
    const stream = response.stream!;
    try {
      expect((await stream.next()).event).toBe('connected');
      const sent = expectOk(await t.request('POST', '/v1/messages', { token: alice.api_key, body: { to_alias: 'bob', subject: 'hi', body: 'hello' } }));
      const mail = await stream.next();
      expect(mail.event).toBe('mail_message');
      // Sealed end to end between them: the owner's feed says who and that it is encrypted, never what it says.
      expect(mail.data).toMatchObject({
        agent_id: bob.agent_id,
        type: 'mail_message',
        message_id: sent.message_id,
        from_alias: 'alice',
        subject: '',
        end_to_end: true,
      });
      const chat = expectOk(await t.request('POST', '/v1/chat/sessions', { token: bob.api_key, body: { to_aliases: ['alice'], message: 'ping' } }));
      const frame = await stream.next();
      expect(frame.event).toBe('chat_message');
      // Chat between them is sealed end to end too: its preview is empty, and the frame says why.
      expect(frame.data).toMatchObject({ agent_id: alice.agent_id, session_id: chat.session_id, from_alias: 'bob', preview: '', end_to_end: true });
    } finally {
      stream.close();
    }
  });

  it('reaches the desktop shell in-process through onWake', async () => {
    const seen: NodeWakeItem[] = [];
    const stop = t.node.onWake((item) => seen.push(item));
    try {
      const sent = expectOk(await t.request('POST', '/v1/messages', { token: bob.api_key, body: { to_aliases: ['alice'], subject: 'in process', body: 'x' } }));
      await expect.poll(() => seen.map((i) => i.message_id)).toEqual([sent.message_id]);
      expect(seen[0]).toMatchObject({ agent_id: alice.agent_id, type: 'mail_message', from_alias: 'bob' });
    } finally {
      stop();
    }
    // After unsubscribing nothing more arrives.
    expectOk(await t.request('POST', '/v1/messages', { token: bob.api_key, body: { to_alias: 'alice', body: 'later' } }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(1);
  });
});

describe('mail changes on the owner feed', () => {
  it('nudges mail_changed {agent_id, message_id} after a read, unread, archive, unarchive or delete through the API, not on reads', async () => {
    const response = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(10))}`, { token: t.node.ownerToken });
    const stream = response.stream!;
    try {
      expect((await stream.next()).event).toBe('connected');
      const sent = expectOk(await t.request('POST', '/v1/messages', { token: alice.api_key, body: { to_alias: 'bob', subject: 'changes', body: 'x' } }));
      expect((await stream.next()).event).toBe('mail_message');
      const changed = { event: 'mail_changed', data: { agent_id: bob.agent_id, message_id: sent.message_id } };
      const as = (path: string, method = 'POST') => t.request(method, path, { token: bob.api_key, ...(method === 'POST' ? { body: {} } : {}) });

      // Reading the inbox changes nothing.
      expectOk(await as('/v1/messages/inbox', 'GET'));
      expect(await stream.maybeNext(200)).toBeNull();

      for (const action of ['ack', 'unread', 'archive', 'unarchive']) {
        expectOk(await as(`/v1/messages/${sent.message_id}/${action}`));
        expect(await stream.next(), action).toMatchObject(changed);
      }
      // Acknowledging a message already read (archiving read it) changes nothing shown.
      expectOk(await as(`/v1/messages/${sent.message_id}/ack`));
      expect(await stream.maybeNext(200)).toBeNull();

      expectOk(await as(`/v1/messages/${sent.message_id}`, 'DELETE'));
      expect(await stream.next()).toMatchObject(changed);
      // A refused change (already deleted) nudges nothing.
      expectRefusal(await as(`/v1/messages/${sent.message_id}/archive`), 404);
      expect(await stream.maybeNext(200)).toBeNull();
    } finally {
      stream.close();
    }
  });

  it('says when a chat message arriving is a goodbye or a return', async () => {
    const response = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(10))}`, { token: t.node.ownerToken });
    const stream = response.stream!;
    try {
      expect((await stream.next()).event).toBe('connected');
      const chat = expectOk(await t.request('POST', '/v1/chat/sessions', { token: bob.api_key, body: { to_aliases: ['alice'], message: 'hello again' } }));
      expect((await stream.next()).data).toMatchObject({ agent_id: alice.agent_id, sender_leaving: false, sender_rejoining: false });
      const say = (body: Record<string, unknown>) => t.request('POST', `/v1/chat/sessions/${chat.session_id}/messages`, { token: bob.api_key, body });
      expectOk(await say({ body: 'Off for the weekend, bye', leaving: true }));
      expect(await stream.next()).toMatchObject({
        event: 'chat_message',
        data: { agent_id: alice.agent_id, session_id: chat.session_id, preview: '', end_to_end: true, sender_leaving: true, sender_rejoining: false },
      });
      expectOk(await say({ body: 'Rejoined the chat.', rejoining: true }));
      expect(await stream.next()).toMatchObject({ event: 'chat_message', data: { agent_id: alice.agent_id, sender_leaving: false, sender_rejoining: true } });
    } finally {
      stream.close();
    }
  });
});

describe('library changes on the owner feed', () => {
  it('nudges the owner when a team writes to its shelf or the catalog changes, not on reads', async () => {
    const member = await addTeamMember(t, { team: 'feed', domain: 'feed.test', scopes: PUBLISHER_SCOPES });
    const response = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(10))}`, { token: t.node.ownerToken });
    const stream = response.stream!;
    try {
      expect((await stream.next()).event).toBe('connected');
      expectOk(await member.request('GET', '/v1/shelf'));
      expect(await stream.maybeNext(200)).toBeNull();
      expectOk(await member.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'fed' }) } }), 201);
      const changed = await stream.next();
      expect(changed).toMatchObject({ event: 'library_changed', data: { team_id: member.teamId } });
      expectOk(await member.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'feed.team', profiles: [{ ref: 'fed' }] }) }), 201);
      // A publish changes both the team's library and the public catalog.
      expect((await stream.take(2)).map((f) => f.event).sort()).toEqual(['catalog_changed', 'library_changed']);
    } finally {
      stream.close();
    }
  });
});
