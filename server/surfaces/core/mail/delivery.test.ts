/**
 * The mail-row writers that need no signing key, on a real encrypted database: mail arriving from
 * another node (stored once; the same message again is a duplicate, another under its id refused)
 * and a bounce in its sender's inbox. Sending (signed in custody) is covered by test/api/mail*.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FEDERATION_VERSION, type FederatedMail } from '../../../../contract/core/federation.ts';
import { inboxRows } from './store/messages.ts';
import { arrivedBefore, storeArrivedMail, storeBounce } from './delivery.ts';
import { addIdentity, useStoreDatabase } from '../../../../test/support/store-database.ts';

const db = useStoreDatabase();
const T = '2026-03-01T10:00:00.000Z';
const sender = { nodeUrl: 'https://a.test', namespaceTrust: 'verified' as const };

function arriving(fields: Partial<FederatedMail> = {}): FederatedMail {
  return {
    v: FEDERATION_VERSION,
    kind: 'mail',
    message_id: randomUUID(),
    from: 'a.test/carol',
    from_did: 'did:key:zCarol',
    from_stable_id: null,
    to: 'B.test/bob',
    subject: 'hello',
    body: 'from afar',
    priority: 'urgent',
    timestamp: T,
    signature: 'sig',
    signed_payload: 'payload',
    ...fields,
  };
}

const inbox = (agentId: string) => inboxRows(db(), agentId, { folder: null, unreadOnly: false, limit: 10 });

describe('mail arriving from another node', () => {
  it('is stored for its recipient as the sender signed it, with where it came from', () => {
    const bob = { ...addIdentity(db(), { alias: 'bob' }), address: 'b.test/bob' };
    const mail = arriving();
    expect(arrivedBefore(db(), mail)).toBe(false);
    expect(storeArrivedMail(db(), mail, bob, sender, T)).toBe(true);
    expect(inbox(bob.agent_id)).toEqual([
      expect.objectContaining({
        message_id: mail.message_id,
        from_agent_id: null,
        from_alias: 'carol',
        from_address: 'a.test/carol',
        to_text: 'B.test/bob',
        to_address: 'b.test/bob',
        to_did: bob.did_key,
        priority: 'urgent',
        origin: 'remote',
        from_node: 'https://a.test',
        from_namespace_trust: 'verified',
        created_at: T,
      }),
    ]);
  });

  it('is a duplicate when the same key sends the same id again, and refused under another key', () => {
    const bob = { ...addIdentity(db(), { alias: 'bob' }), address: 'b.test/bob' };
    const mail = arriving();
    storeArrivedMail(db(), mail, bob, sender, T);
    expect(arrivedBefore(db(), mail)).toBe(true);
    expect(storeArrivedMail(db(), mail, bob, sender, T)).toBe(false);
    expect(() => arrivedBefore(db(), { ...mail, from_did: 'did:key:zMallory' })).toThrow(
      expect.objectContaining({ statusCode: 409, code: 'SVC_ERR_MESSAGE_ID_TAKEN' }),
    );
    expect(inbox(bob.agent_id)).toHaveLength(1);
  });
});

describe('a bounce', () => {
  it('lands in the sender inbox, from postmaster, unsigned', () => {
    const ann = addIdentity(db(), { alias: 'ann', did_aw: `did:svc:${randomUUID()}` });
    storeBounce(db(), ann, { from: 'a.test/ann', subject: 'Undeliverable: hi', body: 'Reason: gone', at: T });
    expect(inbox(ann.agent_id)).toEqual([
      expect.objectContaining({
        from_agent_id: null,
        from_alias: 'postmaster',
        from_address: null,
        from_did: '',
        to_text: 'a.test/ann',
        to_alias: 'ann',
        to_address: 'a.test/ann',
        to_did: ann.did_key,
        to_stable_id: ann.did_aw,
        subject: 'Undeliverable: hi',
        body: 'Reason: gone',
        signature: '',
        origin: 'bounce',
        created_at: T,
      }),
    ]);
  });
});
