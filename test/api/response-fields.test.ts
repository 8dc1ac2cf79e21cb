/**
 * Only declared fields leave the node, through a real route, a real encrypted database and real
 * HTTP: a send's recorded answer (message_id idempotency, replayed on a repeat) is given a field
 * its schema, SendMailResult, does not declare, as a column added to a row would. Run as in
 * production, the repeat's answer comes without it; run as the test suites run, the repeat fails
 * loudly, so the test that provoked it notices.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startCoreNode, type CoreNode } from '../support/core-node.ts';

const nodes: CoreNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((node) => node.close()));
});

/** A node with a sender and a recipient, and a send of its own under `message_id` whose recorded answer carries a `secret`. */
async function leakyRepeat(validateResponses: boolean): Promise<{ first: unknown; repeat: Response }> {
  const node = await startCoreNode({ validateResponses });
  nodes.push(node);
  const { project_id: projectId } = node.services.projects.create({ slug: 'fields' });
  const sender = node.services.identities.create(projectId, { alias: 'sender' });
  node.services.identities.create(projectId, { alias: 'recipient' });
  const messageId = randomUUID();
  const send = () =>
    fetch(`${node.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sender.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message_id: messageId, to_alias: 'recipient', subject: 'hello', body: 'once' }),
    });
  const first = await send();
  expect(first.status).toBe(200);
  const answer = (await first.json()) as Record<string, unknown>;
  node.ctx.db.prepare(`UPDATE message_sends SET answer = ? WHERE message_id = ?`).run(JSON.stringify({ ...answer, secret: 'sk-never-on-the-wire' }), messageId);
  return { first: answer, repeat: await send() };
}

describe('undeclared fields in an answer', () => {
  it('never reach the wire in production: the repeat answers what the first send did', async () => {
    const { first, repeat } = await leakyRepeat(false);
    expect(repeat.status).toBe(200);
    const text = await repeat.text();
    expect(text).not.toContain('secret');
    expect(JSON.parse(text)).toEqual(first);
  });

  it('fail the request in the test suites, so a test notices', async () => {
    const { repeat } = await leakyRepeat(true);
    expect(repeat.status).toBe(500);
    const text = await repeat.text();
    expect(text).not.toContain('secret');
    expect(JSON.parse(text)).toEqual({ detail: 'Internal error', code: 'SVC_ERR_INTERNAL' });
  });
});
