/**
 * Browser sessions of the node's owner, on a real node restarted on the same data dir: a sign-in
 * link's code is traded for a session (never the owner token) that works after a restart, ends at
 * once when revoked, and after its idle time or absolute limit by the node's own clock; the
 * database holds only its hash. The owner token keeps working for the CLI beside it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_OWNER_SESSIONS, OWNER_SESSION_IDLE_MS, OWNER_SESSION_MAX_MS } from '../../server/auth/owner-sessions.ts';
import type { Clock } from '../../server/clock.ts';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { asApiResponse, connectSse, deadlineIn } from '../support/sse.ts';

const DAY = 24 * 60 * 60 * 1000;
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-sessions-'));
let t: TestNode;

const codeOf = (url: string): string => new URL(url).hash.replace(/^#code=/, '');
const start = async (): Promise<TestNode> => startTestNode({ dataDir, clock });

/** Signs in with a fresh link, as a browser does. */
async function signIn(userAgent = 'Mozilla/5.0 (X11; Linux x86_64) Chromium/140'): Promise<{ token: string; id: string }> {
  const code = codeOf(expectOk(await t.owner('POST', '/v1/node/ui-link')).ui_url);
  const body = expectOk(await t.request('POST', '/v1/node/session', { body: { code }, headers: { 'user-agent': userAgent } }));
  return { token: body.session_token, id: body.session.session_id };
}

const info = (token: string) => t.request('GET', '/v1/node/info', { token });

beforeAll(async () => {
  t = await start();
});
afterAll(async () => {
  await t.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('signing in', () => {
  it('trades the code for a session of its own, never the owner token', async () => {
    const code = codeOf(t.node.info.ui_url);
    const body = expectOk(await t.request('POST', '/v1/node/session', { body: { code } }));
    expect(JSON.stringify(body)).not.toContain(t.node.ownerToken);
    expect(body.session_token).toMatch(/^svc_os_[0-9a-f]{64}$/);
    expect(body.session).toMatchObject({ current: true, client: 'node' });
    expect(Date.parse(body.session.ends_at) - Date.parse(body.session.last_used_at)).toBe(OWNER_SESSION_IDLE_MS);
    expect(Date.parse(body.session.expires_at) - Date.parse(body.session.created_at)).toBe(OWNER_SESSION_MAX_MS);
    expect(expectOk(await info(body.session_token)).data_dir).toBe(dataDir);
    // The code worked once.
    expectRefusal(await t.request('POST', '/v1/node/session', { body: { code } }), 401, /already used/, 'SVC_ERR_UI_LINK_INVALID');
  });

  it('survives a restart of the node, whose owner token changes', async () => {
    const session = await signIn();
    const oldToken = t.node.ownerToken;
    await t.stop();
    t = await start();
    expect(t.node.ownerToken).not.toBe(oldToken);
    expectRefusal(await t.request('GET', '/v1/node/info', { token: oldToken }), 401, undefined, 'SVC_ERR_OWNER_TOKEN_REQUIRED');
    expect(expectOk(await info(session.token)).data_dir).toBe(dataDir);
    // The owner token of this run works for the CLI as before.
    expectOk(await t.owner('GET', '/v1/node/info'));
    // And so does the owner feed.
    const feed = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(30))}`, { token: session.token });
    expect(feed.status).toBe(200);
    expect((await feed.stream!.next()).event).toBe('connected');
    feed.stream!.close();
  });

  it('is refused with a clear 401 for a session this node never made (its data reset)', async () => {
    const unknown = `svc_os_${'0'.repeat(64)}`;
    expectRefusal(await info(unknown), 401, /does not know this session.*svc-node ui/, 'SVC_ERR_OWNER_SESSION_UNKNOWN');
    expectRefusal(await info('svc_os_short'), 401, undefined, 'SVC_ERR_OWNER_SESSION_UNKNOWN');
  });
});

describe('revoking', () => {
  it('lists the live sessions with the caller’s own marked, and ends one at once, its open feed too', async () => {
    const a = await signIn('Browser A');
    const b = await signIn('Browser B');
    const listed = expectOk(await t.request('GET', '/v1/node/sessions', { token: a.token }));
    expect(listed).toMatchObject({ idle_days: 14, max_days: 90 });
    const mine = listed.sessions.filter((s: { session_id: string }) => s.session_id === a.id || s.session_id === b.id);
    expect(mine).toEqual([
      expect.objectContaining({ session_id: b.id, client: 'Browser B', current: false }),
      expect.objectContaining({ session_id: a.id, client: 'Browser A', current: true }),
    ]);

    const feed = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(60))}`, { token: b.token });
    expect((await feed.stream!.next()).event).toBe('connected');
    expectOk(await t.request('DELETE', `/v1/node/sessions/${b.id}`, { token: a.token }));
    // The open feed ends with the reason, well before its one-second poll would matter.
    const rest = await feed.stream!.untilEnd(3000);
    expect(rest.at(-1)?.event).toBe('error');
    expect(rest.at(-1)?.data.detail).toMatch(/signed out.*svc-node ui/);
    expectRefusal(await info(b.token), 401, /signed out at .*svc-node ui/, 'SVC_ERR_OWNER_SESSION_REVOKED');
    expectRefusal(asApiResponse(await connectSse(`${t.url}/v1/node/events/stream`, { token: b.token })), 401, undefined, 'SVC_ERR_OWNER_SESSION_REVOKED');
    // Revoked stays revoked after a restart; the other session goes on.
    await t.stop();
    t = await start();
    expectRefusal(await info(b.token), 401, undefined, 'SVC_ERR_OWNER_SESSION_REVOKED');
    expectOk(await info(a.token));
    expect(expectOk(await t.request('GET', '/v1/node/sessions', { token: a.token })).sessions.map((s: { session_id: string }) => s.session_id)).not.toContain(
      b.id,
    );
    // Revoking again answers the same; an id the node never made is a 404.
    expectOk(await t.request('DELETE', `/v1/node/sessions/${b.id}`, { token: a.token }));
    expectRefusal(
      await t.request('DELETE', '/v1/node/sessions/00000000-0000-4000-8000-000000000000', { token: a.token }),
      404,
      undefined,
      'SVC_ERR_OWNER_SESSION_NOT_FOUND',
    );
  });

  it('ends every other session and keeps the caller’s', async () => {
    const keep = await signIn();
    const others = [await signIn(), await signIn()];
    expect(expectOk(await t.request('POST', '/v1/node/sessions/revoke-others', { token: keep.token })).revoked).toBeGreaterThanOrEqual(2);
    for (const other of others) expectRefusal(await info(other.token), 401, undefined, 'SVC_ERR_OWNER_SESSION_REVOKED');
    expectOk(await info(keep.token));
    expect(expectOk(await t.request('GET', '/v1/node/sessions', { token: keep.token })).sessions).toEqual([
      expect.objectContaining({ session_id: keep.id, current: true }),
    ]);
    // With the owner token (the CLI), every session ends.
    expectOk(await t.owner('POST', '/v1/node/sessions/revoke-others'));
    expectRefusal(await info(keep.token), 401, undefined, 'SVC_ERR_OWNER_SESSION_REVOKED');
  });
});

describe('how many', () => {
  it('keeps at most 64 live: one more signs out the one used longest ago', async () => {
    expectOk(await t.owner('POST', '/v1/node/sessions/revoke-others'));
    const used = await signIn();
    const idle = await signIn();
    for (let i = 2; i < MAX_OWNER_SESSIONS; i++) await signIn();
    offsetMs += 2 * 60_000;
    expectOk(await info(used.token));
    const list = () => t.request('GET', '/v1/node/sessions', { token: used.token });
    expect(expectOk(await list()).sessions).toHaveLength(MAX_OWNER_SESSIONS);
    const last = await signIn();
    expect(expectOk(await list()).sessions).toHaveLength(MAX_OWNER_SESSIONS);
    expectRefusal(await info(idle.token), 401, undefined, 'SVC_ERR_OWNER_SESSION_REVOKED');
    expectOk(await info(used.token));
    expectOk(await info(last.token));
  });
});

describe('the identity keys a session mints', () => {
  it('stop working when the session is signed out; the owner token’s do not', async () => {
    const project = expectOk(await t.owner('POST', '/v1/node/projects', { slug: 'keys' }), 201);
    const identity = expectOk(await t.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'kim' }), 201);
    const session = await signIn();
    const mint = async (token: string): Promise<string> =>
      expectOk(await t.request('POST', `/v1/node/identities/${identity.agent_id}/session-key`, { token }), 201).api_key;
    const windowKey = await mint(session.token);
    const cliKey = await mint(t.node.ownerToken);
    const inbox = (key: string) => t.request('GET', '/v1/messages/inbox', { token: key });
    expectOk(await inbox(windowKey));
    expectOk(await t.request('DELETE', `/v1/node/sessions/${session.id}`, { token: t.node.ownerToken }));
    expect((await inbox(windowKey)).status).toBe(401);
    expectOk(await inbox(cliKey));
  });
});

describe('expiry by the node’s clock', () => {
  it('ends a session after 14 days without use, and one in use 90 days after signing in', async () => {
    const signedInAt = offsetMs;
    const idle = await signIn();
    const busy = await signIn();
    offsetMs += OWNER_SESSION_IDLE_MS - 60_000;
    expectOk(await info(busy.token));
    offsetMs += 2 * 60_000;
    expectRefusal(await info(idle.token), 401, /expired \(14 days without use\).*svc-node ui/, 'SVC_ERR_OWNER_SESSION_EXPIRED');
    expectOk(await info(busy.token));
    // Used every ten days, it still ends at its absolute limit.
    while (offsetMs - signedInAt < OWNER_SESSION_MAX_MS - 10 * DAY) {
      offsetMs += 10 * DAY;
      expectOk(await info(busy.token));
    }
    offsetMs = signedInAt + OWNER_SESSION_MAX_MS + 60_000;
    expectRefusal(await info(busy.token), 401, /expired \(its 90-day limit\)/, 'SVC_ERR_OWNER_SESSION_EXPIRED');
  });
});

describe('what the node stores', () => {
  it('keeps only the SHA-256 of a session’s secret in its database', async () => {
    const session = await signIn();
    await t.stop();
    const opened = await openNodeDatabase(dataDir);
    try {
      const rows = opened.db.prepare('SELECT * FROM owner_sessions').all() as Record<string, unknown>[];
      expect(rows.map((row) => row['secret_sha256'])).toContain(createHash('sha256').update(session.token).digest('hex'));
      expect(JSON.stringify(rows)).not.toContain(session.token.slice('svc_os_'.length));
    } finally {
      opened.close();
      t = await start();
    }
  });
});
