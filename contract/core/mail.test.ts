import { describe, expect, it } from 'vitest';
import { InboxQuery, MAX_RECIPIENTS, SendMailBody, SentQuery } from './mail.ts';

const issues = (value: unknown) => SendMailBody.safeParse(value).error?.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) ?? [];

describe('SendMailBody', () => {
  it('defaults subject and priority', () => {
    expect(SendMailBody.parse({ to_alias: 'bo', body: '' })).toEqual({ to_alias: 'bo', body: '', subject: '', priority: 'normal' });
  });

  it('needs a recipient, and at most 50 over every selector', () => {
    expect(issues({ body: 'x' })).toEqual([{ path: '', message: expect.stringMatching(/^Must provide a recipient/) }]);
    const many = Array.from({ length: MAX_RECIPIENTS }, (_, i) => `r${i}`);
    expect(issues({ to_aliases: many, body: 'x' })).toEqual([]);
    expect(issues({ to_aliases: many.slice(0, 25), to_dids: many.slice(25), to_address: 'a.example/x', body: 'x' })).toEqual([
      { path: '', message: 'At most 50 recipients per mail (got 51)' },
    ]);
  });

  it('takes a client signature only with what checking it needs, as upstream', () => {
    const id = '6f1d2f4e-8a61-4f0e-9a3c-2b7f1d8e9c10';
    const signed = { signature: 's', signed_payload: '{}', from_did: 'did:key:z6Mk', message_id: id, timestamp: '2026-01-01T00:00:00Z' };
    expect(issues({ to_alias: 'bo', body: 'x', ...signed, signing_key_id: 'did:key:z6Mk' })).toEqual([]);
    expect(issues({ to_alias: 'bo', body: 'x', signature: 's', bcc: 'x' }).map((i) => i.path)).toEqual(['', 'from_did', 'message_id', 'signed_payload']);
    for (const field of ['signed_payload', 'signing_key_id', 'from_did']) {
      expect(issues({ to_alias: 'bo', body: 'x', [field]: 'v' })).toEqual([{ path: field, message: expect.stringMatching(/goes with signature/) }]);
    }
  });

  it("takes upstream's message_id (a UUID, one recipient), timestamp, thread_id and to_agent_id", () => {
    const id = '6f1d2f4e-8a61-4f0e-9a3c-2b7f1d8e9c10';
    expect(issues({ to_agent_id: id, body: 'x', message_id: id, timestamp: '2026-01-01T00:00:00Z', thread_id: id })).toEqual([]);
    expect(issues({ to_alias: 'bo', body: 'x', message_id: 'm-1' }).map((i) => i.path)).toEqual(['message_id']);
    expect(issues({ to_alias: 'bo', body: 'x', thread_id: 't-1' }).map((i) => i.path)).toEqual(['thread_id']);
    expect(issues({ to_agent_id: 'bo', body: 'x' }).map((i) => i.path)).toEqual(['to_agent_id']);
    expect(issues({ to_aliases: ['bo', 'cy'], body: 'x', message_id: id })).toEqual([{ path: 'message_id', message: expect.stringMatching(/one recipient/) }]);
  });
});

describe('InboxQuery', () => {
  it('reads query strings', () => {
    expect(InboxQuery.parse({})).toEqual({ limit: 50, unread_only: false });
    expect(InboxQuery.parse({ limit: '7', unread_only: 'true' })).toEqual({ limit: 7, unread_only: true });
    expect(InboxQuery.parse({ unread_only: '0' }).unread_only).toBe(false);
    expect(InboxQuery.safeParse({ unread_only: 'yes' }).success).toBe(false);
    expect(InboxQuery.safeParse({ limit: '1.5' }).success).toBe(false);
  });

  it('takes a folder (ours): inbox or archive, nothing else', () => {
    expect(InboxQuery.parse({ folder: 'archive' }).folder).toBe('archive');
    expect(InboxQuery.parse({}).folder).toBeUndefined();
    for (const folder of ['trash', 'sent', '', 'ARCHIVE']) expect(InboxQuery.safeParse({ folder }).success).toBe(false);
  });
});

describe('SentQuery', () => {
  it('pages with limit and before', () => {
    expect(SentQuery.parse({})).toEqual({ limit: 50 });
    expect(SentQuery.parse({ limit: '3', before: 'm-1' })).toEqual({ limit: 3, before: 'm-1' });
    expect(SentQuery.safeParse({ limit: '0' }).success).toBe(false);
    expect(SentQuery.safeParse({ before: '' }).success).toBe(false);
  });
});
