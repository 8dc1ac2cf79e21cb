/**
 * Chat messages sealed before their send's transaction, in the seal worker (commands/encryption.ts,
 * sealChatAhead): one envelope for every other participant of a group, signed there with the key
 * custody lent it, taken when nothing it was made from changed, and made afresh when something
 * did (a participant's key rotated, the sender's signing key rotated).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateSessionBody, HistoryQuery, SendMessageBody } from '../../../../contract/core/chat.ts';
import { parseEnvelope, type E2eeEnvelope } from '../../../crypto/e2ee/envelope.ts';
import { sealPool } from '../../../crypto/e2ee/seal-pool.ts';
import { startUnitNode, type UnitNode } from '../../../../test/support/unit-node.ts';
import { untilSealWorkerSeals } from '../../../../test/support/seal-worker.ts';
import { findIdentity } from '../identities/store/agents.ts';

let node: UnitNode;
let ann: string;
let bob: string;
let cy: string;
let session: string;

const say = (body: string) => node.services.chat.sendFindingKeys(ann, session, SendMessageBody.parse({ body }));
const stored = (messageId: string): E2eeEnvelope =>
  parseEnvelope(JSON.parse(node.ctx.db.prepare('SELECT encrypted_envelope FROM chat_messages WHERE message_id = ?').pluck().get(messageId) as string));
const keyId = (agentId: string): string | undefined => node.services.encryptionKeys.current(findIdentity(node.ctx.db, agentId)!)?.encryption_key_id;
const lastRead = (reader: string) => node.services.chat.history(reader, session, HistoryQuery.parse({})).messages.at(-1);

beforeAll(async () => {
  node = await startUnitNode();
  const project = node.services.projects.create({ slug: 'talkers' });
  ann = node.services.identities.create(project.project_id, { name: 'ann', lifetime: 'persistent' }).agent_id;
  bob = node.services.identities.create(project.project_id, { alias: 'bob' }).agent_id;
  cy = node.services.identities.create(project.project_id, { alias: 'cy' }).agent_id;
  session = (await node.services.chat.createOrSendFindingKeys(ann, CreateSessionBody.parse({ to_aliases: ['bob', 'cy'], message: 'hello both' }))).session_id;
  await untilSealWorkerSeals((attempt) => say(`warm-up ${attempt}`));
});
afterAll(() => node.close());

describe('chat sealed ahead', () => {
  it('stores the group envelope made in the worker, which every participant reads', async () => {
    const before = sealPool.stats.prepared;
    const { message_id } = await say('made ahead');
    expect(sealPool.stats.prepared).toBe(before + 1);
    expect(
      stored(message_id)
        .recipients.map((r) => r.encryption_key_id)
        .sort(),
    ).toEqual([keyId(bob), keyId(cy)].sort());
    for (const reader of [bob, cy, ann]) {
      expect(lastRead(reader)).toMatchObject({ message_id, body: 'made ahead', end_to_end: true, signature_status: 'verified' });
    }
  });

  it('seals afresh when a participant’s key rotated while it was sealed ahead', async () => {
    const sending = say('rotated meanwhile');
    node.services.encryptionKeys.rotate(cy);
    const { message_id } = await sending;
    expect(stored(message_id).recipients.map((r) => r.encryption_key_id)).toContain(keyId(cy));
    expect(lastRead(cy)).toMatchObject({ message_id, body: 'rotated meanwhile', signature_status: 'verified' });
  });

  it('signs afresh when the sender’s signing key rotated while it was sealed ahead', async () => {
    const sending = say('signed anew');
    const rotated = node.services.lifecycle.rotate(ann);
    const { message_id } = await sending;
    expect(stored(message_id).from.did).toBe(rotated.new_did);
    expect(lastRead(bob)).toMatchObject({ message_id, from_did: rotated.new_did, body: 'signed anew', signature_status: 'verified' });
  });
});
