/**
 * The federation wire schema runs in contract/ (no Buffer there): its body limit counts UTF-8
 * bytes with the contract's utf8Length, which must count exactly as the node's Buffer.byteLength
 * does (mail and chat sends check their limits with it).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { utf8Length } from '../core-rules.ts';
import { FederatedMail, FEDERATION_VERSION } from './federation.ts';
import { MAX_BODY_BYTES } from './mail.ts';

const TEXTS = ['', 'a', 'é', '€', '😀', 'a😀b', '\ud800', 'x\udc00', '\ud800\ud800', '\udbff\udfff', 'mixed é € 😀 text'];

const mail = (body: string) => ({
  v: FEDERATION_VERSION,
  kind: 'mail',
  message_id: randomUUID(),
  from: 'a.example/ann',
  from_did: 'did:key:z6Mk',
  from_stable_id: null,
  to: 'b.example/bob',
  subject: '',
  priority: 'normal',
  body,
  timestamp: '2026-01-01T00:00:00Z',
  signature: 'sig',
  signed_payload: '{}',
});

describe('utf8Length', () => {
  it('counts as Buffer.byteLength does, lone surrogates included', () => {
    for (const text of TEXTS) expect(utf8Length(text), JSON.stringify(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });
});

describe('FederatedMail', () => {
  it('takes a body of exactly the limit in bytes, and refuses one byte more', () => {
    const euros = '€'.repeat(Math.floor(MAX_BODY_BYTES / 3)); // 65,535 bytes
    expect(FederatedMail.safeParse(mail(euros + 'a')).success).toBe(true);
    const over = FederatedMail.safeParse(mail(euros + 'é'));
    expect(over.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([['body', `must be at most ${MAX_BODY_BYTES} bytes`]]);
  });
});
