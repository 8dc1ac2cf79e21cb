/**
 * Mail sealed before its send's transaction, in the seal worker (messaging/end-to-end.ts,
 * sealAhead), signed there with the sender's key custody lent it, with the plaintext signature
 * beside it: the envelope and signature stored are the ones made ahead when nothing they were made
 * from changed, and made afresh when something did (the recipient's encryption key or the
 * sender's signing key, rotated in between).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxQuery, SendMailBody } from '../../../../contract/core/mail.ts';
import { parseEnvelope, type E2eeEnvelope } from '../../../crypto/e2ee/envelope.ts';
import { sealPool } from '../../../crypto/e2ee/seal-pool.ts';
import { startUnitNode, type UnitNode } from '../../../../test/support/unit-node.ts';
import { untilSealWorkerSeals } from '../../../../test/support/seal-worker.ts';
import { findIdentity } from '../identities/store/agents.ts';

let node: UnitNode;
let ann: string;
let bob: string;
let cara: string;

const send = (subject: string, from = ann, to = 'bob') =>
  node.services.mail.sendFindingKeys(from, SendMailBody.parse({ to_alias: to, subject, body: `the body of ${subject}` }));
const stored = (messageId: string): E2eeEnvelope =>
  parseEnvelope(JSON.parse(node.ctx.db.prepare('SELECT encrypted_envelope FROM messages WHERE message_id = ?').pluck().get(messageId) as string));
const currentKeyId = (agentId: string): string | undefined => node.services.encryptionKeys.current(findIdentity(node.ctx.db, agentId)!)?.encryption_key_id;

beforeAll(async () => {
  node = await startUnitNode();
  const project = node.services.projects.create({ slug: 'mailers' });
  ann = node.services.identities.create(project.project_id, { alias: 'ann' }).agent_id;
  bob = node.services.identities.create(project.project_id, { alias: 'bob' }).agent_id;
  cara = node.services.identities.create(project.project_id, { name: 'cara', lifetime: 'persistent' }).agent_id;
  await untilSealWorkerSeals((attempt) => send(`warm-up ${attempt}`));
});
afterAll(() => node.close());

describe('mail sealed ahead', () => {
  it('stores the envelope made in the worker, which its recipient reads', async () => {
    const before = sealPool.stats.prepared;
    const { message_id } = await send('made ahead');
    expect(sealPool.stats.prepared).toBe(before + 1);
    const envelope = stored(message_id);
    expect(envelope.recipients[0]!.encryption_key_id).toBe(currentKeyId(bob));
    const [read] = node.services.mail.inbox(bob, InboxQuery.parse({ limit: 1 })).messages;
    expect(read).toMatchObject({ message_id, subject: 'made ahead', body: 'the body of made ahead', end_to_end: true, signature_status: 'verified' });
  });

  it('seals afresh to the new key when the recipient’s key rotated while it was sealed ahead', async () => {
    const before = sealPool.stats.prepared;
    const oldKey = currentKeyId(bob);
    const sending = send('rotated meanwhile');
    // The send waits for the worker now; the rotation lands before its transaction.
    node.services.encryptionKeys.rotate(bob);
    const { message_id } = await sending;
    expect(sealPool.stats.prepared).toBe(before + 1);
    const newKey = currentKeyId(bob);
    expect(newKey).not.toBe(oldKey);
    expect(stored(message_id).recipients[0]!.encryption_key_id).toBe(newKey);
    const [read] = node.services.mail.inbox(bob, InboxQuery.parse({ limit: 1 })).messages;
    expect(read).toMatchObject({ message_id, body: 'the body of rotated meanwhile', end_to_end: true, signature_status: 'verified' });
  });

  it('signs afresh with the new key when the sender’s signing key rotated while it was sealed ahead', async () => {
    const sending = send('signed anew', cara);
    const rotated = node.services.lifecycle.rotate(cara);
    const { message_id } = await sending;
    expect(stored(message_id).from.did).toBe(rotated.new_did);
    const [read] = node.services.mail.inbox(bob, InboxQuery.parse({ limit: 1 })).messages;
    expect(read).toMatchObject({ message_id, from_did: rotated.new_did, body: 'the body of signed anew', signature_status: 'verified' });
  });

  it('mails no one when the recipient was deleted while it was sealed ahead', async () => {
    const project = node.services.projects.create({ slug: 'leavers' });
    const dan = node.services.identities.create(project.project_id, { alias: 'dan' }).agent_id;
    const eve = node.services.identities.create(project.project_id, { alias: 'eve' }).agent_id;
    await send('warm for eve', eve, 'dan');
    const before = sealPool.stats.prepared;
    const sending = send('too late', eve, 'dan');
    node.services.lifecycle.remove(dan);
    await expect(sending).rejects.toMatchObject({ code: 'SVC_ERR_RECIPIENT_NOT_FOUND' });
    expect(sealPool.stats.prepared).toBe(before + 1);
    expect(node.ctx.db.prepare("SELECT count(*) FROM messages WHERE to_agent_id = ? AND subject = '' AND content_mode = 'encrypted_v2'").pluck().get(dan)).toBe(
      1,
    );
  });
});
