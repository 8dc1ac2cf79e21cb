/**
 * Making an E2EE v2 message, as upstream's Go client and Python server make it: a fresh content
 * key and nonce, AES-256-GCM over the inner payload bound to the whole protected envelope, one
 * HPKE wrap per recipient key plus the mandatory `sender_copy` wrap, then the sender's Ed25519
 * signature over everything.
 *
 * Every key assertion is verified at the message's creation time before any key is used: a key
 * that fails verification, has expired, or names another identity is refused, never used.
 *
 * Making an envelope is two steps. Preparing it (`prepareEnvelope`) is nearly all of the work and
 * takes public keys only, so it may run away from custody, in the seal worker (seal-pool.ts).
 * Signing it (`signPreparedEnvelope`) takes the sender's key and runs where custody is; the signer
 * names its did:key and must be `from.did`, so a mismatched signing key cannot produce an envelope.
 */
import { contractHash, encodeRaw, formatContractTime } from './encoding.ts';
import {
  E2EE_SUITE,
  ENVELOPE_TYPE,
  INGESTION_WINDOW_MS,
  MESSAGE_VERSION,
  envelopeAssociatedData,
  envelopeSigningBytes,
  keyWrapsHash,
  type E2eeEnvelope,
  type KeyWrap,
  type MessageKind,
  type RecipientRef,
  type Routing,
  type SenderRef,
} from './envelope.ts';
import { identityRef, innerHeaderHash, innerPayloadBytes, INNER_VERSION, type InnerPayload } from './inner-payload.ts';
import { verifyKeyAssertion, type EncryptionKeyAssertion, type KeyAssertionExpectation, type VerifiedEncryptionKey } from './key-assertion.ts';
import { sealKeyWrap } from './key-wrap.ts';
import { newContentKey, newContentNonce, sealContent } from './content-cipher.ts';

/** A party to a message: its identity fields (absent ones undefined or "") and its verified-at-send key assertion. */
export interface SealParty {
  address?: string | undefined;
  did: string;
  stableId?: string | undefined;
  teamId?: string | undefined;
  encryptionKey: EncryptionKeyAssertion;
}

export interface SealRequest {
  kind: MessageKind;
  sender: SealParty;
  recipients: readonly SealParty[];
  /** Mail only. */
  subject?: string;
  body: string;
  messageId: string;
  conversationId: string;
  replyToMessageId?: string | undefined;
  /** Creation time in ms; whole seconds are kept, and the envelope expires five minutes later. */
  createdAt: number;
  deliveryOrigin?: string | undefined;
  observedInboundMode?: string | undefined;
}

const present = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/** The party's identity fields, each only when non-empty (the contract never sends ""). */
function ref(party: SealParty): { did: string; address?: string; stable_id?: string; team_id?: string } {
  const address = present(party.address);
  const stableId = present(party.stableId);
  const teamId = present(party.teamId);
  return {
    ...(address ? { address } : {}),
    did: party.did.trim(),
    ...(stableId ? { stable_id: stableId } : {}),
    ...(teamId ? { team_id: teamId } : {}),
  };
}

/** The sender's signing key, as custody lends it: its did:key, and an Ed25519 signature with it. */
export interface EnvelopeSigner {
  did: string;
  sign(bytes: Buffer): Uint8Array;
}

/** Checks a key assertion: verifyKeyAssertion, or a cache of verified signatures (verified-key-assertions.ts). */
export type AssertionVerifier = (assertion: EncryptionKeyAssertion, expect: KeyAssertionExpectation) => VerifiedEncryptionKey;

/** An envelope made and encrypted, all but its signature; `bytes` are what the sender signs. */
export interface PreparedEnvelope {
  envelope: Omit<E2eeEnvelope, 'signature'>;
  bytes: Buffer;
}

/** Builds and signs an envelope: `prepareEnvelope`, then `signPreparedEnvelope`. */
export function sealEnvelope(request: SealRequest, signer: EnvelopeSigner, verify: AssertionVerifier = verifyKeyAssertion): E2eeEnvelope {
  return signPreparedEnvelope(prepareEnvelope(request, verify), signer);
}

/**
 * Everything of a seal but the signature: the keys verified, the content encrypted, a wrap per
 * recipient and the sender's copy. It needs nothing secret (the wraps take public keys only).
 */
export function prepareEnvelope(request: SealRequest, verify: AssertionVerifier = verifyKeyAssertion): PreparedEnvelope {
  if (request.kind === 'mail' && request.recipients.length !== 1) throw new RangeError('E2EE mail has exactly one delivery recipient');
  if (request.recipients.length === 0) throw new RangeError('an E2EE message needs at least one recipient');
  const messageId = request.messageId.trim();
  const conversationId = request.conversationId.trim();
  if (!messageId || !conversationId) throw new RangeError('message_id and conversation_id are required');
  const createdMs = Math.floor(request.createdAt / 1000) * 1000;
  const createdAt = formatContractTime(createdMs);

  const senderKey = verify(request.sender.encryptionKey, {
    currentDidKey: request.sender.did,
    stableId: present(request.sender.stableId),
    now: createdMs,
  });
  const from: SenderRef = { ...ref(request.sender), encryption_key_id: senderKey.encryptionKeyId };
  const recipientKeys = request.recipients.map((party) =>
    verify(party.encryptionKey, { currentDidKey: party.did, stableId: present(party.stableId), now: createdMs }),
  );

  const reply = present(request.replyToMessageId);
  const inner: InnerPayload = {
    inner_version: INNER_VERSION,
    kind: request.kind,
    message_id: messageId,
    conversation_id: conversationId,
    ...(reply ? { reply_to_message_id: reply } : {}),
    created_at: createdAt,
    from: identityRef(from),
    recipients: request.recipients.map((party) => identityRef(ref(party))),
    ...(request.kind === 'mail' ? { subject: request.subject ?? '' } : {}),
    body: request.body,
  };
  const plaintext = innerPayloadBytes(inner);

  const contentKey = newContentKey();
  const nonce = newContentNonce();
  const binding = { messageId, conversationId, sender: from };
  const recipients: RecipientRef[] = [];
  const wraps: KeyWrap[] = [];
  request.recipients.forEach((party, i) => {
    const key = recipientKeys[i]!;
    const recipient = { ...ref(party), encryption_key_id: key.encryptionKeyId };
    const wrap = sealKeyWrap(contentKey, { ...binding, recipient, purpose: 'delivery' }, key.publicKey);
    wraps.push(wrap);
    recipients.push({ ...recipient, wrap_id: wrap.wrap_id });
  });
  wraps.push(sealKeyWrap(contentKey, { ...binding, recipient: from, purpose: 'sender_copy' }, senderKey.publicKey));

  const refs = recipients.map((r) => r.address ?? r.stable_id ?? r.did);
  const routing: Routing = {
    to: refs.join(','),
    ...(recipients.length === 1 ? { to_did: recipients[0]!.did } : {}),
    ...(recipients.length === 1 && recipients[0]!.stable_id ? { to_stable_id: recipients[0]!.stable_id } : {}),
    ...(present(request.deliveryOrigin) ? { delivery_origin: present(request.deliveryOrigin) } : {}),
    ...(present(request.observedInboundMode) ? { sender_observed_inbound_mode: present(request.observedInboundMode) } : {}),
  };

  const unsealed: Omit<E2eeEnvelope, 'signature' | 'ciphertext'> = {
    message_version: MESSAGE_VERSION,
    envelope_type: ENVELOPE_TYPE,
    kind: request.kind,
    message_id: messageId,
    conversation_id: conversationId,
    ...(reply ? { reply_to_message_id: reply } : {}),
    created_at: createdAt,
    expires_at: formatContractTime(createdMs + INGESTION_WINDOW_MS),
    from,
    // A sender without an address cannot be looked up; the recipient replies to the key it carries.
    ...(from.address ? {} : { sender_encryption_key: request.sender.encryptionKey }),
    recipients,
    routing,
    policy: { requires_e2ee: true, legacy_plaintext_allowed: false },
    crypto: {
      suite: E2EE_SUITE,
      content_nonce: encodeRaw(nonce),
      // Filled in after encryption; the associated data leaves it out.
      ciphertext_hash: '',
      ciphertext_size: plaintext.length + 16,
      inner_header_hash: innerHeaderHash(inner),
      key_wraps_hash: keyWrapsHash(wraps),
    },
    key_wraps: wraps,
    signing_key_id: from.did,
  };
  const ciphertext = sealContent(contentKey, nonce, plaintext, envelopeAssociatedData(unsealed));
  const signed: Omit<E2eeEnvelope, 'signature'> = {
    ...unsealed,
    crypto: { ...unsealed.crypto, ciphertext_hash: contractHash(ciphertext) },
    ciphertext: encodeRaw(ciphertext),
  };
  return { envelope: signed, bytes: envelopeSigningBytes(signed) };
}

/** Signs a prepared envelope with the sender's key; a key that is not `from.did`'s signs nothing. */
export function signPreparedEnvelope({ envelope, bytes }: PreparedEnvelope, signer: EnvelopeSigner): E2eeEnvelope {
  if (signer.did !== envelope.from.did) throw new Error('the signing key does not belong to the sender did');
  return { ...envelope, signature: encodeRaw(signer.sign(bytes)) };
}
