/**
 * Envelopes the node makes: they round-trip through JSON to the recipient and to the sender's own
 * copy, byte for byte; changing any signed field breaks them with a named error; and the checks
 * behind the signature (hashes, key wraps, associated data, inner header, suite) hold on their own,
 * shown by envelopes a dishonest sender re-signed after tampering.
 */
import { describe, expect, it } from 'vitest';
import { testParty, type TestParty } from '../../../test/support/e2ee-parties.ts';
import { contractHash, decodeRaw, encodeRaw } from './encoding.ts';
import { envelopeAssociatedData, envelopeSigningBytes, keyWrapsHash, parseEnvelope, type E2eeEnvelope } from './envelope.ts';
import {
  ContentDecryptionError,
  E2eeError,
  EnvelopeHashMismatchError,
  EnvelopeSignatureError,
  InnerHeaderMismatchError,
  KeyAssertionError,
  KeyWrapError,
  MalformedEnvelopeError,
  UnsupportedSuiteError,
} from './errors.ts';
import { innerHeaderHash, innerPayloadBytes, parseInnerPayload } from './inner-payload.ts';
import { openContent, sealContent } from './content-cipher.ts';
import { openKeyWrap, selectKeyWrap } from './key-wrap.ts';
import { openEnvelope } from './open-envelope.ts';
import { sealEnvelope, type SealRequest } from './seal-envelope.ts';

const NOW = Date.parse('2026-12-07T10:00:00.400Z');
const alice = testParty({ address: 'alice.example/alice', stableId: 'did:svc:alice', now: NOW - 60_000 });
const bob = testParty({ address: 'bob.example/bob', stableId: 'did:svc:bob', now: NOW - 60_000 });
const carol = testParty({ address: 'bob.example/carol', now: NOW - 60_000 });

const SUBJECT = 'Déjà vu — the plan';
const BODY = 'Meet at 10.\n<b>not markup</b> & "quotes" \u2028 🙂';

function mail(overrides: Partial<SealRequest> = {}): E2eeEnvelope {
  return sealEnvelope(
    {
      kind: 'mail',
      sender: alice,
      recipients: [bob],
      subject: SUBJECT,
      body: BODY,
      messageId: 'a0000000-0000-4000-8000-000000000001',
      conversationId: 'c0000000-0000-4000-8000-000000000001',
      createdAt: NOW,
      ...overrides,
    },
    alice,
  );
}

/** The envelope as another node or a client receives it. */
const wire = (envelope: E2eeEnvelope): E2eeEnvelope => parseEnvelope(JSON.parse(JSON.stringify(envelope)));

/** A dishonest sender: changes the envelope, then signs it again with its own key. */
function resign(envelope: E2eeEnvelope, sender: TestParty = alice): E2eeEnvelope {
  const { signature: _signature, ...rest } = envelope;
  return { ...rest, signature: encodeRaw(sender.sign(envelopeSigningBytes(rest))) };
}

describe('sealing and opening', () => {
  it('bob reads what alice wrote, and alice’s sender copy gives the same bytes', () => {
    const envelope = wire(mail());
    const forBob = openEnvelope(envelope, bob.reader);
    const forAlice = openEnvelope(envelope, alice.reader);
    expect(forBob.inner.subject).toBe(SUBJECT);
    expect(forBob.inner.body).toBe(BODY);
    expect(forBob.wrapPurpose).toBe('delivery');
    expect(forAlice.wrapPurpose).toBe('sender_copy');
    expect(innerPayloadBytes(forAlice.inner)).toEqual(innerPayloadBytes(forBob.inner));
  });

  it('writes upstream’s shape: times, routing, policy, sizes, one delivery wrap and one sender copy', () => {
    const envelope = mail();
    expect(envelope.created_at).toBe('2026-12-07T10:00:00Z');
    expect(envelope.expires_at).toBe('2026-12-07T10:05:00Z');
    expect(envelope.routing).toEqual({ to: bob.address, to_did: bob.did, to_stable_id: bob.stableId });
    expect(envelope.policy).toEqual({ requires_e2ee: true, legacy_plaintext_allowed: false });
    expect(decodeRaw(envelope.ciphertext)).toHaveLength(envelope.crypto.ciphertext_size);
    expect(envelope.key_wraps.map((w) => w.wrap_purpose)).toEqual(['delivery', 'sender_copy']);
    expect(envelope.recipients[0]!.wrap_id).toBe(envelope.key_wraps[0]!.wrap_id);
    expect(envelope.signing_key_id).toBe(alice.did);
    expect('sender_encryption_key' in envelope).toBe(false);
    expect(JSON.stringify(envelope)).not.toContain(BODY.slice(0, 10));
    expect(JSON.stringify(envelope)).not.toContain(SUBJECT);
  });

  it('a fresh content key and nonce every time: the same message never seals to the same bytes', () => {
    const [a, b] = [mail(), mail()];
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.crypto.content_nonce).not.toBe(b.crypto.content_nonce);
    // The binding is deterministic, so the wrap ids are the same.
    expect(a.key_wraps[0]!.wrap_id).toBe(b.key_wraps[0]!.wrap_id);
  });

  it('chat to two recipients: each reads it, no subject travels, routing names both', () => {
    const envelope = wire(
      sealEnvelope(
        {
          kind: 'chat',
          sender: alice,
          recipients: [bob, carol],
          body: 'hello both',
          messageId: 'm-2',
          conversationId: 's-2',
          createdAt: NOW,
          replyToMessageId: 'm-1',
        },
        alice,
      ),
    );
    for (const reader of [bob.reader, carol.reader, alice.reader]) {
      const { inner } = openEnvelope(envelope, reader);
      expect(inner.body).toBe('hello both');
      expect('subject' in inner).toBe(false);
      expect(inner.reply_to_message_id).toBe('m-1');
    }
    expect(envelope.routing).toEqual({ to: `${bob.address},${carol.address}` });
    expect(envelope.key_wraps).toHaveLength(3);
  });

  it('a sender without an address carries its own key assertion, signed with the rest', () => {
    const local = testParty({ now: NOW - 60_000 });
    const envelope = wire(
      sealEnvelope({ kind: 'chat', sender: local, recipients: [bob], body: 'hi', messageId: 'm-3', conversationId: 's-3', createdAt: NOW }, local),
    );
    expect(envelope.sender_encryption_key).toEqual(local.encryptionKey);
    expect(openEnvelope(envelope, bob.reader).inner.from).toEqual({ did: local.did });
    const { sender_encryption_key: _removed, ...stripped } = envelope;
    expect(() => openEnvelope(stripped, bob.reader)).toThrow(EnvelopeSignatureError);
  });
});

describe('refusing to seal', () => {
  it('to a key the recipient’s identity did not sign (substitution)', () => {
    const mallory = testParty({ address: bob.address, stableId: bob.stableId, now: NOW - 60_000 });
    expect(() => mail({ recipients: [{ ...bob, encryptionKey: mallory.encryptionKey }] })).toThrow(KeyAssertionError);
  });

  it('to an expired key, or with the sender’s own key expired', () => {
    const old = testParty({ address: 'bob.example/old', now: NOW - 91 * 24 * 60 * 60 * 1000 });
    expect(() => mail({ recipients: [old] })).toThrow(/expired/);
    expect(() => mail({ sender: old })).toThrow(/expired/);
  });

  it('mail to two recipients, or a signature by another key than the sender’s', () => {
    expect(() => mail({ recipients: [bob, carol] })).toThrow(RangeError);
    expect(() => sealEnvelope({ kind: 'mail', sender: alice, recipients: [bob], body: 'x', messageId: 'm', conversationId: 'c', createdAt: NOW }, bob)).toThrow(
      /signing key does not belong/,
    );
  });
});

/** Every leaf of the signed envelope, as a path, with a well-formed replacement value. */
function leaves(value: unknown, path: (string | number)[] = []): { path: (string | number)[]; replacement: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => leaves(item, [...path, i]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => leaves(item, [...path, key]));
  if (typeof value === 'boolean') return [{ path, replacement: !value }];
  if (typeof value === 'number') return [{ path, replacement: value + 1 }];
  const text = value as string;
  if (text.startsWith('sha256:')) return [{ path, replacement: contractHash(Buffer.from(text)) }];
  const bytes = decodeRaw(text);
  if (bytes && bytes.length >= 12 && !text.includes(':')) return [{ path, replacement: encodeRaw(Buffer.from(bytes).map((b, i) => (i === 0 ? b ^ 1 : b))) }];
  return [{ path, replacement: `${text}x` }];
}

function withLeaf(envelope: E2eeEnvelope, path: (string | number)[], replacement: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(envelope)) as Record<string, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = replacement;
  return copy;
}

describe('tampering', () => {
  const envelope = mail();
  const fields = leaves((({ signature: _signature, ...rest }) => rest)(envelope));

  it('covers every signed field', () => {
    expect(fields.length).toBeGreaterThan(30);
  });

  for (const { path, replacement } of fields) {
    it(`changing ${path.join('.')} fails closed with a named error, for bob and for alice`, () => {
      const tampered = withLeaf(envelope, path, replacement);
      for (const reader of [bob.reader, alice.reader]) {
        let error: unknown;
        try {
          openEnvelope(parseEnvelope(tampered), reader);
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(E2eeError);
      }
    });
  }

  it('a changed signature, or one removed, is refused', () => {
    const flipped = withLeaf(envelope, ['signature'], encodeRaw(decodeRaw(envelope.signature)!.map((b, i) => (i === 0 ? b ^ 1 : b))));
    expect(() => openEnvelope(parseEnvelope(flipped), bob.reader)).toThrow(EnvelopeSignatureError);
    expect(() => parseEnvelope({ ...envelope, signature: undefined })).toThrow(MalformedEnvelopeError);
  });
});

describe('the checks behind the signature, against a dishonest sender', () => {
  it('ciphertext replaced: the signed hash no longer matches', () => {
    const other = mail();
    expect(() => openEnvelope(resign({ ...mail(), ciphertext: other.ciphertext }), bob.reader)).toThrow(EnvelopeHashMismatchError);
  });

  it('ciphertext size misstated', () => {
    const envelope = mail();
    expect(() =>
      openEnvelope(resign({ ...envelope, crypto: { ...envelope.crypto, ciphertext_size: envelope.crypto.ciphertext_size - 1 } }), bob.reader),
    ).toThrow(EnvelopeHashMismatchError);
  });

  it('key wraps changed: the key-wraps hash no longer matches; recomputed, the wrap itself refuses', () => {
    const envelope = mail();
    const wraps = envelope.key_wraps.map((w, i) => (i === 0 ? { ...w, wrapped_cek: mail().key_wraps[0]!.wrapped_cek } : w));
    expect(() => openEnvelope(resign({ ...envelope, key_wraps: wraps }), bob.reader)).toThrow(EnvelopeHashMismatchError);
    const rehashed = resign({ ...envelope, key_wraps: wraps, crypto: { ...envelope.crypto, key_wraps_hash: keyWrapsHash(wraps) } });
    expect(() => openEnvelope(rehashed, bob.reader)).toThrow(KeyWrapError);
  });

  it('a wrap whose wrap_id is not its binding is refused before it is opened', () => {
    const envelope = mail();
    const wraps = envelope.key_wraps.map((w, i) => (i === 0 ? { ...w, wrap_id: envelope.key_wraps[1]!.wrap_id } : w));
    const rehashed = resign({ ...envelope, key_wraps: wraps, crypto: { ...envelope.crypto, key_wraps_hash: keyWrapsHash(wraps) } });
    expect(() => openEnvelope(rehashed, bob.reader)).toThrow(/binding does not match/);
  });

  it('routing changed after encryption: the associated data no longer authenticates the content', () => {
    const envelope = mail();
    expect(() => openEnvelope(resign({ ...envelope, routing: { ...envelope.routing, to: 'elsewhere/bob' } }), bob.reader)).toThrow(ContentDecryptionError);
    expect(() => openEnvelope(resign({ ...envelope, reply_to_message_id: 'm-0' }), bob.reader)).toThrow(ContentDecryptionError);
  });

  it('suite or wrap algorithm downgraded', () => {
    const envelope = mail();
    expect(() => openEnvelope(resign({ ...envelope, crypto: { ...envelope.crypto, suite: 'aweb-e2ee-v1.x25519-aes128gcm' } }), bob.reader)).toThrow(
      UnsupportedSuiteError,
    );
    const wraps = envelope.key_wraps.map((w) => ({ ...w, algorithm: 'hpke-base-x25519-hkdf-sha256-aes128gcm' }));
    const downgraded = resign({ ...envelope, key_wraps: wraps, crypto: { ...envelope.crypto, key_wraps_hash: keyWrapsHash(wraps) } });
    expect(() => openEnvelope(downgraded, bob.reader)).toThrow(UnsupportedSuiteError);
  });

  /** Re-encrypts other inner bytes under the message's own content key, as only its sender could. */
  function reencrypt(envelope: E2eeEnvelope, change: (inner: ReturnType<typeof parseInnerPayload>) => void, updateHeaderHash: boolean): E2eeEnvelope {
    const contentKey = openKeyWrap(envelope, selectKeyWrap(envelope, alice.reader), alice.reader);
    const nonce = decodeRaw(envelope.crypto.content_nonce)!;
    const inner = parseInnerPayload(openContent(contentKey, nonce, decodeRaw(envelope.ciphertext)!, envelopeAssociatedData(envelope)));
    change(inner);
    const bytes = innerPayloadBytes(inner);
    const crypto = { ...envelope.crypto, ciphertext_size: bytes.length + 16, ...(updateHeaderHash ? { inner_header_hash: innerHeaderHash(inner) } : {}) };
    const ciphertext = sealContent(contentKey, nonce, bytes, envelopeAssociatedData({ ...envelope, crypto }));
    return resign({ ...envelope, crypto: { ...crypto, ciphertext_hash: contractHash(ciphertext) }, ciphertext: encodeRaw(ciphertext) });
  }

  it('an inner header that is not the signed one is refused, by its hash and by the mirror check', () => {
    const envelope = mail();
    expect(
      openEnvelope(
        reencrypt(envelope, () => undefined, false),
        bob.reader,
      ).inner.body,
    ).toBe(BODY);
    expect(() =>
      openEnvelope(
        reencrypt(envelope, (inner) => (inner.message_id = 'another'), false),
        bob.reader,
      ),
    ).toThrow(InnerHeaderMismatchError);
    expect(() =>
      openEnvelope(
        reencrypt(envelope, (inner) => (inner.message_id = 'another'), true),
        bob.reader,
      ),
    ).toThrow(/does not match the outer envelope/);
    expect(() =>
      openEnvelope(
        reencrypt(envelope, (inner) => (inner.from = { did: bob.did }), true),
        bob.reader,
      ),
    ).toThrow(/inner sender/);
    expect(() =>
      openEnvelope(
        reencrypt(envelope, (inner) => inner.recipients.push({ did: carol.did }), true),
        bob.reader,
      ),
    ).toThrow(/inner recipients/);
  });
});

describe('malformed input is a named refusal, never a crash', () => {
  const good = JSON.parse(JSON.stringify(mail())) as Record<string, unknown>;
  const cases: [string, unknown][] = [
    ['not an object', 'envelope'],
    ['ciphertext not base64', { ...good, ciphertext: '***' }],
    ['ciphertext shorter than a tag', { ...good, ciphertext: encodeRaw(Buffer.alloc(8)) }],
    ['a nonce of the wrong length', { ...good, crypto: { ...(good.crypto as object), content_nonce: encodeRaw(Buffer.alloc(8, 1)) } }],
    ['a size that is not an integer', { ...good, crypto: { ...(good.crypto as object), ciphertext_size: '10' } }],
    ['key wraps not an array', { ...good, key_wraps: {} }],
    [
      'a wrap with a short encapsulated key',
      { ...good, key_wraps: [{ ...(good.key_wraps as object[])[0], encapsulated_key: encodeRaw(Buffer.alloc(16, 1)) }] },
    ],
    ['a wrap with an unknown purpose', { ...good, key_wraps: [{ ...(good.key_wraps as object[])[0], wrap_purpose: 'escrow' }] }],
    ['a padded base64 signature', { ...good, signature: `${good.signature as string}==` }],
    ['policy as strings', { ...good, policy: { requires_e2ee: 'true', legacy_plaintext_allowed: 'false' } }],
    ['an unknown message version', { ...good, message_version: 3 }],
  ];
  for (const [name, value] of cases) {
    it(name, () => {
      expect(() => openEnvelope(parseEnvelope(value), bob.reader)).toThrow(E2eeError);
    });
  }
});
