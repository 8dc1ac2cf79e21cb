import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../api/chat.ts';
import { confirmSend, failSend, mergeMessages, pendingEntry, sent, type ConversationEntry } from './chat.ts';
import { chatOffersPlaintext, conversationEncryption, entryEncryption, entryEndToEnd, lastEncryption } from './chat-encryption.ts';

const ME = { agent_id: 'me', alias: 'me', address: 'example.com/me', did_key: 'did:key:zme' };
const AT = new Date('2026-01-01T00:00:05Z');

/** A message as the node serves it: plaintext unless `fields` say otherwise. */
function chatMessage(id: string, sessionId: string, fields: Partial<ChatMessage> = {}): ChatMessage {
  return {
    ...pendingEntry(id, { agent_id: 'bob-agent', alias: 'bob', address: 'example.com/bob', did_key: 'did:key:zbob' }, sessionId, id, {}, AT).message,
    signature: 'sig',
    signature_status: 'verified',
    ...fields,
  };
}

const sealed = (id: string): ConversationEntry =>
  sent(chatMessage(id, 's', { end_to_end: true, content_mode: 'server_readable_hosted', message_version: 2, created_at: `2026-01-01T00:00:0${id.at(-1)}Z` }));
const plain = (id: string): ConversationEntry => sent(chatMessage(id, 's', { created_at: `2026-01-01T00:00:0${id.at(-1)}Z` }));

describe('a chat message’s encryption mark', () => {
  it('is the lock on an encrypted message, and “Not end-to-end encrypted”, with the open lock, on plaintext', () => {
    expect(entryEncryption(sealed('m1'))).toMatchObject({ text: 'End-to-end encrypted', locked: true });
    expect(entryEncryption(plain('m1'))).toMatchObject({ text: 'Not end-to-end encrypted', locked: false });
  });

  it('is not shown while a send is on its way, nor for one that failed', () => {
    const pending = pendingEntry('local-1', ME, 's', 'hi', {}, AT);
    expect(entryEncryption(pending)).toBeNull();
    expect(entryEncryption(pendingEntry('local-2', ME, 's', 'hi', { plaintext: true }, AT))).toBeNull();
    expect(entryEncryption(failSend([pending], 'local-1', 'refused')[0]!)).toBeNull();
  });

  it('waits for the node’s copy of a send it took, unless the person sent it as plaintext by name', () => {
    const taken = confirmSend([pendingEntry('local-1', ME, 's', 'hi', {}, AT)], 'local-1', 'm7')[0]!;
    expect(taken).toMatchObject({ delivery: 'sent', awaitingCopy: true });
    // The pending copy says end_to_end false; the node may well have sealed it.
    expect(entryEndToEnd(taken)).toBeNull();
    const chosen = confirmSend([pendingEntry('local-2', ME, 's', 'hi', { plaintext: true }, AT)], 'local-2', 'm8')[0]!;
    expect(entryEncryption(chosen)).toMatchObject({ text: 'Not end-to-end encrypted', locked: false });
    // The copy from the stream replaces it and says how it went.
    const copy = mergeMessages([taken], [chatMessage('m7', 's', { end_to_end: true, content_mode: 'server_readable_hosted', message_version: 2 })]);
    expect(copy.map(entryEncryption)).toMatchObject([{ locked: true }]);
  });
});

describe('the conversation header’s mark', () => {
  it('is the lock when every message shown is encrypted', () => {
    expect(conversationEncryption([sealed('m1'), sealed('m2')])).toMatchObject({
      text: 'End-to-end encrypted',
      locked: true,
      hint: 'Every message of this conversation shown here is end-to-end encrypted.',
    });
  });

  it('says “Not end-to-end encrypted” when the newest message is plaintext', () => {
    expect(conversationEncryption([plain('m1'), plain('m2')])).toMatchObject({
      text: 'Not end-to-end encrypted',
      locked: false,
      hint: 'No message of this conversation shown here is end-to-end encrypted.',
    });
    expect(conversationEncryption([sealed('m1'), sealed('m2'), plain('m3')])).toMatchObject({
      text: 'Not end-to-end encrypted',
      locked: false,
      hint: 'The newest message is not end-to-end encrypted (1 of the 3 messages shown).',
    });
  });

  it('says “Not all end-to-end encrypted” when only older messages are plaintext', () => {
    expect(conversationEncryption([plain('m1'), sealed('m2')])).toMatchObject({
      text: 'Not all end-to-end encrypted',
      locked: false,
      hint: 'Not end-to-end encrypted: 1 of the 2 messages shown.',
    });
  });

  it('counts only what the node has said: none for an empty conversation or one with only sends on their way', () => {
    expect(conversationEncryption([])).toBeNull();
    expect(conversationEncryption([pendingEntry('local-1', ME, 's', 'hi', {}, AT)])).toBeNull();
    // A send on its way does not turn an encrypted conversation's lock into a warning.
    expect(conversationEncryption([sealed('m1'), pendingEntry('local-1', ME, 's', 'hi', {}, AT)])).toMatchObject({ locked: true });
  });
});

describe('a session row’s mark', () => {
  it('follows the last message, and is not shown when its source did not say', () => {
    expect(lastEncryption({ end_to_end: true })).toMatchObject({ text: 'End-to-end encrypted', locked: true });
    expect(lastEncryption({ end_to_end: false })).toMatchObject({ text: 'Not end-to-end encrypted', locked: false });
    expect(lastEncryption({ end_to_end: null })).toBeNull();
    expect(lastEncryption(null)).toBeNull();
  });
});

describe('sending as plaintext', () => {
  it('is offered only when someone in the chat publishes no encryption key', () => {
    expect(chatOffersPlaintext('SVC_ERR_E2EE_RECIPIENT_KEY_MISSING')).toBe(true);
    expect(chatOffersPlaintext('SVC_ERR_E2EE_REQUIRED')).toBe(false);
    expect(chatOffersPlaintext('SVC_ERR_E2EE_PLAINTEXT_REFUSED')).toBe(false);
    expect(chatOffersPlaintext(null)).toBe(false);
  });
});
