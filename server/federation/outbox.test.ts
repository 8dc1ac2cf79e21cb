/**
 * The outbox worker's decisions on a real encrypted database, with the node's clock moved by the
 * test: what it sends together and in which order, how long a message or a whole node waits, when
 * a message bounces and with what words, an older node's fallbacks, and what survives a death
 * mid-send. The receiving node is the one fake: a loopback server answering the federation routes
 * as each test scripts it, recording what reached it, behind the node's real outbound client.
 *
 * Backoffs are minutes long so the worker's own timers (real time) never fire during a test: every
 * later round is the test moving the clock and nudging the worker.
 */
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FEDERATION_BATCH_MAX_MESSAGES, FEDERATION_VERSION, type FederatedMail } from '../../contract/core/federation.ts';
import { InboxQuery } from '../../contract/core/mail.ts';
import { identityTopic } from '../events/bus.ts';
import { remoteServers } from '../../test/support/remote-server.ts';
import { startUnitNode, type UnitNode } from '../../test/support/unit-node.ts';
import { FederationOutbox, type OutboxOptions } from './outbox.ts';
import { outboxRowsFrom, scheduleRetry, type OutboxRow } from './outbox-store.ts';
import { staticDnsResolver, type DnsResolver } from '../dns/resolver.ts';

const OPTIONS: OutboxOptions = {
  retryBaseMs: 60_000,
  retryMaxMs: 240_000,
  peerRetryMaxMs: 120_000,
  giveUpAfterMs: 3600_000,
  deliveryTimeoutMs: 2_000,
  inFlightPerPeer: 2,
};
const WAIT = { timeout: 10_000, interval: 10 };
/** What the jitter leaves of a backoff at least. */
const JITTER = 0.8;
/** How long a busy machine may take between a settle and the test reading it (the clock runs on meanwhile). */
const SLACK_MS = 3_000;

const servers = remoteServers();
let node: UnitNode;
let ann: string;
const outboxes: FederationOutbox[] = [];
const errors: unknown[] = [];

beforeEach(async () => {
  node = await startUnitNode();
  const project = node.services.projects.create({ slug: 'senders' });
  ann = node.services.identities.create(project.project_id, { alias: 'ann' }).agent_id;
});

afterEach(async () => {
  await servers.closeAll();
  await Promise.all(outboxes.splice(0).map((outbox) => outbox.stop()));
  node.close();
  expect(errors.splice(0)).toEqual([]);
});

/** A running outbox on the test's node. */
function startOutbox(options: Partial<OutboxOptions> = {}): FederationOutbox {
  const outbox = new FederationOutbox(
    node.ctx,
    node.services.directory,
    node.services.remote,
    node.services.federationCore,
    node.services.remoteEncryptionKeys,
    {
      ...OPTIONS,
      ...options,
    },
  );
  outboxes.push(outbox);
  outbox.start((error) => errors.push(error));
  return outbox;
}

/** Mail from ann to `to` as her node signed it (the fake receiver checks no signature). */
function mail(to: string, fields: { subject?: string; body?: string; thread_id?: string } = {}): FederatedMail {
  return {
    v: FEDERATION_VERSION,
    kind: 'mail',
    message_id: randomUUID(),
    from: 'a.test/ann',
    from_did: 'did:key:zAnn',
    from_stable_id: null,
    to,
    subject: fields.subject ?? 'Plans',
    body: fields.body ?? 'hello',
    priority: 'normal',
    timestamp: '2026-03-01T10:00:00Z',
    signature: 's',
    signed_payload: 'p',
    ...(fields.thread_id === undefined ? {} : { thread_id: fields.thread_id }),
  };
}

/** Queues `messages` (each to its address's domain) as a send does, and wakes the worker. */
function send(outbox: FederationOutbox, ...messages: FederatedMail[]): void {
  for (const message of messages) outbox.enqueue(ann, message.to.split('/')[0]!, message);
  outbox.nudge();
}

/** Ann's outbox row for `message`. */
function row(message: FederatedMail): OutboxRow {
  const found = outboxRowsFrom(node.ctx.db, ann, 1000).find((r) => r.message_id === message.message_id);
  if (found === undefined) throw new Error(`no outbox row for ${message.message_id}`);
  return found;
}

/** Waits until `message` has been tried `attempts` times, and returns its row. */
async function tried(message: FederatedMail, attempts: number): Promise<OutboxRow> {
  await vi.waitFor(() => expect(row(message).attempts).toBe(attempts), WAIT);
  return row(message);
}

const now = () => node.ctx.clock.now().getTime();
const at = (iso: string) => Date.parse(iso);

/** Moves the clock to when `message` is due, and wakes the worker. */
function whenDue(outbox: FederationOutbox, message: FederatedMail): void {
  node.advance(Math.max(0, at(row(message).next_attempt_at) - now()));
  outbox.nudge();
}

/** A request the fake node received: which route, and the JSON it carried. */
interface Received {
  route: 'batch' | 'single';
  body: { messages?: FederatedMail[] } & Partial<FederatedMail>;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Every message of a batch delivered. */
const allDelivered = (received: Received): Answer => ({
  status: 200,
  body: { results: (received.body.messages ?? []).map((m) => ({ message_id: m.message_id, status: 'delivered' })) },
});

/**
 * A receiving node on loopback answering as `answer` says (by default, every message delivered),
 * peered for `domains`; what reached it is in `received`.
 */
async function receivingNode(
  domains: string[],
  answer: (received: Received) => Answer | Promise<Answer> = (r) =>
    r.route === 'batch' ? allDelivered(r) : { status: 200, body: { message_id: r.body.message_id, status: 'delivered' } },
) {
  const received: Received[] = [];
  const server = await servers.start(async (request, response) => {
    const route = request.url === '/v1/federation/messages/batch' ? 'batch' : 'single';
    const item: Received = { route, body: (await bodyOf(request)) as Received['body'] };
    received.push(item);
    const { status, body, headers } = await answer(item);
    if (response.destroyed) return;
    if (body === undefined) response.writeHead(status, headers).end();
    else if (typeof body === 'string') response.writeHead(status, { 'content-type': 'text/html', ...headers }).end(body);
    else response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  });
  for (const domain of domains) node.services.directory.set(domain, server.url);
  return { server, received };
}

async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** The ids each batch request carried, in order. */
const batchIds = (received: Received[]) => received.filter((r) => r.route === 'batch').map((r) => r.body.messages!.map((m) => m.message_id));

/** Wakes the worker and waits until the round it starts has settled what it sent. */
async function round(outbox: FederationOutbox): Promise<void> {
  outbox.nudge();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await outbox.stop();
  outbox.start((error) => errors.push(error));
}

/** The bounces in ann's inbox. */
const bounces = () => node.services.mail.inbox(ann, InboxQuery.parse({})).messages.filter((m) => m.from_alias === 'postmaster');

describe('the federation outbox', () => {
  it('delivers what is queued for the domains one node answers for in one batch, in send order, and settles each delivered', async () => {
    const { server, received } = await receivingNode(['b.test', 'c.test']);
    const outbox = startOutbox();
    const messages = [mail('b.test/bob'), mail('c.test/cy'), mail('b.test/bea'), mail('b.test/bob')];
    send(outbox, ...messages);
    for (const message of messages) expect((await tried(message, 1)).status).toBe('delivered');
    expect(batchIds(received)).toEqual([messages.map((m) => m.message_id)]);
    // The payload goes as it was queued, signed fields untouched.
    expect(received[0]!.body.messages![1]).toEqual(messages[1]);
    expect(row(messages[0]!)).toMatchObject({ delivered_to: server.url, last_error: null });
    expect(outbox.sentBy(ann).map((m) => m.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });

  it(`cuts what is due into batches of at most ${FEDERATION_BATCH_MAX_MESSAGES} messages and 1 MiB, a pair's messages in one batch only`, async () => {
    const { received } = await receivingNode(['b.test']);
    const outbox = startOutbox({ inFlightPerPeer: 8 });
    const many = Array.from({ length: FEDERATION_BATCH_MAX_MESSAGES + 6 }, (_, i) => mail(`b.test/r${i}`));
    send(outbox, ...many);
    for (const message of many) await tried(message, 1);
    expect(batchIds(received).map((ids) => ids.length)).toEqual([FEDERATION_BATCH_MAX_MESSAGES, 6]);

    received.length = 0;
    // Three 400 KB messages to one recipient: two fit in a megabyte; the third waits for the next
    // round rather than leave in a batch beside its pair's earlier ones.
    const large = [1, 2, 3].map((i) => mail('b.test/bob', { body: String(i).repeat(400_000) }));
    const other = mail('b.test/bea', { body: 'x'.repeat(400_000) });
    send(outbox, ...large, other);
    for (const message of [...large, other]) await tried(message, 1);
    const ids = batchIds(received);
    expect(ids.slice(0, 2).sort()).toEqual([[large[0]!.message_id, large[1]!.message_id], [other.message_id]].sort());
    expect(ids[2]).toEqual([large[2]!.message_id]);
    for (const batch of received) expect(Buffer.byteLength(JSON.stringify(batch.body))).toBeLessThan(1024 * 1024 + 4096);
  });

  it("backs a deferred message off from retryBaseMs, doubling to retryMaxMs, while the node's other mail goes on", async () => {
    const stuck = mail('b.test/bob');
    const { server, received } = await receivingNode(['b.test'], (r) => ({
      status: 200,
      body: {
        results: r.body.messages!.map((m) =>
          m.message_id === stuck.message_id
            ? { message_id: m.message_id, status: 'deferred', detail: 'Mailbox busy' }
            : { message_id: m.message_id, status: 'delivered' },
        ),
      },
    }));
    const outbox = startOutbox();
    send(outbox, stuck);
    for (const [attempt, delay] of [60_000, 120_000, 240_000, 240_000].entries()) {
      if (attempt > 0) whenDue(outbox, stuck);
      const before = now();
      const settled = await tried(stuck, attempt + 1);
      expect(settled).toMatchObject({ status: 'queued', last_error: `${server.url} deferred it: Mailbox busy` });
      const next = at(settled.next_attempt_at);
      expect(next).toBeGreaterThanOrEqual(before + JITTER * delay - 1);
      expect(next).toBeLessThanOrEqual(now() + delay);
      // Only this message waits: a new one to the same node leaves at once.
      const fresh = mail('b.test/bea');
      send(outbox, fresh);
      expect((await tried(fresh, 1)).status).toBe('delivered');
    }
    expect(received).toHaveLength(8);
  });

  it('waits as long as a deferral names, with the whole queue for that node, then sends the queue in order', async () => {
    let pause = true;
    const { received } = await receivingNode(['b.test', 'c.test'], (r) =>
      pause
        ? {
            status: 200,
            body: {
              results: r.body.messages!.map((m) => ({
                message_id: m.message_id,
                status: 'deferred',
                code: 'SVC_ERR_RATE_LIMITED',
                detail: 'budget spent',
                retry_after: 30,
              })),
            },
          }
        : allDelivered(r),
    );
    const outbox = startOutbox();
    const first = mail('b.test/bob');
    send(outbox, first);
    const deferred = await tried(first, 1);
    const until = at(deferred.next_attempt_at);
    expect(until - now()).toBeGreaterThan(30_000 - SLACK_MS);
    expect(until - now()).toBeLessThanOrEqual(30_000);
    // Queued since, to either domain of that node: it waits with the rest, no request is made.
    const later = [mail('c.test/cy'), mail('b.test/bea')];
    send(outbox, ...later);
    for (const message of later) await vi.waitFor(() => expect(row(message).next_attempt_at).toBe(deferred.next_attempt_at), WAIT);
    expect(received).toHaveLength(1);
    pause = false;
    node.advance(until - now());
    outbox.nudge();
    for (const message of [first, ...later]) expect((await tried(message, message === first ? 2 : 1)).status).toBe('delivered');
    expect(batchIds(received).at(-1)).toEqual([first, ...later].map((m) => m.message_id));
  });

  it("pauses a failing node's whole queue, from half retryBaseMs doubling to peerRetryMaxMs; its Retry-After wins; a success starts over", async () => {
    const answers: Answer[] = [
      { status: 503 },
      { status: 502 },
      { status: 500 },
      { status: 503 },
      { status: 429, headers: { 'retry-after': '7' } },
      { status: 0 },
      { status: 503 },
    ];
    const { server, received } = await receivingNode(['b.test'], (r) => {
      const next = answers[received.length - 1]!;
      return next.status === 0 ? allDelivered(r) : next;
    });
    const outbox = startOutbox();
    const message = mail('b.test/bob');
    send(outbox, message);
    const pauses: [number, number][] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      if (attempt > 1) whenDue(outbox, message);
      const settled = await tried(message, attempt);
      pauses.push([at(settled.next_attempt_at) - now(), Number(/answered (\d+)/.exec(settled.last_error ?? '')?.[1])]);
    }
    expect(pauses.map(([, status]) => status)).toEqual([503, 502, 500, 503, 429]);
    for (const [i, bound] of [30_000, 60_000, 120_000, 120_000].entries()) {
      expect(pauses[i]![0]).toBeGreaterThan(JITTER * bound - SLACK_MS);
      expect(pauses[i]![0]).toBeLessThanOrEqual(bound);
    }
    expect(pauses[4]![0]).toBeGreaterThan(7_000 - SLACK_MS);
    expect(pauses[4]![0]).toBeLessThanOrEqual(7_000);
    expect(row(message).last_error).toBe(`${server.url} answered 429`);
    whenDue(outbox, message);
    expect((await tried(message, 6)).status).toBe('delivered');
    // The next failure is a first one again.
    const next = mail('b.test/bob');
    send(outbox, next);
    const paused = await tried(next, 1);
    expect(at(paused.next_attempt_at) - now()).toBeLessThanOrEqual(30_000);
    expect(at(paused.next_attempt_at) - now()).toBeGreaterThan(JITTER * 30_000 - SLACK_MS);
  });

  it('pauses the queue of a node it cannot reach, saying so in our words', async () => {
    const { server } = await receivingNode(['b.test']);
    await server.close();
    const outbox = startOutbox();
    const message = mail('b.test/bob');
    send(outbox, message);
    const settled = await tried(message, 1);
    expect(settled.status).toBe('queued');
    expect(settled.last_error).toMatch(new RegExp(`^could not reach ${server.url.replace(/\./g, '\\.')} \\(`));
    expect(at(settled.next_attempt_at) - now()).toBeLessThanOrEqual(30_000);
  });

  it("bounces a refused message into its sender's inbox with the receiving node's cleaned words, and wakes the sender", async () => {
    const refused = mail('b.test/bob', { subject: 'Quarterly numbers' });
    const delivered = mail('b.test/bea');
    const { server } = await receivingNode(['b.test'], () => ({
      status: 200,
      body: {
        results: [
          {
            message_id: refused.message_id,
            status: 'refused',
            code: 'SVC_ERR_RECIPIENT_CONTACTS_ONLY',
            detail: 'Refused: b.test/bob\u0007 only accepts\n\n messages   from contacts\u200b',
          },
          { message_id: delivered.message_id, status: 'duplicate' },
        ],
      },
    }));
    let woken = 0;
    const off = node.ctx.bus.subscribe(identityTopic(ann), () => woken++);
    const outbox = startOutbox();
    send(outbox, refused, delivered);
    const reason = `the node for b.test (${server.url}) refused it: b.test/bob only accepts messages from contacts`;
    expect(await tried(refused, 1)).toMatchObject({ status: 'bounced', last_error: reason });
    expect(row(delivered).status).toBe('delivered');
    off();
    expect(woken).toBe(1);
    const [bounce, ...more] = bounces();
    expect(more).toEqual([]);
    expect(bounce).toMatchObject({ subject: 'Undeliverable: Quarterly numbers', from_agent_id: null });
    expect(bounce!.body).toContain('Your message to b.test/bob could not be delivered.');
    expect(bounce!.body).toContain(`Reason: ${reason}`);
    expect(bounce!.body).toContain(`Message id: ${refused.message_id}`);
  });

  it('tries the whole batch again when the answer is not a result for each message sent, in order', async () => {
    const messages = [mail('b.test/bob'), mail('b.test/bea')];
    let answer = 0;
    const { server } = await receivingNode(['b.test'], (r) => {
      answer += 1;
      if (answer === 1) return { status: 200, body: { results: [{ message_id: messages[0]!.message_id, status: 'delivered' }] } };
      if (answer === 2)
        return { status: 200, body: { results: [...r.body.messages!].reverse().map((m) => ({ message_id: m.message_id, status: 'delivered' })) } };
      if (answer === 3) return { status: 200, body: '<html>ok</html>' };
      return allDelivered(r);
    });
    const outbox = startOutbox();
    send(outbox, ...messages);
    for (let attempt = 1; attempt <= 3; attempt++) {
      if (attempt > 1) whenDue(outbox, messages[0]!);
      for (const message of messages) {
        expect(await tried(message, attempt)).toMatchObject({
          status: 'queued',
          last_error: `${server.url} gave no usable answer (not a result for each message sent)`,
        });
      }
    }
    whenDue(outbox, messages[0]!);
    for (const message of messages) expect((await tried(message, 4)).status).toBe('delivered');
  });

  it('gives up on a message still undelivered after giveUpAfterMs: it bounces with the last error', async () => {
    const outbox = startOutbox();
    const message = mail('nowhere.test/bob', { subject: '' });
    send(outbox, message);
    const first = await tried(message, 1);
    expect(first).toMatchObject({ status: 'queued', last_error: 'no node is known for nowhere.test (no peer entry and no node= in its _svcid DNS record)' });
    node.advance(OPTIONS.giveUpAfterMs);
    outbox.nudge();
    const settled = await tried(message, 2);
    expect(settled.status).toBe('bounced');
    expect(settled.last_error).toBe(
      'gave up after 2 attempts over 1 h; the last error was: no node is known for nowhere.test (no peer entry and no node= in its _svcid DNS record)',
    );
    expect(bounces().map((b) => b.subject)).toEqual(['Undeliverable: (no subject)']);
  });

  it("never lets a pair's later message overtake an earlier one that waits longer", async () => {
    const first = mail('b.test/bob', { body: 'first' });
    const second = mail('b.test/bob', { body: 'second' });
    const other = mail('b.test/bea', { body: 'other' });
    let rounds = 0;
    const { received } = await receivingNode(['b.test'], (r) => {
      rounds += 1;
      const ids = r.body.messages!.map((m) => m.message_id);
      // As a receiver does: once a pair's message is deferred, its later ones in the batch are too.
      const results = ids.map((id) => ({ message_id: id, status: 'delivered', detail: undefined as string | undefined }));
      if (rounds === 1)
        for (const result of results.filter((x) => x.message_id !== other.message_id)) Object.assign(result, { status: 'deferred', detail: 'busy' });
      return { status: 200, body: { results } };
    });
    const outbox = startOutbox();
    // The first backs off longest (no jitter off), the second shortest (a fifth off).
    const random = vi.spyOn(Math, 'random').mockReturnValueOnce(1).mockReturnValueOnce(0);
    send(outbox, first, second, other);
    await tried(first, 1);
    random.mockRestore();
    expect(row(other).status).toBe('delivered');
    expect(at(row(second).next_attempt_at)).toBeLessThan(at(row(first).next_attempt_at));
    // The second is due, the first is not: nothing leaves.
    node.advance(at(row(second).next_attempt_at) - now());
    await round(outbox);
    expect(received).toHaveLength(1);
    expect(row(second).attempts).toBe(1);
    // Once the first is due, both leave, in their order.
    whenDue(outbox, first);
    for (const message of [first, second]) expect((await tried(message, 2)).status).toBe('delivered');
    expect(batchIds(received)[1]).toEqual([first.message_id, second.message_id]);
  });

  it('sends one message per request to a node without the batch route (404 or 405), and asks it for batches again ten minutes later', async () => {
    let noBatch: 404 | 405 = 404;
    const { received } = await receivingNode(['b.test'], (r) =>
      r.route === 'batch'
        ? { status: noBatch, body: { detail: 'Route not found' } }
        : { status: 200, body: { message_id: r.body.message_id, status: 'delivered' } },
    );
    const outbox = startOutbox();
    const routes = () => received.map((r) => r.route);
    const pair = [mail('b.test/bob'), mail('b.test/bea')];
    send(outbox, ...pair);
    for (const message of pair) expect((await tried(message, 1)).status).toBe('delivered');
    expect(routes()).toEqual(['batch', 'single', 'single']);
    expect(received.slice(1).map((r) => r.body)).toEqual(pair);
    // Within the ten minutes, singles only.
    node.advance(9 * 60_000);
    const soon = mail('b.test/bob');
    send(outbox, soon);
    await tried(soon, 1);
    expect(routes()).toEqual(['batch', 'single', 'single', 'single']);
    // After them, the node may have been upgraded: it is asked again (and a 405 counts the same).
    node.advance(60_000 + 1);
    noBatch = 405;
    const later = mail('b.test/bob');
    send(outbox, later);
    expect((await tried(later, 1)).status).toBe('delivered');
    expect(routes()).toEqual(['batch', 'single', 'single', 'single', 'batch', 'single']);
  });

  it('on the single route, bounces a refusal with its detail (only a JSON one), and holds the rest back when the node fails', async () => {
    const [unknown, html, failing, after] = [mail('b.test/nobody'), mail('b.test/bob'), mail('b.test/bea'), mail('b.test/cy')];
    const { server, received } = await receivingNode(['b.test'], (r) => {
      if (r.route === 'batch') return { status: 404 };
      if (r.body.message_id === unknown.message_id)
        return { status: 404, body: { detail: 'Refused: b.test/nobody does not exist here', code: 'SVC_ERR_RECIPIENT_NOT_FOUND' } };
      if (r.body.message_id === html.message_id) return { status: 403, body: '<html>db_password=hunter2</html>' };
      return { status: 503 };
    });
    const outbox = startOutbox();
    send(outbox, unknown, html, failing, after);
    expect(await tried(unknown, 1)).toMatchObject({
      status: 'bounced',
      last_error: `the node for b.test (${server.url}) refused it: b.test/nobody does not exist here`,
    });
    expect(await tried(html, 1)).toMatchObject({ status: 'bounced', last_error: `the node for b.test (${server.url}) refused it: it answered 403` });
    expect(await tried(failing, 1)).toMatchObject({ status: 'queued', last_error: `${server.url} answered 503` });
    expect(await tried(after, 1)).toMatchObject({ status: 'queued', last_error: `${server.url} answered 503` });
    // The node failed on the third: the fourth was not sent, and waits as long.
    expect(received.filter((r) => r.route === 'single').map((r) => r.body.message_id)).toEqual([unknown, html, failing].map((m) => m.message_id));
    expect(row(after).next_attempt_at).toBe(row(failing).next_attempt_at);
    expect(
      bounces()
        .map((b) => b.body)
        .join('\n'),
    ).not.toContain('hunter2');
  });

  it("counts a message delivered on the single route only when the node's answer is its result for that message", async () => {
    const message = mail('b.test/bob');
    const answers: Answer[] = [
      { status: 200, body: '<html>Welcome</html>' },
      { status: 200, body: {} },
      { status: 204 },
      { status: 200, body: { message_id: randomUUID(), status: 'delivered' } },
      { status: 200, body: { message_id: message.message_id, status: 'duplicate' } },
    ];
    let singles = 0;
    const { server } = await receivingNode(['b.test'], (r) => (r.route === 'batch' ? { status: 404 } : answers[singles++]!));
    const outbox = startOutbox();
    send(outbox, message);
    for (let attempt = 1; attempt <= 4; attempt++) {
      if (attempt > 1) whenDue(outbox, message);
      expect(await tried(message, attempt)).toMatchObject({
        status: 'queued',
        last_error: `${server.url} gave no usable answer (not a result for the message sent)`,
      });
    }
    whenDue(outbox, message);
    expect(await tried(message, 5)).toMatchObject({ status: 'delivered', delivered_to: server.url });
  });

  it('sends each message of a batch the node refused whole (413) on its own, and bounces a lone message it refuses', async () => {
    const { server, received } = await receivingNode(['b.test'], (r) =>
      r.route === 'batch'
        ? { status: 413, body: { detail: 'Request body is too large' } }
        : { status: 200, body: { message_id: r.body.message_id, status: 'delivered' } },
    );
    const outbox = startOutbox();
    const pair = [mail('b.test/bob'), mail('b.test/bea')];
    send(outbox, ...pair);
    for (const message of pair) expect((await tried(message, 1)).status).toBe('delivered');
    expect(received.map((r) => r.route)).toEqual(['batch', 'single', 'single']);
    const alone = mail('b.test/bob');
    send(outbox, alone);
    expect(await tried(alone, 1)).toMatchObject({ status: 'bounced', last_error: `the node for b.test (${server.url}) refused it: Request body is too large` });
  });

  it('sends mail again without its thread_id to a node that refuses the field (a 422 naming it), and bounces any other 422', async () => {
    const unrecognized = (key: string) => ({
      status: 422,
      body: { detail: [{ loc: ['body'], msg: `Unrecognized key: "${key}"`, type: 'unrecognized_keys' }], code: 'SVC_ERR_VALIDATION' },
    });
    const badSubject = mail('b.test/bea', { thread_id: randomUUID() });
    const { server, received } = await receivingNode(['b.test'], (r) => {
      if (r.route === 'batch') return { status: 404 };
      if (r.body.message_id === badSubject.message_id) return unrecognized('subject');
      if (r.body.thread_id !== undefined || r.body.subject === 'no thread') return unrecognized('thread_id');
      return { status: 200, body: { message_id: r.body.message_id, status: 'delivered' } };
    });
    const outbox = startOutbox();
    const threaded = mail('b.test/bob', { thread_id: randomUUID() });
    send(outbox, threaded);
    expect((await tried(threaded, 1)).status).toBe('delivered');
    const singles = received.filter((r) => r.route === 'single').map((r) => r.body);
    const { thread_id: _thread, ...withoutThread } = threaded;
    expect(singles).toEqual([threaded, withoutThread]);
    // Without a thread to leave out, or naming another field, the 422 is a refusal: sent once, bounced.
    const unthreaded = mail('b.test/bob', { subject: 'no thread' });
    send(outbox, unthreaded, badSubject);
    expect(await tried(unthreaded, 1)).toMatchObject({
      status: 'bounced',
      last_error: `the node for b.test (${server.url}) refused it: body: Unrecognized key: "thread_id"`,
    });
    expect(await tried(badSubject, 1)).toMatchObject({
      status: 'bounced',
      last_error: `the node for b.test (${server.url}) refused it: body: Unrecognized key: "subject"`,
    });
    expect(received.filter((r) => r.route === 'single')).toHaveLength(4);
  });

  it('loses no message whose delivery the process died in: it is leased, not taken, and the node that restarts sends it again', async () => {
    const stored = new Set<string>();
    let hang = true;
    const { received } = await receivingNode(['b.test'], async (r) => {
      const ids = r.body.messages!.map((m) => m.message_id);
      if (hang) {
        // The receiver stores them, and the sender's process dies before the answer comes.
        for (const id of ids) stored.add(id);
        hang = false;
        await new Promise(() => {});
      }
      return { status: 200, body: { results: ids.map((id) => ({ message_id: id, status: stored.has(id) ? 'duplicate' : 'delivered' })) } };
    });
    const dying = startOutbox({ deliveryTimeoutMs: 60_000 });
    const message = mail('b.test/bob');
    send(dying, message);
    await vi.waitFor(() => expect(received).toHaveLength(1), WAIT);
    const leased = row(message);
    expect(leased).toMatchObject({ status: 'queued', attempts: 0 });
    expect(at(leased.next_attempt_at) - now()).toBeGreaterThan(65_000 - SLACK_MS);
    expect(at(leased.next_attempt_at) - now()).toBeLessThanOrEqual(65_000);
    // The node restarts (a new worker on the same database): within the lease nothing is sent twice.
    const restarted = startOutbox();
    await round(restarted);
    expect(received).toHaveLength(1);
    // Once the lease is over it is due again, and the receiver acknowledges the copy it stored.
    whenDue(restarted, message);
    expect(await tried(message, 1)).toMatchObject({ status: 'delivered', last_error: null });
    expect(received).toHaveLength(2);
  });

  it('never sends a message again while its delivery is in flight, however long one message per request to an older node takes in all', async () => {
    const first = mail('b.test/bob');
    const second = mail('b.test/bea');
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const singlesOf = (message: FederatedMail) => received.filter((r) => r.route === 'single' && r.body.message_id === message.message_id).length;
    const { received } = await receivingNode(['b.test'], async (r) => {
      if (r.route === 'batch') return { status: 404 };
      if (r.body.message_id === first.message_id && singlesOf(first) === 1) await held;
      return { status: 200, body: { message_id: r.body.message_id, status: 'delivered' } };
    });
    const outbox = startOutbox({ deliveryTimeoutMs: 60_000 });
    send(outbox, first, second);
    await vi.waitFor(() => expect(singlesOf(first)).toBe(1), WAIT);
    // Each request within its own timeout, but the delivery's requests together longer than one:
    // its lease is over while it still runs.
    node.advance(60_000 + 5_000 + 1);
    outbox.nudge();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([singlesOf(first), singlesOf(second)]).toEqual([1, 0]);
    release();
    for (const message of [first, second]) expect((await tried(message, 1)).status).toBe('delivered');
    expect(received.filter((r) => r.route === 'single').map((r) => r.body.message_id)).toEqual([first.message_id, second.message_id]);
  });

  it("tries a domain's waiting mail at once when its node is changed, whatever the old node said about waiting", async () => {
    const { server } = await receivingNode(['b.test']);
    await server.close();
    const outbox = startOutbox();
    const message = mail('b.test/bob');
    send(outbox, message);
    expect((await tried(message, 1)).status).toBe('queued');
    const { received } = await receivingNode(['b.test']);
    outbox.retryNow('b.test');
    expect((await tried(message, 2)).status).toBe('delivered');
    expect(received).toHaveLength(1);
  });

  it('wakes for mail that fell due while a round was under way, with nothing else to wake it', async () => {
    // The clock moves on while the worker asks DNS where a domain's node is: mail that was not due
    // when the round began is due by the time it ends, and the worker must not sleep past it.
    let jump = 0;
    const table = staticDnsResolver();
    const slowDns: DnsResolver = {
      ...table,
      resolveTxt: (name, options) => {
        node.advance(jump);
        jump = 0;
        return table.resolveTxt(name, options);
      },
    };
    node.close();
    node = await startUnitNode({}, slowDns);
    ann = node.services.identities.create(node.services.projects.create({ slug: 'senders' }).project_id, { alias: 'ann' }).agent_id;
    const { received } = await receivingNode(['later.test']);
    const outbox = startOutbox();
    const later = mail('later.test/bob');
    outbox.enqueue(ann, 'later.test', later);
    scheduleRetry(node.ctx.db, row(later).id, 0, 'not yet', new Date(now() + 60_000).toISOString());
    jump = 120_000;
    // Due now, and no node known for it: its lookup is what takes the minute.
    send(outbox, mail('nowhere.test/someone'));
    await vi.waitFor(() => expect(row(later).status).toBe('delivered'), WAIT);
    expect(batchIds(received)).toEqual([[later.message_id]]);
  });

  it('sends nothing of mail it is to seal when the recipient has no key: it bounces, naming plaintext as the way to reach it', async () => {
    // A node that knows no such address (as one older than encryption, or one without bob, answers).
    const received: string[] = [];
    const server = await servers.start(async (request, response) => {
      if (request.method === 'POST') received.push(JSON.stringify(await bodyOf(request)));
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found"}');
    });
    node.services.directory.set('b.test', server.url);
    const outbox = startOutbox();
    const message = mail('b.test/bob', { subject: 'Sealed', body: 'never in the clear' });
    outbox.enqueue(ann, 'b.test', message, { sealed: true });
    outbox.nudge();
    await vi.waitFor(() => expect(row(message).status).toBe('bounced'), WAIT);
    expect(row(message).last_error).toMatch(/not sent: it is end-to-end encrypted.*legacy_plaintext_v1/);
    // Its node was asked for the recipient's key, and was sent nothing.
    expect(received).toEqual([]);
    expect(server.requests).toEqual(['GET /v1/namespaces/b.test/addresses/bob']);
    expect(bounces().map((b) => b.body)).toEqual([expect.stringMatching(/end-to-end encrypted/)]);
  });

  /** Ann's client's own envelope to `to` (only its time matters here), fresh for its receiver until `until`. */
  const clientSealed = (to: string, until: number): FederatedMail => ({
    ...mail(to, { subject: '', body: '' }),
    signature: '',
    signed_payload: '',
    content_mode: 'encrypted_v2',
    message_version: 2,
    encrypted_envelope: { expires_at: new Date(until).toISOString().replace(/\.\d{3}Z$/, 'Z') } as unknown as FederatedMail['encrypted_envelope'],
  });

  it("sends an envelope its sender's client sealed exactly as queued, asking no node for a key", async () => {
    const { server, received } = await receivingNode(['b.test']);
    const outbox = startOutbox();
    const message = clientSealed('b.test/bob', now() + 4 * 60_000);
    outbox.enqueue(ann, 'b.test', message, { sealedByClient: true });
    outbox.nudge();
    await vi.waitFor(() => expect(row(message).status).toBe('delivered'), WAIT);
    expect(received.map((r) => r.body.messages)).toEqual([[message]]);
    expect(server.requests).toEqual(['POST /v1/federation/messages/batch']);
    expect(row(message)).toMatchObject({ content_mode: 'encrypted_v2', sealed_by_client: 1 });
  });

  it('bounces a client-sealed envelope rather than send it stale, or try it again once it would be', async () => {
    const { received } = await receivingNode(['b.test'], () => ({ status: 503 }));
    const outbox = startOutbox();
    const stale = clientSealed('b.test/bob', now() - 1_000);
    outbox.enqueue(ann, 'b.test', stale, { sealedByClient: true });
    outbox.nudge();
    await vi.waitFor(() => expect(row(stale).status).toBe('bounced'), WAIT);
    expect(row(stale).last_error).toMatch(/^it was not sent: it was sealed by your client more than 5 minutes ago; send it again/);
    expect(received).toEqual([]);
    // Fresh for 20 s more: its node fails, and the next try (its pause, at least 24 s away) would come too late.
    const soon = clientSealed('b.test/bob', now() + 20_000);
    outbox.enqueue(ann, 'b.test', soon, { sealedByClient: true });
    outbox.nudge();
    await vi.waitFor(() => expect(row(soon).status).toBe('bounced'), WAIT);
    expect(row(soon)).toMatchObject({
      attempts: 1,
      last_error: expect.stringMatching(/sealed by your client more than 5 minutes ago; send it again.*the last error was/),
    });
    expect(received).toHaveLength(1);
    expect(bounces().map((b) => b.body)).toEqual([expect.stringMatching(/send it again/), expect.stringMatching(/send it again/)]);
  });

  it('keeps mail it is to seal queued while no node is known to ask for the key, saying why', async () => {
    const outbox = startOutbox();
    const message = mail('nowhere.test/someone');
    outbox.enqueue(ann, 'nowhere.test', message, { sealed: true });
    outbox.nudge();
    await vi.waitFor(() => expect(row(message).attempts).toBeGreaterThanOrEqual(1), WAIT);
    expect(row(message)).toMatchObject({ status: 'queued', last_error: expect.stringMatching(/no node is known for nowhere\.test/) });
  });
});
