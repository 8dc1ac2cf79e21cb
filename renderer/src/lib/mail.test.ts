import { describe, expect, it } from 'vitest';
import type { MailMessage, SentMail } from '../api/mail.ts';
import type { Identity } from '../api/owner.ts';
import {
  deleteConsequence,
  folderTitle,
  keyChangeNote,
  nextAfterRemoval,
  opensExternally,
  patchMessage,
  placeChanged,
  deliveryRow,
  sentBadge,
  sentDetail,
  withoutMessage,
  mergeMessages,
  ownWords,
  folderBadge,
  folderCountText,
  preview,
  priorityBadge,
  replyBody,
  replyRecipient,
  replySubject,
  senderAddress,
  signatureBadge,
  threadEntries,
  threadOf,
} from './mail.ts';

function mail(id: string, createdAt: string, extra: Partial<MailMessage> = {}): MailMessage {
  return {
    message_id: id,
    origin: 'local',
    from_node: null,
    from_agent_id: 'a',
    from_alias: 'alice',
    from_address: 'acme.test/alice',
    from_did: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    from_stable_id: 'did:svc:alice',
    to_alias: 'bob',
    to_address: 'acme.test/bob',
    to_did: 'did:key:z6Mkbob',
    to_stable_id: null,
    subject: 'Hello',
    body: 'Hi there',
    priority: 'normal',
    signature: 'c2ln',
    signed_payload: '{}',
    signing_key_id: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    thread_id: null,
    conversation_id: id,
    rotation_announcement: null,
    replacement_announcement: null,
    created_at: createdAt,
    read_at: null,
    archived_at: null,
    is_contact: false,
    signature_status: 'verified',
    from_namespace_trust: null,
    end_to_end: false,
    content_mode: 'legacy_plaintext_v1',
    message_version: 1,
    ...extra,
  };
}

describe('mergeMessages', () => {
  it('adds new mail in date order and replaces known ids', () => {
    const list = [mail('b', '2026-01-02T00:00:00Z'), mail('a', '2026-01-01T00:00:00Z')];
    const merged = mergeMessages(list, [mail('c', '2026-01-03T00:00:00Z'), mail('a', '2026-01-01T00:00:00Z', { read_at: 'x' })]);
    expect(merged.map((m) => m.message_id)).toEqual(['c', 'b', 'a']);
    expect(merged[2]?.read_at).toBe('x');
  });
});

describe('signatureBadge', () => {
  const did = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';

  it('says verified, by which key, only when the node checked the signature', () => {
    const badge = signatureBadge({ signature: 'c2ln', from_did: did, signature_status: 'verified' });
    expect(badge).toMatchObject({ text: 'Verified · z6MkhaXg…2doK', tone: 'ok' });
    expect(badge.hint).toContain(did);
  });

  it('says when a signature does not match, or could not be checked', () => {
    expect(signatureBadge({ signature: 'c2ln', from_did: did, signature_status: 'failed' })).toMatchObject({
      text: 'Signature does not match',
      tone: 'danger',
    });
    expect(signatureBadge({ signature: 'c2ln', from_did: did, signature_status: 'unverified' })).toMatchObject({
      text: 'Unverified · z6MkhaXg…2doK',
      tone: 'warn',
    });
  });

  it("claims nothing without the node's verdict", () => {
    const badge = signatureBadge({ signature: 'c2ln', from_did: did });
    expect(badge.text).toBe('Signed by z6MkhaXg…2doK');
    expect(badge.text.toLowerCase()).not.toContain('verified');
  });

  it('says unsigned when there is no signature', () => {
    expect(signatureBadge({ signature: '', from_did: 'did:key:z6Mk' })).toMatchObject({ text: 'Unsigned', tone: 'warn' });
  });

  it("takes the node's verdict on an end-to-end encrypted mail's envelope, which carries its signature", () => {
    expect(signatureBadge({ signature: '', from_did: did, signature_status: 'verified', end_to_end: true })).toMatchObject({
      text: 'Verified · z6MkhaXg…2doK',
      tone: 'ok',
    });
    expect(signatureBadge({ signature: '', from_did: did, signature_status: 'failed', end_to_end: true })).toMatchObject({ tone: 'danger' });
  });
});

describe('keyChangeNote', () => {
  const alice = { address: 'acme.test/alice', did_key: 'did:key:z6MkNEWKEYxxxxxxxxxxxx', status: 'active' } as Identity;

  it('warns when the address now resolves to another key', () => {
    expect(keyChangeNote(mail('m', ''), [alice])).toContain('now resolves to a different key');
  });

  it('is quiet when the key matches or the address is unknown', () => {
    const same = { ...alice, did_key: mail('m', '').from_did };
    expect(keyChangeNote(mail('m', ''), [same])).toBeNull();
    expect(keyChangeNote(mail('m', ''), [])).toBeNull();
    // A sender without an address is named by its alias (upstream's from_address): no address to check.
    expect(keyChangeNote(mail('m', '', { from_address: 'alice' }), [{ ...alice, address: 'alice' }])).toBeNull();
  });
});

describe('threads (thread_id)', () => {
  it('names the thread: the one a message names, else the one it starts', () => {
    expect(threadOf(mail('m', ''))).toBe('m');
    expect(threadOf(mail('m', '', { thread_id: 't' }))).toBe('t');
  });

  it('tells an address from an alias in from_address', () => {
    expect(senderAddress(mail('m', ''))).toBe('acme.test/alice');
    expect(senderAddress(mail('m', '', { from_address: 'alice' }))).toBeNull();
    expect(senderAddress(mail('m', '', { from_address: 'team~alice' }))).toBeNull();
  });

  it('lists the rest of a thread oldest first, a send to several people once', () => {
    const sentTo = (to: string, id: string): SentMail =>
      ({
        ...mail(id, '2026-01-02T00:00:00Z'),
        destination: 'local',
        to,
        status: 'delivered',
        attempts: null,
        next_attempt_at: null,
        last_error: null,
        delivered_to: null,
        settled_at: null,
        thread_id: 't',
      }) as unknown as SentMail;
    const entries = threadEntries(
      [mail('t', '2026-01-01T00:00:00Z'), mail('r', '2026-01-03T00:00:00Z', { thread_id: 't', from_alias: 'bob' })],
      [sentTo('bob', 's1'), sentTo('cy', 's2')],
      'r',
    );
    expect(entries.map((e) => [e.message_id, e.from, e.to, e.mine])).toEqual([
      ['t', 'alice', null, false],
      ['s1', 'You', 'bob, cy', true],
    ]);
  });
});

describe('replies', () => {
  it('writes back to the address, else the stable did', () => {
    expect(replyRecipient(mail('m', ''))).toEqual({ value: 'acme.test/alice', kind: 'address', label: 'alice' });
    expect(replyRecipient(mail('m', '', { from_address: 'alice' }))).toEqual({ value: 'did:svc:alice', kind: 'did', label: 'alice' });
    expect(replyRecipient(mail('m', '', { from_address: 'other~alice', from_stable_id: null }))).toEqual({
      value: mail('m', '').from_did,
      kind: 'did',
      label: 'alice',
    });
  });

  it('prefixes Re: once and quotes the original', () => {
    expect(replySubject('Hello')).toBe('Re: Hello');
    expect(replySubject('RE: Hello')).toBe('RE: Hello');
    expect(replySubject('')).toBe('Re: your message');
    expect(replyBody(mail('m', '', { body: 'one\ntwo' }), 'Monday')).toBe('\n\nOn Monday, alice wrote:\n> one\n> two');
  });
});

describe('priorityBadge and preview', () => {
  it('marks only what is not normal', () => {
    expect(priorityBadge('normal')).toBeNull();
    expect(priorityBadge('urgent')?.tone).toBe('danger');
    expect(priorityBadge('high')?.text).toBe('High');
  });

  it('flattens and cuts the body', () => {
    expect(preview('a\n\n b   c')).toBe('a b c');
    expect(preview('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('leaves Markdown’s marks out of the preview, keeping the words', () => {
    expect(
      preview(
        '# Launch plan\n\nThe **numbers** are in; see [the dashboard](https://x.example/d).\n\n- ship on *Friday*\n> quoted\n```\nnpm run `release`\n```',
      ),
    ).toBe('Launch plan The numbers are in; see the dashboard. ship on Friday npm run release');
    expect(preview('2 * 3 = 6, a_b_c')).toBe('2 * 3 = 6, a_b_c');
  });

  it('shows a reply by its own words: not the attribution line, not the quote', () => {
    const quote = replyBody(mail('m', '', { body: 'Lunch on Friday?\nAlice' }), 'Tuesday, 3 March 2026 at 10:00:00');
    expect(preview(`Friday at noon works.\n\nBob${quote}`)).toBe('Friday at noon works. Bob');
    // Answered below the quote, or between quoted parts.
    expect(preview(`${quote}\n\nFriday at noon works.`)).toBe('Friday at noon works.');
    expect(preview('On Monday, carol wrote:\n\n> first\n\nyes\n> second\nno')).toBe('yes no');
    expect(ownWords('top\nOn Monday, carol wrote:\n> q')).toBe('top');
  });

  it('keeps a line that ends in "wrote:" but quotes nothing, and a body that only quotes', () => {
    expect(preview('Here is what she wrote:\nnothing yet')).toBe('Here is what she wrote: nothing yet');
    expect(preview('> only a quote')).toBe('only a quote');
  });
});

describe('folders', () => {
  const list = [mail('c', '2026-01-03T00:00:00Z'), mail('b', '2026-01-02T00:00:00Z'), mail('a', '2026-01-01T00:00:00Z')];

  it('takes a message out, patches one, and picks the next to show as mail apps do', () => {
    expect(withoutMessage(list, 'b').map((m) => m.message_id)).toEqual(['c', 'a']);
    expect(patchMessage(list, 'b', { read_at: 'now' }).map((m) => m.read_at)).toEqual([null, 'now', null]);
    expect(nextAfterRemoval(list, 'b')).toBe('a');
    expect(nextAfterRemoval(list, 'c')).toBe('b');
    expect(nextAfterRemoval(list, 'a')).toBe('b'); // the last one: the one before
    expect(nextAfterRemoval([list[0] as MailMessage], 'c')).toBeNull();
    expect(nextAfterRemoval(list, 'x')).toBeNull();
  });

  it('says what a delete does, and who keeps a copy', () => {
    expect(deleteConsequence(mail('m', '', { subject: ' Plans ' }))).toBe(
      '“Plans” is removed from your mail for good, from the inbox and the archive; this cannot be undone. alice keeps their copy.',
    );
    expect(deleteConsequence(mail('m', '', { subject: '', origin: 'bounce' }))).toBe(
      'This message is removed from your mail for good, from the inbox and the archive; this cannot be undone.',
    );
  });

  it('places a message changed elsewhere in the folder shown, as the node now has it', () => {
    const a = mail('a', '2026-01-03T00:00:00Z', { read_at: 'T' });
    const b = mail('b', '2026-01-02T00:00:00Z');
    const c = mail('c', '2026-01-01T00:00:00Z', { read_at: 'T' });
    const ids = (list: MailMessage[]) => list.map((m) => [m.message_id, m.read_at === null ? 'unread' : 'read', m.archived_at ? 'archived' : '']);
    const inbox = [a, b, c];
    // Archived or deleted elsewhere: it leaves the inbox; the archive takes it in, in its place.
    expect(ids(placeChanged(inbox, 'b', { ...b, archived_at: 'T', read_at: 'T' }, 'inbox'))).toEqual([
      ['a', 'read', ''],
      ['c', 'read', ''],
    ]);
    expect(ids(placeChanged(inbox, 'b', null, 'inbox'))).toEqual([
      ['a', 'read', ''],
      ['c', 'read', ''],
    ]);
    expect(ids(placeChanged([a, c], 'b', { ...b, archived_at: 'T' }, 'archive'))).toEqual([
      ['a', 'read', ''],
      ['b', 'unread', 'archived'],
      ['c', 'read', ''],
    ]);
    // Read or unread elsewhere: changed where it is.
    expect(ids(placeChanged(inbox, 'b', { ...b, read_at: 'T' }, 'inbox'))).toEqual([
      ['a', 'read', ''],
      ['b', 'read', ''],
      ['c', 'read', ''],
    ]);
    // Unarchived or marked unread elsewhere: back in the inbox, and in Unread when unread; out of the archive.
    expect(ids(placeChanged([a, c], 'b', b, 'inbox'))).toEqual([
      ['a', 'read', ''],
      ['b', 'unread', ''],
      ['c', 'read', ''],
    ]);
    expect(ids(placeChanged([a], 'b', b, 'unread'))).toEqual([
      ['a', 'read', ''],
      ['b', 'unread', ''],
    ]);
    expect(ids(placeChanged([b], 'b', b, 'archive'))).toEqual([]);
    // Unread keeps one read elsewhere in view (as one read here), and does not take in a read one.
    expect(ids(placeChanged([b], 'b', { ...b, read_at: 'T' }, 'unread'))).toEqual([['b', 'read', '']]);
    expect(ids(placeChanged([], 'c', c, 'unread'))).toEqual([]);
  });

  it('names the folders', () => {
    expect(folderTitle('archive')).toBe('Archive');
    expect(folderTitle('outbound')).toBe('Sent to other nodes');
  });

  const sentItem = (extra: Partial<SentMail>): SentMail => ({
    message_id: 's',
    destination: 'local',
    to: 'bob',
    to_alias: 'bob',
    to_address: 'acme.test/bob',
    to_did: 'did:key:z6Mkbob',
    to_stable_id: null,
    subject: 'Hi',
    body: 'hello',
    priority: 'normal',
    signature: 'c2ln',
    signed_payload: '{}',
    thread_id: null,
    conversation_id: 's',
    created_at: '2026-01-01T00:00:00Z',
    status: 'delivered',
    attempts: null,
    next_attempt_at: null,
    last_error: null,
    delivered_to: null,
    settled_at: '2026-01-01T00:00:00Z',
    end_to_end: false,
    content_mode: 'legacy_plaintext_v1',
    message_version: 1,
    ...extra,
  });

  it('words the delivery of sent mail: local is delivered; another node has its outbox state', () => {
    expect(sentBadge(sentItem({}))).toEqual({ text: 'Delivered', tone: 'ok', hint: 'Delivered to bob on this node when it was sent.' });
    expect(sentDetail(sentItem({}))).toBe('On this node');
    const queued = sentItem({ destination: 'remote', to: 'far.example/zed', status: 'queued', attempts: 0 });
    expect(sentBadge(queued)).toMatchObject({ text: 'Queued', tone: 'warn', hint: expect.stringContaining('far.example') });
    expect(sentDetail(queued)).toBe('Waiting for the first attempt');
    const bounced = sentItem({ destination: 'remote', to: 'far.example/zed', status: 'bounced', attempts: 1, last_error: 'no such identity' });
    expect(sentBadge(bounced)).toMatchObject({ text: 'Bounced', tone: 'danger' });
    expect(sentDetail(bounced)).toBe('no such identity');
    expect(sentDetail(sentItem({ destination: 'remote', status: 'delivered', attempts: 1, delivered_to: 'https://far.example' }))).toBe(
      'Delivered to far.example',
    );
  });

  it('says in a delivery row to whom, how it went and, for this node, what it said', () => {
    expect(deliveryRow(sentItem({ to_alias: 'bob', to_address: 'acme.test/bob', body: '**Hi** there' }))).toEqual({
      to: 'To bob',
      toTitle: 'acme.test/bob',
      badge: { text: 'Delivered', tone: 'ok', hint: 'Delivered to bob on this node when it was sent.' },
      note: 'Hi there',
    });
    const queued = sentItem({
      destination: 'remote',
      to: 'far.example/zed',
      to_alias: null,
      to_address: null,
      status: 'queued',
      attempts: 2,
      last_error: 'timed out',
    });
    expect(deliveryRow(queued)).toMatchObject({
      to: 'To far.example/zed',
      toTitle: 'far.example/zed',
      badge: { text: 'Queued' },
      note: '2 attempts · timed out',
    });
    const outbound = {
      message_id: 'o',
      kind: 'mail' as const,
      to_address: 'far.example/zed',
      to_domain: 'far.example',
      status: 'bounced' as const,
      attempts: 1,
      next_attempt_at: '2026-01-01T00:00:00Z',
      last_error: 'no such identity',
      delivered_to: null,
      created_at: '2026-01-01T00:00:00Z',
      settled_at: '2026-01-01T00:01:00Z',
      subject: 'Hello',
    };
    expect(deliveryRow(outbound)).toMatchObject({ to: 'To far.example/zed', toTitle: 'far.example/zed', badge: { text: 'Bounced' }, note: 'no such identity' });
  });

  it('opens only http(s) and mailto links of a rendered body', () => {
    for (const href of ['https://example.com/x', 'http://example.com', 'mailto:a@example.com']) expect(opensExternally(href)).toBe(true);
    for (const href of [null, '#section', '#/settings', '/ui/#/mail', 'javascript:alert(1)', 'file:///etc/passwd', 'not a url'])
      expect(opensExternally(href)).toBe(false);
  });
});

describe('folder counts', () => {
  it('give each number one meaning, in words, grouped', () => {
    const counts = { unread: 66666, queued: 1 };
    expect(folderCountText('inbox', counts, 'en')).toBe('66,666 unread');
    expect(folderCountText('unread', counts, 'en')).toBe('66,666 unread');
    expect(folderCountText('outbound', counts, 'en')).toBe('1 on the way');
    // Paged lists with no total from the node: no number that would only be a page's.
    expect(folderCountText('sent', counts, 'en')).toBe('');
    expect(folderCountText('archive', counts, 'en')).toBe('');
    expect(folderCountText('inbox', { unread: 0, queued: 0 }, 'en')).toBe('');
    expect(folderBadge('inbox', counts, 'en')).toEqual({ text: '66,666', label: '66,666 unread messages' });
    expect(folderBadge('outbound', counts, 'en')).toEqual({ text: '1', label: '1 message still on the way' });
    expect(folderBadge('sent', counts, 'en')).toBeNull();
    expect(folderBadge('inbox', { unread: 0, queued: 0 }, 'en')).toBeNull();
  });
});
