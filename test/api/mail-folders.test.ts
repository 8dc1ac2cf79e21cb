/**
 * Mail folders (ours), over real HTTP on real encrypted SQLite: archive and unarchive,
 * delete from the inbox (the sender keeps its copy), mark unread, the inbox's `folder`, Sent (one
 * item per recipient, local and remote, with delivery states from a second real node, paged across
 * both sources), a body rendered as sanitised HTML, the event stream (archived and deleted mail is
 * never pending), the MCP tools, and every refusal leaving the stored mail as it was.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { connectMcp, type McpSession } from '../support/mcp.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';

let t: TestNode;
const DOMAIN = 'folders.test';
const OTHER = 'folders-other.test';
let alpha: Project;
let ann: any; // sender, persistent: folders.test/ann
let bo: any; // recipient, same project
let outsider: any; // another project, reached by address

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  await createNodeNamespace(t, OTHER);
  alpha = await createProject(t, 'folders-alpha', DOMAIN);
  const beta = await createProject(t, 'folders-beta', OTHER);
  ann = await createIdentity(t, alpha.api_key, persistent('ann'));
  bo = await createIdentity(t, alpha.api_key, persistent('bo'));
  outsider = await createIdentity(t, beta.api_key, persistent('outsider'));
});
afterAll(async () => {
  await t.stop();
});

const send = async (from: any, body: Record<string, unknown>) => expectOk(await t.request('POST', '/v1/messages', { token: from.api_key, body }));
const mailTo = async (to: any, subject: string, body = `about ${subject}`) => (await send(ann, { to_address: to.address, subject, body })).message_id as string;
const inbox = (who: any, query = '') => t.request('GET', `/v1/messages/inbox${query}`, { token: who.api_key });
const ids = async (who: any, query = ''): Promise<string[]> => expectOk(await inbox(who, query)).messages.map((m: any) => m.message_id);
const one = async (who: any, id: string) => expectOk(await inbox(who, `?message_id=${id}`)).messages[0];
const act = (who: any, id: string, action: 'archive' | 'unarchive' | 'unread' | 'ack') =>
  t.request('POST', `/v1/messages/${id}/${action}`, { token: who.api_key });
const remove = (who: any, id: string) => t.request('DELETE', `/v1/messages/${id}`, { token: who.api_key });
const sent = (who: any, query = '') => t.request('GET', `/v1/messages/sent${query}`, { token: who.api_key });
const rendered = (who: any, id: string) => t.request('GET', `/v1/messages/${id}/rendered`, { token: who.api_key });
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('archive and unarchive', () => {
  it('moves a message out of the inbox into the archive, marking it read; unarchive brings it back, still read', async () => {
    const keep = await mailTo(bo, 'stays');
    const id = await mailTo(bo, 'to archive');
    const archived = expectOk(await act(bo, id, 'archive'));
    expect(archived).toEqual({ message_id: id, folder: 'archive', archived_at: expect.any(String), read_at: archived.archived_at });
    expect(await ids(bo)).toContain(keep);
    expect(await ids(bo)).not.toContain(id);
    expect(await ids(bo, '?folder=inbox')).not.toContain(id);
    expect(await ids(bo, '?folder=archive')).toEqual([id]);
    // A lookup by id finds it in either folder, and says where it is.
    expect(await one(bo, id)).toMatchObject({ message_id: id, archived_at: archived.archived_at, read_at: archived.archived_at });
    expect(await ids(bo, `?message_id=${id}&folder=inbox`)).toEqual([]);
    // Archiving again keeps the first time.
    expect(expectOk(await act(bo, id, 'archive'))).toEqual(archived);

    const back = expectOk(await act(bo, id, 'unarchive'));
    expect(back).toEqual({ message_id: id, folder: 'inbox', archived_at: null, read_at: archived.read_at });
    expect((await ids(bo)).slice(0, 2)).toEqual([id, keep]);
    expect(await ids(bo, '?folder=archive')).toEqual([]);
    expect(expectOk(await act(bo, id, 'unarchive'))).toEqual(back);
  });

  it('pages the archive with `before`, and `unread_only` applies within a folder', async () => {
    const reader = await createIdentity(t, alpha.api_key, persistent('archivist'));
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) mine.push(await mailTo(reader, `old ${i}`));
    for (const id of mine) expectOk(await act(reader, id, 'archive'));
    const first = expectOk(await inbox(reader, '?folder=archive&limit=2'));
    expect(first.messages.map((m: any) => m.message_id)).toEqual([mine[4], mine[3]]);
    const rest = expectOk(await inbox(reader, `?folder=archive&limit=5&before=${first.next_before}`));
    expect(rest.messages.map((m: any) => m.message_id)).toEqual([mine[2], mine[1], mine[0]]);
    expect(rest).toMatchObject({ has_more: false, next_before: null });
    expect(await ids(reader, '?folder=archive&unread_only=true')).toEqual([]);
    expect(await ids(reader)).toEqual([]);
  });
});

describe('mark unread', () => {
  it('makes a read message unread again; an archived one goes back to the inbox', async () => {
    const id = await mailTo(bo, 'read me twice');
    expectOk(await act(bo, id, 'ack'));
    expect(expectOk(await act(bo, id, 'unread'))).toEqual({ message_id: id, folder: 'inbox', archived_at: null, read_at: null });
    expect(await ids(bo, '?unread_only=true')).toContain(id);

    expectOk(await act(bo, id, 'archive'));
    expect(await ids(bo, '?unread_only=true')).not.toContain(id);
    expect(expectOk(await act(bo, id, 'unread'))).toMatchObject({ folder: 'inbox', archived_at: null, read_at: null });
    expect(await ids(bo, '?unread_only=true')).toContain(id);
    expect(await ids(bo, '?folder=archive')).not.toContain(id);
  });
});

describe('delete', () => {
  it("removes the message from the recipient's inbox and archive for good; the sender's Sent keeps it", async () => {
    const id = await mailTo(bo, 'delete me', '**bold** words');
    const deleted = expectOk(await remove(bo, id));
    expect(deleted).toEqual({ message_id: id, deleted_at: expect.any(String) });
    expect(await ids(bo)).not.toContain(id);
    expect(await ids(bo, '?folder=archive')).not.toContain(id);
    expect(await ids(bo, `?message_id=${id}`)).toEqual([]);
    // Gone for the recipient: every action on it is a 404, deleting it again too.
    expectRefusal(await remove(bo, id), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
    for (const action of ['archive', 'unarchive', 'unread', 'ack'] as const)
      expectRefusal(await act(bo, id, action), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await rendered(bo, id), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');

    const item = expectOk(await sent(ann, '?limit=200')).messages.find((m: any) => m.message_id === id);
    expect(item).toMatchObject({ subject: 'delete me', body: '**bold** words', status: 'delivered', destination: 'local' });
    expect(expectOk(await rendered(ann, id)).body_html).toContain('<strong>bold</strong>');
  });

  it('deletes an archived message too', async () => {
    const id = await mailTo(bo, 'archived then deleted');
    expectOk(await act(bo, id, 'archive'));
    expectOk(await remove(bo, id));
    expect(await ids(bo, '?folder=archive')).not.toContain(id);
  });
});

describe('refusals leave the mail as it was', () => {
  it("answers 404 for another identity's message (the sender's too) and an unknown id; 403 for a project key; 401 without a key", async () => {
    const id = await mailTo(bo, 'only bo acts on this');
    const before = await one(bo, id);
    for (const who of [ann, outsider]) {
      for (const action of ['archive', 'unarchive', 'unread'] as const)
        expectRefusal(await act(who, id, action), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
      expectRefusal(await remove(who, id), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
    }
    expectRefusal(await rendered(outsider, id), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
    for (const action of ['archive', 'unarchive', 'unread'] as const) {
      expectRefusal(await act(bo, UNKNOWN, action), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
      expectRefusal(await act(bo, 'not-even-a-uuid', action), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
      expectRefusal(await act({ api_key: alpha.api_key }, id, action), 403);
      expectRefusal(await t.request('POST', `/v1/messages/${id}/${action}`), 401);
    }
    expectRefusal(await remove(bo, UNKNOWN), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await remove({ api_key: alpha.api_key }, id), 403);
    expectRefusal(await t.request('DELETE', `/v1/messages/${id}`), 401);
    expectRefusal(await rendered(bo, UNKNOWN), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await t.request('GET', `/v1/messages/${id}/rendered`), 401);
    expectRefusal(await act(bo, 'x'.repeat(257), 'archive'), 422);
    expect(await one(bo, id)).toEqual(before);
  });

  it('refuses bad folder and Sent queries (422), and an unknown Sent cursor (422)', async () => {
    expectValidation(await inbox(bo, '?folder=trash'), 'folder');
    expectValidation(await inbox(bo, '?folder='), 'folder');
    expectValidation(await sent(ann, '?limit=0'), 'limit');
    expectValidation(await sent(ann, '?limit=201'), 'limit');
    expectValidation(await sent(ann, '?limit=many'), 'limit');
    expectValidation(await sent(ann, `?before=${UNKNOWN}`), 'before');
    // A message ann received is not one she sent.
    const received = (await send(bo, { to_alias: 'ann', body: 'to ann' })).message_id;
    expectRefusal(await sent(ann, `?before=${received}`), 422, /no message .* in your sent mail/, 'SVC_ERR_VALIDATION');
    expectRefusal(await sent({ api_key: alpha.api_key }), 403);
    expectRefusal(await t.request('GET', '/v1/messages/sent'), 401);
  });
});

describe('GET /v1/messages/sent', () => {
  it('lists every send newest first, one item per recipient, the alias only inside the project', async () => {
    const sender = await createIdentity(t, alpha.api_key, persistent('sender'));
    const first = await send(sender, { to_alias: 'bo', subject: 'One', body: 'first', priority: 'high' });
    const second = await send(sender, { to_aliases: ['bo'], to_addresses: [outsider.address], subject: 'Two', body: 'second' });
    const page = expectOk(await sent(sender));
    expect(page).toMatchObject({ has_more: false, next_before: null });
    expect(page.messages.map((m: any) => [m.subject, m.to])).toEqual([
      ['Two', outsider.address],
      ['Two', 'bo'],
      ['One', 'bo'],
    ]);
    expect(page.messages[2]).toEqual({
      message_id: first.message_id,
      destination: 'local',
      to: 'bo',
      to_alias: 'bo',
      to_address: bo.address,
      to_did: bo.did_key,
      to_stable_id: bo.did_aw,
      subject: 'One',
      body: 'first',
      // Sealed end to end; the sender reads its own copy through the node, which holds its keys.
      end_to_end: true,
      content_mode: 'server_readable_hosted',
      message_version: 2,
      priority: 'high',
      signature: expect.any(String),
      signed_payload: expect.any(String),
      thread_id: null,
      conversation_id: first.message_id,
      created_at: first.delivered_at,
      status: 'delivered',
      attempts: null,
      next_attempt_at: null,
      last_error: null,
      delivered_to: null,
      settled_at: first.delivered_at,
    });
    // The other project's alias is not revealed.
    expect(page.messages[0]).toMatchObject({ message_id: second.messages[1].message_id, to_alias: null, to_address: outsider.address });
    // Received mail is not sent mail.
    expect(expectOk(await sent(bo)).messages.map((m: any) => m.message_id)).not.toContain(first.message_id);
  });

  it('includes mail queued for another node and pages across both sources without losing or repeating one', async () => {
    const sender = await createIdentity(t, alpha.api_key, persistent('pager'));
    const expected: string[] = [];
    for (let i = 0; i < 12; i++) {
      const to = i % 3 === 0 ? { to_address: `nowhere.example/r${i}` } : { to_alias: 'bo' };
      expected.unshift((await send(sender, { ...to, subject: `#${i}`, body: `mail ${i}` })).message_id);
    }
    const all = expectOk(await sent(sender, '?limit=200')).messages;
    expect(all).toHaveLength(12);
    // Newest first by the second each was sent (many share one here), so compare as sets and check the order of seconds.
    expect(new Set(all.map((m: any) => m.message_id))).toEqual(new Set(expected));
    const seconds = all.map((m: any) => m.created_at);
    expect([...seconds].sort().reverse()).toEqual(seconds);
    const remote = all.filter((m: any) => m.destination === 'remote');
    expect(remote).toHaveLength(4);
    expect(remote[0]).toMatchObject({
      status: 'queued',
      to_did: null,
      to_alias: null,
      attempts: expect.any(Number),
      body: expect.stringMatching(/^mail \d+$/),
    });
    expect(remote[0].to).toMatch(/^nowhere\.example\/r\d+$/);

    for (const limit of [1, 2, 5]) {
      const walked: string[] = [];
      let before: string | null = null;
      do {
        const page: any = expectOk(await sent(sender, `?limit=${limit}${before ? `&before=${before}` : ''}`));
        expect(page.messages.length).toBeLessThanOrEqual(limit);
        walked.push(...page.messages.map((m: any) => m.message_id));
        before = page.next_before;
        expect(page.has_more).toBe(before !== null);
      } while (before !== null);
      expect(walked).toEqual(all.map((m: any) => m.message_id));
    }
  });
});

describe('GET /v1/messages/{id}/rendered', () => {
  it('renders Markdown with the node’s sanitiser: no raw HTML, no outside images, safe links only', async () => {
    const markdown = [
      '# Plan',
      '',
      'Some *emphasis* and a [link](https://example.com/x "Example").',
      '',
      '<script>alert(1)</script> <img src=x onerror=alert(1)>',
      '',
      '![tracker](https://tracker.example/pixel.png) [bad](javascript:alert(1))',
      '',
      '- one',
      '- two',
      '',
      '```',
      'code <b>',
      '```',
    ].join('\n');
    const id = await mailTo(bo, 'Markdown', markdown);
    const { message_id, body_html: html } = expectOk(await rendered(bo, id));
    expect(message_id).toBe(id);
    expect(html).toContain('<h1>Plan</h1>');
    expect(html).toContain('<em>emphasis</em>');
    expect(html).toContain('<a href="https://example.com/x" rel="noopener noreferrer" title="Example">link</a>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('code &lt;b&gt;');
    // Raw HTML is text, never markup; images from outside are their alt text; a javascript: link is its text.
    expect(html).not.toMatch(/<script|<img|javascript:/i);
    expect(html).not.toMatch(/<[^>]*onerror/i);
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('tracker');
    expect(html).toContain('bad');
    // The sender renders it too (from Sent); it stays the recipient's after archiving.
    expect(expectOk(await rendered(ann, id)).body_html).toBe(html);
    expectOk(await act(bo, id, 'archive'));
    expect(expectOk(await rendered(bo, id)).body_html).toBe(html);
  });
});

describe('the event stream', () => {
  const open: SseClient[] = [];
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });

  /** The mail a fresh stream replays as pending. */
  async function pending(who: any): Promise<string[]> {
    const response = await connectSse(`${t.url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(30))}`, { token: who.api_key });
    expect(response.status).toBe(200);
    const stream = response.stream as SseClient;
    open.push(stream);
    // The snapshot is written at once; a marker mail sent now arrives after it.
    const marker = await mailTo(who, 'marker');
    const seen: string[] = [];
    for (;;) {
      const frame = await stream.next(10_000);
      if (frame.event !== 'mail_message') continue;
      if (frame.data.message_id === marker) break;
      seen.push(frame.data.message_id);
    }
    stream.close();
    expectOk(await act(who, marker, 'ack'));
    return seen;
  }

  it('never replays archived or deleted mail as pending; mail marked unread is pending again', async () => {
    const rx = await createIdentity(t, alpha.api_key, persistent('streamer'));
    const archived = await mailTo(rx, 'archived unread');
    const deleted = await mailTo(rx, 'deleted unread');
    const waiting = await mailTo(rx, 'still waiting');
    expect(await pending(rx)).toEqual([archived, deleted, waiting]);

    expectOk(await act(rx, archived, 'archive'));
    expectOk(await remove(rx, deleted));
    expect(await pending(rx)).toEqual([waiting]);

    // Back in the inbox but read: not pending. Marked unread: pending again.
    expectOk(await act(rx, archived, 'unarchive'));
    expect(await pending(rx)).toEqual([waiting]);
    expectOk(await act(rx, archived, 'unread'));
    expect(await pending(rx)).toEqual([archived, waiting]);
  });
});

describe('MCP tools', () => {
  let boMcp: McpSession;
  let annMcp: McpSession;
  beforeAll(async () => {
    boMcp = await connectMcp(t.url, bo.api_key);
    return () => boMcp.close();
  });
  beforeAll(async () => {
    annMcp = await connectMcp(t.url, ann.api_key);
    return () => annMcp.close();
  });

  it('archive, unarchive, mark unread, delete and list what was sent, with the HTTP API’s answers and refusals', async () => {
    const id = await mailTo(bo, 'via MCP');
    const archived = await boMcp.call('archive_message', { message_id: id });
    expect(archived).toEqual({ isError: false, body: { message_id: id, folder: 'archive', archived_at: expect.any(String), read_at: expect.any(String) } });
    expect((await boMcp.call('check_inbox', { folder: 'archive', unread_only: false })).body.messages.map((m: any) => m.message_id)).toContain(id);
    expect((await boMcp.call('unarchive_message', { message_id: id })).body).toMatchObject({ folder: 'inbox' });
    expect((await boMcp.call('mark_unread', { message_id: id })).body).toMatchObject({ read_at: null });
    expect((await boMcp.call('check_inbox', { unread_only: true })).body.messages.map((m: any) => m.message_id)).toContain(id);

    const list = await annMcp.call('list_sent', { limit: 200 });
    expect(list.isError).toBe(false);
    expect(list.body.messages.find((m: any) => m.message_id === id)).toMatchObject({ subject: 'via MCP', status: 'delivered' });

    expect(await annMcp.call('delete_message', { message_id: id })).toEqual({
      isError: true,
      body: { error: 'Message not found', status: 404, code: 'SVC_ERR_MESSAGE_NOT_FOUND' },
    });
    expect((await boMcp.call('delete_message', { message_id: id })).body).toEqual({ message_id: id, deleted_at: expect.any(String) });
    expect(await boMcp.call('archive_message', { message_id: id })).toEqual({
      isError: true,
      body: { error: 'Message not found', status: 404, code: 'SVC_ERR_MESSAGE_NOT_FOUND' },
    });
    expect((await annMcp.call('list_sent', { before: UNKNOWN })).body).toMatchObject({ status: 422, code: 'SVC_ERR_VALIDATION' });
  });
});

describe('Sent with another node: queued, delivered and bounced', () => {
  const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
  const WAIT = { timeout: 10_000, interval: 25 };
  let a: TestNode;
  let b: TestNode;
  let alice: any;
  let bob: any;

  beforeAll(async () => {
    a = await startTestNode({ outbox: FAST_OUTBOX });
    return () => a.stop();
  });
  beforeAll(async () => {
    b = await startTestNode({ outbox: FAST_OUTBOX });
    return () => b.stop();
  });
  beforeAll(async () => {
    await createNodeNamespace(a, 'sent-a.test');
    await createNodeNamespace(b, 'sent-b.test');
    alice = await createIdentity(a, (await createProject(a, 'pa', 'sent-a.test')).api_key, persistent('alice'));
    bob = await createIdentity(b, (await createProject(b, 'pb', 'sent-b.test')).api_key, persistent('bob'));
    expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'sent-b.test', url: b.url }), 201);
    expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'sent-a.test', url: a.url }), 201);
  });

  it('shows each remote send with the outbox state, and only mail (not chat) to other nodes', async () => {
    const post = async (body: Record<string, unknown>) => expectOk(await a.request('POST', '/v1/messages', { token: alice.api_key, body }));
    const delivered = await post({ to_address: 'sent-b.test/bob', subject: 'Across', body: '# Hi\n\nfrom **a**' });
    const bounced = await post({ to_address: 'sent-b.test/nobody', subject: 'Nobody there', body: 'x' });
    const queued = await post({ to_address: 'unknown-node.example/zed', subject: 'Waiting', body: 'y' });
    expectOk(await a.request('POST', '/v1/chat/sessions', { token: alice.api_key, body: { to_addresses: ['sent-b.test/bob'], message: 'a chat, not mail' } }));
    const byId = async () =>
      new Map<string, any>(expectOk(await a.request('GET', '/v1/messages/sent', { token: alice.api_key })).messages.map((m: any) => [m.message_id, m]));

    await expect.poll(async () => (await byId()).get(delivered.message_id)?.status, WAIT).toBe('delivered');
    await expect.poll(async () => (await byId()).get(bounced.message_id)?.status, WAIT).toBe('bounced');
    const items = await byId();
    expect(items.size).toBe(3);
    expect(items.get(delivered.message_id)).toMatchObject({
      destination: 'remote',
      to: 'sent-b.test/bob',
      delivered_to: b.url,
      attempts: 1,
      settled_at: expect.any(String),
      next_attempt_at: null,
    });
    expect(items.get(bounced.message_id)).toMatchObject({ destination: 'remote', last_error: expect.stringMatching(/nobody/), settled_at: expect.any(String) });
    expect(items.get(queued.message_id)).toMatchObject({ status: 'queued', next_attempt_at: expect.any(String), settled_at: null });
    // The sender renders what it sent to another node from its outbox copy.
    expect(expectOk(await a.request('GET', `/v1/messages/${delivered.message_id}/rendered`, { token: alice.api_key })).body_html).toContain('<h1>Hi</h1>');
    // Bob received it on his node, where it archives like any mail.
    const [received] = expectOk(await b.request('GET', `/v1/messages/inbox?message_id=${delivered.message_id}`, { token: bob.api_key })).messages;
    expect(received).toMatchObject({ origin: 'remote', subject: 'Across' });
    expectOk(await b.request('POST', `/v1/messages/${delivered.message_id}/archive`, { token: bob.api_key }));
  });

  it("answers GET /v1/messages/sent/{message_id} for a federated send with the outbox's delivery state; on the recipient's node it is not bob's sent mail", async () => {
    const sent = expectOk(
      await a.request('POST', '/v1/messages', { token: alice.api_key, body: { to_address: 'sent-b.test/bob', subject: 'Across', body: 'hello' } }),
    );
    const one = async () => expectOk(await a.request('GET', `/v1/messages/sent/${sent.message_id}`, { token: alice.api_key }));
    await expect.poll(async () => (await one()).status, WAIT).toBe('delivered');
    expect(await one()).toMatchObject({
      destination: 'remote',
      to: 'sent-b.test/bob',
      delivered_to: b.url,
      attempts: 1,
      settled_at: expect.any(String),
      next_attempt_at: null,
    });
    // Bob has it in his inbox on his node; it is not in his Sent.
    expect(expectOk(await b.request('GET', `/v1/messages/inbox?message_id=${sent.message_id}`, { token: bob.api_key })).messages).toHaveLength(1);
    expectRefusal(await b.request('GET', `/v1/messages/sent/${sent.message_id}`, { token: bob.api_key }), 404, undefined, 'SVC_ERR_MESSAGE_NOT_FOUND');
  });
});
