/**
 * The node as the end-to-end encryption client of the identities whose keys it holds
 * (docs/adr/0008-end-to-end-mail.md), and the gate for envelopes that clients holding their own
 * keys post, for mail and chat alike.
 *
 * - Sealing: a custodial sender's message to recipients who publish a valid key becomes a v2
 *   envelope (server/crypto/e2ee/seal-envelope.ts), signed in custody with the sender's key, with
 *   a delivery wrap per recipient and the sender's own copy.
 * - Opening: for a custodial reader, with the reader's key in custody (current or archived), by
 *   the wrap sealed to it. The private key never leaves custody: only its agreement is used.
 * - Ingesting: a client's envelope is checked as the contract says before anything is stored
 *   (verify-envelope.ts); each refusal is a 4xx of its own, naming fields, never content.
 */
import { conflict, invalid, ServiceError } from '../../../errors.ts';
import type { NodeContext } from '../../../context.ts';
import { sha256Hex } from '../../../crypto/encoding.ts';
import { parseEnvelope, type E2eeEnvelope, type MessageKind } from '../../../crypto/e2ee/envelope.ts';
import {
  E2eeError,
  EnvelopeBindingError,
  EnvelopePolicyError,
  EnvelopeSignatureError,
  KeyAssertionError,
  NotARecipientError,
  StaleEnvelopeError,
  UnsupportedEnvelopeVersionError,
  UnsupportedSuiteError,
} from '../../../crypto/e2ee/errors.ts';
import type { EncryptionKeyAssertion } from '../../../crypto/e2ee/key-assertion.ts';
import type { InnerPayload } from '../../../crypto/e2ee/inner-payload.ts';
import { checkEnvelopeIntegrity, openEnvelope } from '../../../crypto/e2ee/open-envelope.ts';
import { sealEnvelope, type EnvelopeSigner, type SealParty, type SealRequest } from '../../../crypto/e2ee/seal-envelope.ts';
import { verifyEnvelopeForIngestion, type ExpectedParty } from '../../../crypto/e2ee/verify-envelope.ts';
import type { MessageVerificationStatus } from '../../../crypto/message-signing.ts';
import { MemoCache } from '../../../memo-cache.ts';
import type { IdentityEncryptionKeys } from '../identities/encryption-keys.ts';
import type { ContentMode, SendContentMode, StoredEnvelope } from '../../../../contract/core/end-to-end.ts';
import type { AgentRow } from '../identities/store/agents.ts';
import type { Party } from './participants.ts';
import { assertAcceptsPlaintext } from './plaintext-policy.ts';
import { assertNodeMaySign, signatureStatus, type SignedAhead } from './signing.ts';

/** What a message says, as its parties read it. */
export interface MessageContent {
  subject?: string;
  body: string;
}

/** The ids an envelope is bound to. */
export interface EnvelopeIds {
  messageId: string;
  conversationId: string;
  replyToMessageId?: string | undefined;
}

/** Whom a message is sealed for: its identity fields and its key. */
export interface SealRecipient {
  address: string | null;
  didKey: string;
  stableId: string | null;
  key: EncryptionKeyAssertion;
}

/** How a message to one recipient is sent: sealed by the node, as the client's envelope, or as plaintext. */
export type SendMode = { kind: 'seal'; recipientKey: EncryptionKeyAssertion } | { kind: 'envelope' } | { kind: 'plaintext' };

/**
 * How a chat message to every other participant of its session goes: one envelope sealed by the
 * node for all of them (each with its key), the client's envelope, or plaintext.
 */
export type ChatSendMode = { kind: 'seal'; recipients: { party: Party; key: EncryptionKeyAssertion }[] } | { kind: 'envelope' } | { kind: 'plaintext' };

/** The one recipient on another node a client's envelope is for: its address's current keys and the encryption key its node publishes now. */
export interface RemoteEnvelopeRecipient {
  address: string;
  didKey: string;
  stableId: string;
  encryptionKeyId: string;
}

/** The parts of a send request that choose its mode. */
export interface SendModeRequest {
  content_mode?: SendContentMode | undefined;
  encrypted_envelope?: unknown;
}

export class EndToEnd {
  readonly #ctx: NodeContext;
  readonly #keys: IdentityEncryptionKeys;
  /** Stored envelopes' signature checks, by the envelope's hash: reads serve the same mail again and again. */
  readonly #verdicts = new MemoCache<boolean>(20_000);

  constructor(ctx: NodeContext, keys: IdentityEncryptionKeys) {
    this.#ctx = ctx;
    this.#keys = keys;
  }

  /** The party's current key, verified now; null when it publishes none that verifies. */
  keyOf(party: Party): EncryptionKeyAssertion | null {
    return this.#keys.current(party.agent);
  }

  /**
   * How a message from `sender` to a recipient on this node goes (no downgrade):
   * - a client's envelope goes as it is (checked by `ingest`);
   * - a sender whose keys the node holds seals to a recipient that publishes a key, always: asking
   *   for plaintext between two parties that can both encrypt is refused;
   * - plaintext only by name, to a recipient without a key, or from a client that signs its own
   *   plaintext (an older client's choice, marked "not end-to-end encrypted" for its reader).
   * `knownKey`: the recipient's current key, when the caller knows nothing changed since it asked.
   */
  modeFor(sender: Party, recipient: Party, request: SendModeRequest, clientSigned: boolean, knownKey?: EncryptionKeyAssertion): SendMode {
    if (request.encrypted_envelope !== undefined) return { kind: 'envelope' };
    // A sender holding its own keys sends what it signed or sealed itself; the node makes neither for it.
    if (!clientSigned) assertNodeMaySign(sender);
    const recipientKey = knownKey ?? this.keyOf(recipient);
    if (clientSigned && request.content_mode !== 'encrypted_v2') return plaintextTo(recipient);
    if (recipientKey !== null) {
      if (request.content_mode === 'legacy_plaintext_v1') {
        throw conflict(
          'SVC_ERR_E2EE_REQUIRED',
          `${recipient.address ?? recipient.alias} publishes an encryption key: the message is sent end-to-end encrypted, never as plaintext`,
        );
      }
      return { kind: 'seal', recipientKey };
    }
    if (request.content_mode === 'legacy_plaintext_v1') return plaintextTo(recipient);
    throw conflict(
      'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING',
      `${recipient.address ?? recipient.alias} publishes no valid encryption key, so nothing was sent. To send it readable by the nodes it crosses, say so: content_mode "legacy_plaintext_v1"`,
    );
  }

  /**
   * How a chat message from `sender` to the other participants of its session (all of this node)
   * goes, as `modeFor` decides for one recipient but for the group at once, since a chat message
   * is one message to them all:
   * - a client's envelope goes as it is (checked by `receiveChat`);
   * - a client that signs its own plaintext sends plaintext, to participants that accept it;
   * - a sender whose keys the node holds seals when every other participant publishes a key, and
   *   asking for plaintext then is refused; when any publishes none, nothing is sent (naming who)
   *   unless the send names plaintext, which goes only to participants that accept it.
   */
  chatModeFor(sender: Party, others: readonly Party[], request: SendModeRequest, clientSigned: boolean): ChatSendMode {
    if (request.encrypted_envelope !== undefined) return { kind: 'envelope' };
    if (!clientSigned) assertNodeMaySign(sender);
    const plaintext = (): ChatSendMode => {
      for (const other of others) assertAcceptsPlaintext(other);
      return { kind: 'plaintext' };
    };
    if (clientSigned && request.content_mode !== 'encrypted_v2') return plaintext();
    const keyed = others.map((party) => ({ party, key: this.keyOf(party) }));
    const missing = keyed.filter(({ key }) => key === null).map(({ party }) => party.address ?? party.alias);
    if (missing.length === 0) {
      if (request.content_mode === 'legacy_plaintext_v1') {
        throw conflict('SVC_ERR_E2EE_REQUIRED', 'every participant publishes an encryption key: the message is sent end-to-end encrypted, never as plaintext');
      }
      return { kind: 'seal', recipients: keyed.map(({ party, key }) => ({ party, key: key! })) };
    }
    if (request.content_mode === 'legacy_plaintext_v1') return plaintext();
    throw conflict(
      'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING',
      `${missing.join(', ')} ${missing.length === 1 ? 'publishes' : 'publish'} no valid encryption key, so nothing was sent. To send it readable by the nodes it crosses, say so: content_mode "legacy_plaintext_v1"`,
    );
  }

  /**
   * A custodial sender's message to `recipients` (each with its key, verified again here at the
   * message's time), signed in custody. A recipient is an identity of this node or one on another
   * node, named by its address and keys. `ahead`: the same message sealed a moment before
   * (`sealAhead`), taken when it was made from exactly what this seal would be made from.
   */
  seal(
    kind: MessageKind,
    sender: Party,
    recipients: readonly SealRecipient[],
    content: MessageContent,
    ids: EnvelopeIds,
    createdAt: string,
    ahead?: SealedAhead | null,
  ): E2eeEnvelope {
    const request = this.#sealRequest(kind, sender, recipients, content, ids, createdAt);
    if (ahead != null && sameSeal(ahead.request, request)) return ahead.envelope;
    return sealEnvelope(request, this.#signer(sender), (assertion, expect) => this.#keys.verifyAssertion(assertion, expect));
  }

  /**
   * `seal`, made before the send's transaction in the seal worker (crypto/e2ee/seal-pool.ts),
   * while this thread serves the requests around it, and signed there with the sender's key,
   * which custody lends it for that one seal (custody.sealBeside); `plaintext`, the bytes of the
   * plaintext signature the send makes beside the envelope, is signed there too. The send's own
   * `seal` and signature take them if nothing they are made from changed meanwhile (a key
   * rotated, an address moved), and are made afresh otherwise. Null when the worker did not make
   * it, or when the sender cannot seal (the send then says why).
   */
  async sealAhead(
    kind: MessageKind,
    sender: Party,
    recipients: readonly SealRecipient[],
    content: MessageContent,
    ids: EnvelopeIds,
    createdAt: string,
    plaintext: Buffer,
  ): Promise<SealedAhead | null> {
    try {
      const request = this.#sealRequest(kind, sender, recipients, content, ids, createdAt);
      const made = await this.#ctx.custody.sealBeside(sender.agent.key_id, request, plaintext);
      return made === null ? null : { request, createdAt, envelope: made.envelope, plaintext: { bytes: plaintext, signature: made.alsoSignature } };
    } catch (error) {
      // No key to seal or sign with (any more): the send itself refuses it, with that reason.
      if (error instanceof ServiceError) return null;
      throw error;
    }
  }

  /** The sender's signing key in custody, as the envelope's signer. */
  #signer(sender: Party): EnvelopeSigner {
    const keyId = sender.agent.key_id;
    return { did: this.#ctx.custody.didKey(keyId), sign: (bytes) => this.#ctx.custody.sign(keyId, bytes) };
  }

  /** What `sealEnvelope` is asked for: the parties with their keys, the message, its ids and time. */
  #sealRequest(
    kind: MessageKind,
    sender: Party,
    recipients: readonly SealRecipient[],
    content: MessageContent,
    ids: EnvelopeIds,
    createdAt: string,
  ): SealRequest {
    const senderKey = this.keyOf(sender);
    if (senderKey === null) {
      throw conflict('SVC_ERR_E2EE_SENDER_KEY_MISSING', `${sender.address ?? sender.alias} has no valid encryption key for its own copy of the message`);
    }
    const party = (p: Pick<Party, 'address' | 'didKey' | 'stableId'>, key: EncryptionKeyAssertion): SealParty => ({
      address: p.address ?? undefined,
      did: p.didKey,
      stableId: p.stableId ?? undefined,
      encryptionKey: key,
    });
    return {
      kind,
      sender: party(sender, senderKey),
      recipients: recipients.map((r) => party(r, r.key)),
      ...(kind === 'mail' ? { subject: content.subject ?? '' } : {}),
      body: content.body,
      messageId: ids.messageId,
      conversationId: ids.conversationId,
      replyToMessageId: ids.replyToMessageId,
      createdAt: Date.parse(createdAt),
    };
  }

  /**
   * An envelope's recipient entry for `party` is sealed to a key `party` published (current, or
   * archived after a rotation the sender had not seen yet), never to a key someone substituted;
   * else a 422.
   */
  #assertSealedToPublishedKey(party: Party, envelope: E2eeEnvelope): void {
    const keyId = envelope.recipients.find((r) => r.did === party.didKey)?.encryption_key_id;
    if (keyId !== undefined && this.#keys.published(party.agent.agent_id, keyId)) return;
    throw invalid('SVC_ERR_E2EE_ENVELOPE_MISMATCH', `the envelope is sealed to a key ${party.address ?? party.alias} never published (recipient_key_mismatch)`);
  }

  /**
   * A client's envelope, checked before anything is stored: its form, then everything the
   * contract checks at ingestion against what the request says (kind, ids, sender, recipients,
   * freshness at the node's time, wraps, suite, hashes, signature). Throws a 4xx ServiceError.
   */
  ingest(
    value: unknown,
    expect: { kind: MessageKind; messageId: string; conversationId: string; sender: ExpectedParty; recipients: ExpectedParty[] },
  ): E2eeEnvelope {
    try {
      const envelope = parseEnvelope(value);
      verifyEnvelopeForIngestion(envelope, { ...expect, now: this.#ctx.clock.now().getTime() });
      return envelope;
    } catch (error) {
      throw refusal(error);
    }
  }

  /**
   * A mail envelope that arrived for `recipient` (posted by a client, or from another node),
   * checked as `ingest` checks it and sealed to a key the recipient published, never a substituted
   * one; opened when the node holds the recipient's keys (null when it holds its own). Throws a
   * 4xx ServiceError.
   */
  receiveMail(
    value: unknown,
    ids: { messageId: string; conversationId: string },
    sender: ExpectedParty,
    recipient: Party,
  ): { envelope: E2eeEnvelope; opened: MessageContent | null } {
    const envelope = this.ingest(value, {
      kind: 'mail',
      ...ids,
      sender,
      recipients: [{ did: recipient.didKey, stableId: recipient.stableId, address: recipient.address }],
    });
    this.#assertSealedToPublishedKey(recipient, envelope);
    if (recipient.agent.custody === 'self') return { envelope, opened: null };
    const inner = this.open(recipient, envelope);
    return { envelope, opened: { subject: inner.subject ?? '', body: inner.body } };
  }

  /** `receiveForRemote` for a mail (its thread as the conversation); mail's send calls it. */
  receiveMailForRemote(
    value: unknown,
    ids: { messageId: string; conversationId: string },
    sender: ExpectedParty,
    recipient: RemoteEnvelopeRecipient,
  ): E2eeEnvelope {
    return this.receiveForRemote('mail', value, ids, sender, recipient);
  }

  /**
   * A client's envelope (mail, or chat: the sender's session as its conversation) for an identity
   * on another node, checked as `ingest` checks it, and sealed to the key that identity's own node
   * publishes for it now (`recipient`, found and verified by federation/remote-encryption-keys.ts),
   * never a substituted one; its `from.address` must be the sender's address, which the receiving
   * node checks the sender by. The node cannot open it (it holds neither key) and keeps nothing
   * readable of it. Throws a 4xx ServiceError.
   */
  receiveForRemote(
    kind: MessageKind,
    value: unknown,
    ids: { messageId: string; conversationId: string },
    sender: ExpectedParty,
    recipient: RemoteEnvelopeRecipient,
  ): E2eeEnvelope {
    const envelope = this.ingest(value, {
      kind,
      ...ids,
      sender,
      recipients: [{ did: recipient.didKey, stableId: recipient.stableId, address: recipient.address }],
    });
    if ((envelope.from.address ?? '') !== (sender.address ?? '')) {
      throw invalid('SVC_ERR_E2EE_ENVELOPE_MISMATCH', `the envelope's from.address is not the sender's address ${sender.address ?? ''} (binding_mismatch)`);
    }
    if (envelope.recipients[0]?.encryption_key_id !== recipient.encryptionKeyId) {
      throw invalid(
        'SVC_ERR_E2EE_ENVELOPE_MISMATCH',
        `the envelope is not sealed to the key ${recipient.address}'s node publishes for it now (recipient_key_mismatch)`,
      );
    }
    return envelope;
  }

  /**
   * The recipient's side of an envelope that arrived from another node, checked once its sender
   * is proven and before the ingestion checks, as the contract orders them, a missing key apart
   * from a wrong one: a recipient that publishes no valid key now (409
   * SVC_ERR_E2EE_RECIPIENT_KEY_MISSING), or an envelope sealed to a key it never published (422
   * SVC_ERR_E2EE_ENVELOPE_MISMATCH).
   */
  checkRecipientKey(value: unknown, recipient: Party): void {
    if (this.keyOf(recipient) === null) {
      throw conflict(
        'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING',
        `${recipient.address ?? recipient.alias} publishes no valid encryption key, so it takes no sealed message`,
      );
    }
    let envelope: E2eeEnvelope;
    try {
      envelope = parseEnvelope(value);
    } catch (error) {
      throw refusal(error);
    }
    this.#assertSealedToPublishedKey(recipient, envelope);
  }

  /**
   * A chat envelope a client posted into a session, checked as `ingest` checks it (kind chat, the
   * session as its conversation, the other participants exactly as its recipients) and each
   * recipient's wrap sealed to a key that recipient published; then opened for each recipient
   * whose keys the node holds, each with its own wrap: AES-GCM is not key-committing, so one
   * wrap opening proves nothing of what another opens to. Throws a 4xx ServiceError.
   */
  receiveChat(
    value: unknown,
    ids: { messageId: string; conversationId: string },
    sender: ExpectedParty,
    recipients: readonly Party[],
  ): { envelope: E2eeEnvelope; opened: { agentId: string; content: MessageContent }[] } {
    const envelope = this.ingest(value, {
      kind: 'chat',
      ...ids,
      sender,
      recipients: recipients.map((r) => ({ did: r.didKey, stableId: r.stableId, address: r.address })),
    });
    for (const recipient of recipients) this.#assertSealedToPublishedKey(recipient, envelope);
    const opened = recipients
      .filter((recipient) => recipient.agent.custody !== 'self')
      .map((recipient) => ({ agentId: recipient.agent.agent_id, content: { body: this.open(recipient, envelope).body } }));
    return { envelope, opened };
  }

  /**
   * Opens an envelope for `reader`, an identity whose keys the node holds, with whichever of its
   * keys (current or archived) a wrap is sealed to. Throws a 4xx ServiceError when it cannot.
   */
  open(reader: Party, envelope: E2eeEnvelope): InnerPayload {
    try {
      for (const keyId of new Set(envelope.key_wraps.map((wrap) => wrap.recipient_encryption_key_id))) {
        const key = this.#keys.agreement(reader.agent.agent_id, keyId);
        if (key === null) continue;
        return openEnvelope(envelope, { did: reader.didKey, stableId: reader.stableId ?? undefined, address: reader.address ?? undefined, key }).inner;
      }
      throw new NotARecipientError('no key wrap is sealed to a key the node holds for the reader');
    } catch (error) {
      throw refusal(error);
    }
  }

  /**
   * The signature a reader is given beside a stored message (`read`: how it reads it, asRead), and
   * the node's verdict. A reader with a plaintext signature of its own (the node sealed the
   * message, and signed it as plaintext too) gets that one. A reader the node opened an envelope
   * for with no such signature (the envelope came from a client or another node) gets none: the
   * envelope's signature is over bytes it is not given, and a client checking it against the
   * fields would call it forged; the verdict is then the envelope's.
   */
  signatureAsRead(
    row: { from_did: string; signature: string; signed_payload: string; encrypted_envelope: string | null },
    read: Pick<EncryptionAsRead, 'end_to_end' | 'content_mode'>,
  ): { signature: string; signature_status: MessageVerificationStatus } {
    const envelopeOnly = read.end_to_end && row.signed_payload === '' && row.encrypted_envelope !== null;
    return {
      signature: read.content_mode === 'server_readable_hosted' && row.signed_payload === '' ? '' : row.signature,
      signature_status: envelopeOnly ? (this.storedEnvelopeVerifies(row.encrypted_envelope!) ? 'verified' : 'failed') : signatureStatus(row),
    };
  }

  /** Whether a stored envelope's signature (and the hashes it covers) still verify: its reader's signature status. */
  storedEnvelopeVerifies(json: string): boolean {
    return this.#verdicts.get(sha256Hex(json), () => {
      try {
        checkEnvelopeIntegrity(parseEnvelope(JSON.parse(json)));
        return true;
      } catch (error) {
        if (error instanceof E2eeError) return false;
        throw error;
      }
    });
  }
}

/** A message sealed before its send's transaction (`EndToEnd.sealAhead`), with what it was made from. */
export interface SealedAhead {
  request: SealRequest;
  /** The message's time as the node writes it (the plaintext signature beside the envelope repeats it). */
  createdAt: string;
  /** The plaintext signature beside the envelope, made with it, and the bytes it signs. */
  plaintext: SignedAhead;
  envelope: E2eeEnvelope;
}

/** Two seal requests make the same envelope: the same message, ids and time, the same parties with the same keys. */
function sameSeal(a: SealRequest, b: SealRequest): boolean {
  const sameParty = (x: SealParty, y: SealParty): boolean =>
    x.did === y.did &&
    x.address === y.address &&
    x.stableId === y.stableId &&
    x.teamId === y.teamId &&
    x.encryptionKey.encryption_key_id === y.encryptionKey.encryption_key_id &&
    x.encryptionKey.signature === y.encryptionKey.signature;
  return (
    a.kind === b.kind &&
    a.messageId === b.messageId &&
    a.conversationId === b.conversationId &&
    a.replyToMessageId === b.replyToMessageId &&
    a.createdAt === b.createdAt &&
    a.subject === b.subject &&
    a.body === b.body &&
    a.deliveryOrigin === b.deliveryOrigin &&
    a.observedInboundMode === b.observedInboundMode &&
    sameParty(a.sender, b.sender) &&
    a.recipients.length === b.recipients.length &&
    a.recipients.every((party, i) => sameParty(party, b.recipients[i]!))
  );
}

/** Plaintext to `recipient`, when it accepts plaintext (its setting; plaintext-policy.ts). */
function plaintextTo(recipient: Party): SendMode {
  assertAcceptsPlaintext(recipient);
  return { kind: 'plaintext' };
}

/** The 4xx for an E2EE refusal: its code by situation, its detail the core's words (fields, never content). */
export function refusal(error: unknown): ServiceError {
  if (!(error instanceof E2eeError)) throw error;
  const detail = `${error.message} (${error.category})`;
  if (error instanceof StaleEnvelopeError) return invalid('SVC_ERR_E2EE_ENVELOPE_STALE', detail);
  if (error instanceof UnsupportedEnvelopeVersionError || error instanceof UnsupportedSuiteError) return invalid('SVC_ERR_E2EE_ENVELOPE_UNSUPPORTED', detail);
  if (error instanceof EnvelopeBindingError || error instanceof EnvelopePolicyError || error instanceof NotARecipientError) {
    return invalid('SVC_ERR_E2EE_ENVELOPE_MISMATCH', detail);
  }
  if (error instanceof EnvelopeSignatureError) return invalid('SVC_ERR_E2EE_SIGNATURE_INVALID', detail);
  if (error instanceof KeyAssertionError) return invalid('SVC_ERR_ENCRYPTION_KEY_ASSERTION_INVALID', detail);
  return invalid('SVC_ERR_E2EE_ENVELOPE_MALFORMED', detail);
}

/** A stored message's encryption, as the answer to one reader says it (contract/core/end-to-end.ts, storedEncryptionFields). */
export interface EncryptionAsRead {
  end_to_end: boolean;
  content_mode: ContentMode;
  message_version: 1 | 2;
  encrypted_envelope?: StoredEnvelope;
  subject: string;
  body: string;
}

/**
 * How a stored message reads for `reader`: plaintext as it is; an envelope opened by the node for
 * a reader whose keys it holds (`subject`/`body` are then what it opened); for a reader holding its
 * own keys, the envelope itself, with nothing readable beside it.
 */
export function asRead(
  stored: { content_mode: 'legacy_plaintext_v1' | 'encrypted_v2'; encrypted_envelope: string | null; subject: string; body: string },
  reader: Pick<AgentRow, 'custody'>,
): EncryptionAsRead {
  if (stored.content_mode !== 'encrypted_v2' || stored.encrypted_envelope === null) {
    return { end_to_end: false, content_mode: 'legacy_plaintext_v1', message_version: 1, subject: stored.subject, body: stored.body };
  }
  if (reader.custody === 'self') {
    return {
      end_to_end: true,
      content_mode: 'encrypted_v2',
      message_version: 2,
      // Stored as the crypto core normalised it (E2eeEnvelope), which is this shape.
      encrypted_envelope: JSON.parse(stored.encrypted_envelope) as StoredEnvelope,
      subject: '',
      body: '',
    };
  }
  return { end_to_end: true, content_mode: 'server_readable_hosted', message_version: 2, subject: stored.subject, body: stored.body };
}

/**
 * The ids a client's envelope says it is bound to, read before it is checked (ingestion compares
 * them with the request's, and refuses a mismatch); '' for one it does not name.
 */
export function claimedIds(envelope: unknown): { messageId: string; conversationId: string } {
  const claimed = (typeof envelope === 'object' && envelope !== null ? envelope : {}) as { message_id?: unknown; conversation_id?: unknown };
  return {
    messageId: typeof claimed.message_id === 'string' ? claimed.message_id : '',
    conversationId: typeof claimed.conversation_id === 'string' ? claimed.conversation_id : '',
  };
}
