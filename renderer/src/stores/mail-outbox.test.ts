// @vitest-environment jsdom
/**
 * The outbox: a send shows at once, goes, and leaves; a refused one stays with the node's reason
 * and a retry that is the same send; what has not gone is kept in the window's storage and comes
 * back after a reload as not confirmed. Two windows keep their unsent mail side by side in that
 * storage: each writes its own items and leaves the other's, and what one sent or discarded
 * leaves the other's outbox.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/errors.ts';
import type { SendMailResult } from '../api/mail.ts';
import { MailDrafts, type MailDraft, type UnsentMail } from '../lib/drafts.ts';
import { useMailStore } from './mail.ts';
import { NOT_CONFIRMED, useOutboxStore } from './mail-outbox.ts';
import { useOutboundStore } from './mail-outbound.ts';
import { connectFakeNode, deferred, sendResult, type FakeNode } from './test-client.ts';

const ADA = 'agent-ada';
const BO = 'agent-bo';

const draft: MailDraft = { to: [{ value: 'bo', kind: 'alias', label: null }], subject: 'Lunch', body: 'At noon?', priority: 'normal' };
const kept = () => new MailDrafts(window.localStorage, window.location.origin);

let node: FakeNode;

beforeEach(async () => {
  window.localStorage.clear();
  node = connectFakeNode();
  node.mail.inbox = async () => ({ messages: [], has_more: false, next_before: null });
  node.mail.sent = async () => ({ messages: [], has_more: false, next_before: null });
});
afterEach(() => vi.useRealTimers());

/** Another window of this node writes its unsent mail: the storage changes and this window hears of it. */
function otherWindowKeeps(agentId: string, unsent: UnsentMail[]): void {
  const before = new Map(Object.entries(window.localStorage));
  kept().putUnsent(agentId, unsent);
  for (const [key, newValue] of Object.entries(window.localStorage)) {
    const oldValue = before.get(key) ?? null;
    if (oldValue !== newValue) window.dispatchEvent(new StorageEvent('storage', { key, oldValue, newValue, storageArea: window.localStorage }));
  }
  for (const [key, oldValue] of before) {
    if (window.localStorage.getItem(key) === null) {
      window.dispatchEvent(new StorageEvent('storage', { key, oldValue, newValue: null, storageArea: window.localStorage }));
    }
  }
}

const unsentMail = (id: string, fields: Partial<UnsentMail> = {}): UnsentMail => ({
  id,
  draft,
  error: null,
  messageId: null,
  triedAt: '2026-03-01T10:00:00.000Z',
  ...fields,
});

async function outboxAs(agentId: string) {
  await useMailStore().show(agentId);
  return useOutboxStore();
}

describe('outbox', () => {
  it('shows a send at once, keeps it in storage while it is on its way, and forgets it once the node has it', async () => {
    const outbox = await outboxAs(ADA);
    const answer = deferred<SendMailResult>();
    node.mail.send = () => answer.promise;
    const item = outbox.send(draft);
    expect(outbox.mine.map((i) => i.state)).toEqual(['sending']);
    // The window may close now: the send comes back after a reload.
    expect(
      kept()
        .unsent(ADA)
        .map((u) => u.id),
    ).toEqual([item.id]);

    answer.resolve(sendResult(['bo']));
    await expect.poll(() => outbox.mine[0]?.state).toBe('sent');
    expect(kept().unsent(ADA)).toEqual([]);
    const sent = node.callsTo('mail', 'send')[0];
    expect(sent?.as).toBe(ADA);
    expect(sent?.args[0]).toMatchObject({
      to_aliases: ['bo'],
      to_addresses: [],
      to_dids: [],
      subject: 'Lunch',
      body: 'At noon?',
      priority: 'normal',
      message_id: item.messageId,
    });
  });

  it('leaves the outbox a few seconds after it was sent', async () => {
    vi.useFakeTimers();
    const outbox = await outboxAs(ADA);
    node.mail.send = async () => sendResult(['bo']);
    outbox.send(draft);
    await vi.advanceTimersByTimeAsync(0);
    expect(outbox.items).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(outbox.items).toEqual([]);
  });

  it('keeps a refused send with the node’s reason, and its retry is the same send', async () => {
    const outbox = await outboxAs(ADA);
    node.mail.send = async () => {
      throw new ApiError(422, 'No identity named bo.');
    };
    const item = outbox.send(draft);
    await expect.poll(() => outbox.mine[0]?.state).toBe('failed');
    expect(outbox.mine[0]?.error).toBe('No identity named bo.');
    expect(kept().unsent(ADA)).toMatchObject([{ id: item.id, error: 'No identity named bo.', messageId: item.messageId }]);

    node.mail.send = async () => sendResult(['bo']);
    outbox.retry(item.id);
    await expect.poll(() => outbox.mine[0]?.state).toBe('sent');
    const ids = node.callsTo('mail', 'send').map((c) => (c.args[0] as { message_id?: string }).message_id);
    expect(ids).toEqual([item.messageId, item.messageId]);
    expect(item.messageId).not.toBeNull();
  });

  it('never sends plaintext on its own: a refusal for a recipient without a key waits for the person’s choice, then the same send goes as plaintext', async () => {
    const outbox = await outboxAs(ADA);
    node.mail.send = async () => {
      throw new ApiError(409, 'example.com/bo publishes no valid encryption key, so nothing was sent.', [], 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING');
    };
    const item = outbox.send(draft);
    await expect.poll(() => outbox.mine[0]?.state).toBe('failed');
    expect(outbox.mine[0]).toMatchObject({ code: 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING', plaintext: false });
    // No silent resend: the one send asked for encryption (no content_mode at all).
    expect(node.callsTo('mail', 'send')).toHaveLength(1);
    expect(node.callsTo('mail', 'send')[0]?.args[0]).not.toHaveProperty('content_mode');

    node.mail.send = async () => sendResult(['bo']);
    outbox.sendAsPlaintext(item.id);
    await expect.poll(() => outbox.mine[0]?.state).toBe('sent');
    expect(outbox.mine[0]).toMatchObject({ plaintext: true, code: null });
    const calls = node.callsTo('mail', 'send').map((c) => c.args[0] as { message_id?: string; content_mode?: string });
    expect(calls.map((c) => c.content_mode)).toEqual([undefined, 'legacy_plaintext_v1']);
    // The same send: a lost answer cannot make it two mails.
    expect(calls.map((c) => c.message_id)).toEqual([item.messageId, item.messageId]);
  });

  it('sends as plaintext only a send that was refused, and a new send of the same words encrypts again', async () => {
    const outbox = await outboxAs(ADA);
    const answer = deferred<SendMailResult>();
    node.mail.send = () => answer.promise;
    const sending = outbox.send(draft);
    outbox.sendAsPlaintext(sending.id);
    expect(outbox.mine[0]).toMatchObject({ state: 'sending', plaintext: false });
    answer.resolve(sendResult(['bo']));
    await expect.poll(() => outbox.mine[0]?.state).toBe('sent');

    node.mail.send = async () => sendResult(['bo']);
    outbox.send(draft);
    await expect.poll(() => node.callsTo('mail', 'send').length).toBe(2);
    expect(node.callsTo('mail', 'send').map((c) => (c.args[0] as { content_mode?: string }).content_mode)).toEqual([undefined, undefined]);
  });

  it('gives a send to several recipients no message id of its own (one id names one mail)', async () => {
    const outbox = await outboxAs(ADA);
    node.mail.send = async () => sendResult(['bo', 'cy']);
    const item = outbox.send({ ...draft, to: [...draft.to, { value: 'cy', kind: 'alias', label: null }] });
    expect(item.messageId).toBeNull();
    await expect.poll(() => outbox.mine[0]?.state).toBe('sent');
    expect(node.callsTo('mail', 'send')[0]?.args[0]).not.toHaveProperty('message_id');
  });

  it('brings back a send the window closed on as not confirmed, and its retry is the same send', async () => {
    kept().putUnsent(ADA, [{ id: 'u-1', draft, error: null, messageId: '6f1c1a2e-0000-4000-8000-000000000001', triedAt: '2026-03-01T10:00:00.000Z' }]);
    const outbox = await outboxAs(ADA);
    expect(outbox.mine).toMatchObject([{ id: 'u-1', state: 'failed', error: NOT_CONFIRMED, kept: true }]);

    node.mail.send = async () => sendResult(['bo']);
    outbox.retry('u-1');
    await expect.poll(() => outbox.mine[0]?.state).toBe('sent');
    expect(node.callsTo('mail', 'send')[0]?.args[0]).toMatchObject({ message_id: '6f1c1a2e-0000-4000-8000-000000000001' });
    expect(kept().unsent(ADA)).toEqual([]);
  });

  it('keeps an edited unsent mail as edited, and forgets a discarded one', async () => {
    const outbox = await outboxAs(ADA);
    node.mail.send = async () => {
      throw new ApiError(0, 'The node can’t be reached.');
    };
    const item = outbox.send(draft);
    await expect.poll(() => outbox.mine[0]?.state).toBe('failed');
    outbox.update(item.id, { ...draft, body: 'At one?' });
    expect(kept().unsent(ADA)[0]?.draft.body).toBe('At one?');
    outbox.discard(item.id);
    expect(outbox.items).toEqual([]);
    expect(kept().unsent(ADA)).toEqual([]);
  });

  it('keeps a send going when another identity is shown, and lists it under its own', async () => {
    const outbox = await outboxAs(ADA);
    const answer = deferred<SendMailResult>();
    node.mail.send = () => answer.promise;
    outbox.send(draft);
    await useMailStore().show(BO);
    expect(outbox.mine).toEqual([]);
    answer.resolve(sendResult(['bo']));
    await expect.poll(() => outbox.items[0]?.state).toBe('sent');
    expect(outbox.items[0]?.agentId).toBe(ADA);
  });

  it('says which recipients were queued for another node, and re-reads that folder when it is shown', async () => {
    const outbox = await outboxAs(ADA);
    node.mail.outbound = async () => [];
    await useOutboundStore().load();
    node.mail.send = async () => sendResult(['far.example/cy'], ['far.example/cy']);
    outbox.send({ ...draft, to: [{ value: 'far.example/cy', kind: 'address', label: null }] });
    await expect.poll(() => outbox.mine[0]?.queued).toEqual(['far.example/cy']);
    await expect.poll(() => node.callsTo('mail', 'outbound')).toHaveLength(2);
  });

  it('keeps another window’s unsent mail when it writes its own', async () => {
    const outbox = await outboxAs(ADA);
    otherWindowKeeps(ADA, [unsentMail('theirs')]);
    node.mail.send = async () => {
      throw new ApiError(0, 'The node can’t be reached.');
    };
    const item = outbox.send(draft);
    await expect.poll(() => outbox.mine[0]?.state).toBe('failed');
    expect(
      kept()
        .unsent(ADA)
        .map((u) => u.id),
    ).toEqual(['theirs', item.id]);
    // The other window's mail is its own to show: this one's outbox lists what this one sends.
    expect(outbox.mine.map((i) => i.id)).toEqual([item.id]);
    outbox.discard(item.id);
    expect(
      kept()
        .unsent(ADA)
        .map((u) => u.id),
    ).toEqual(['theirs']);
  });

  it('lets go of an unsent mail another window sent or discarded, and never writes it back', async () => {
    kept().putUnsent(ADA, [unsentMail('u-1'), unsentMail('u-2')]);
    const outbox = await outboxAs(ADA);
    expect(outbox.mine.map((i) => i.id)).toEqual(['u-1', 'u-2']);
    // The other window retried u-1: the node has it now.
    otherWindowKeeps(ADA, [unsentMail('u-2')]);
    expect(outbox.mine.map((i) => i.id)).toEqual(['u-2']);
    outbox.update('u-2', { ...draft, body: 'At one?' });
    expect(kept().unsent(ADA)).toMatchObject([{ id: 'u-2', draft: { body: 'At one?' } }]);
  });

  it('shows an unsent mail as another window edited it', async () => {
    kept().putUnsent(ADA, [unsentMail('u-1')]);
    const outbox = await outboxAs(ADA);
    otherWindowKeeps(ADA, [unsentMail('u-1', { draft: { ...draft, body: 'At two?' } })]);
    expect(outbox.mine[0]?.draft.body).toBe('At two?');
  });
});
