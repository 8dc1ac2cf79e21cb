/**
 * Accepting an E2EE v2 envelope for storage or routing, without reading it: what a node checks
 * when a local client that holds its own keys posts an envelope, or another node delivers one.
 * Nothing is stored, routed or announced before every check here passed.
 *
 * The checks and their order are upstream's server's (its e2ee_messages.py,
 * validate_e2ee_message_envelope), with one addition the contract asks for and upstream's server
 * does not yet do: an all-zero content nonce is refused. Who the sender and recipients are comes
 * from the route (the authenticated caller, the resolved recipients), never from the envelope: the
 * envelope must name exactly them.
 */
import { decodeRaw, parseContractTime } from './encoding.ts';
import { INGESTION_WINDOW_MS, KEY_WRAP_ALGORITHM, type E2eeEnvelope, type KeyWrap, type MessageKind } from './envelope.ts';
import { EnvelopeBindingError, EnvelopePolicyError, KeyAssertionError, MalformedEnvelopeError, StaleEnvelopeError, UnsupportedSuiteError } from './errors.ts';
import { isZero } from './content-cipher.ts';
import { verifyKeyAssertion } from './key-assertion.ts';
import { checkEnvelopeIntegrity } from './open-envelope.ts';

export interface ExpectedParty {
  did: string;
  stableId?: string | null | undefined;
  address?: string | null | undefined;
}

export interface IngestionExpectation {
  kind: MessageKind;
  messageId: string;
  conversationId: string;
  sender: ExpectedParty;
  recipients: readonly ExpectedParty[];
  /** The node's clock, in ms. */
  now: number;
}

/** Within five minutes either way, and an `expires_at` no further than five minutes after `created_at`. */
export function checkFreshness(envelope: E2eeEnvelope, now: number): void {
  const created = parseContractTime(envelope.created_at);
  const expires = parseContractTime(envelope.expires_at);
  if (created === null || expires === null) throw new MalformedEnvelopeError('created_at and expires_at must be RFC 3339 with an offset');
  if (expires <= created) throw new StaleEnvelopeError('expires_at must be after created_at');
  if (expires - created > INGESTION_WINDOW_MS) throw new StaleEnvelopeError('expires_at is beyond the five-minute ingestion window');
  if (now > expires) throw new StaleEnvelopeError('envelope expired');
  if (created - now > INGESTION_WINDOW_MS) throw new StaleEnvelopeError('created_at is too far in the future');
}

/**
 * A recipient identified only by a did:key carries no address or stable id the envelope could be
 * held to: a transport hint is not identity authority (upstream skips the same two checks).
 */
function bindingOf(expected: ExpectedParty): { stableId: string; address: string } {
  const stableId = expected.stableId?.trim() ?? '';
  if (expected.did.startsWith('did:key:') && !stableId) return { stableId: '', address: '' };
  return { stableId, address: expected.address?.trim() ?? '' };
}

function checkSender(envelope: E2eeEnvelope, sender: ExpectedParty): void {
  const stableId = sender.stableId?.trim();
  if (envelope.from.did !== sender.did) throw new EnvelopeBindingError('from.did is not the sender');
  if (stableId && envelope.from.stable_id !== stableId) throw new EnvelopeBindingError('from.stable_id is not the sender');
  if (envelope.signing_key_id !== sender.did) throw new EnvelopeBindingError('signing_key_id is not the sender');
  const assertion = envelope.sender_encryption_key;
  if (assertion) {
    const created = parseContractTime(envelope.created_at) ?? Number.NaN;
    try {
      verifyKeyAssertion(assertion, { currentDidKey: sender.did, stableId, now: created });
    } catch (error) {
      if (error instanceof KeyAssertionError) throw new KeyAssertionError(`sender_encryption_key: ${error.message}`);
      throw error;
    }
    if (assertion.encryption_key_id !== envelope.from.encryption_key_id) throw new EnvelopeBindingError('sender_encryption_key is not from.encryption_key_id');
  }
}

function checkRecipients(envelope: E2eeEnvelope, expected: readonly ExpectedParty[]): void {
  if (expected.length === 0) throw new EnvelopeBindingError('an envelope needs at least one recipient');
  if (envelope.recipients.length !== expected.length) throw new EnvelopeBindingError('recipient count does not match the route');
  const expectedByDid = new Map(expected.map((party) => [party.did, party]));
  if (expectedByDid.size !== expected.length) throw new EnvelopeBindingError('the route names a recipient twice');
  const seen = new Set<string>();
  for (const recipient of envelope.recipients) {
    if (seen.has(recipient.did)) throw new EnvelopeBindingError('the envelope names a recipient twice');
    seen.add(recipient.did);
    const party = expectedByDid.get(recipient.did);
    if (!party) throw new EnvelopeBindingError('the envelope names a recipient the route does not');
    const { stableId, address } = bindingOf(party);
    if (stableId && recipient.stable_id !== stableId) throw new EnvelopeBindingError('recipient stable_id does not match the route');
    if (address && recipient.address !== address) throw new EnvelopeBindingError('recipient address does not match the route');
  }
}

function checkWraps(envelope: E2eeEnvelope, sender: ExpectedParty, expected: readonly ExpectedParty[]): void {
  for (const wrap of envelope.key_wraps) if (wrap.algorithm !== KEY_WRAP_ALGORITHM) throw new UnsupportedSuiteError('unsupported key wrap algorithm');
  const delivery = envelope.key_wraps.filter((w) => w.wrap_purpose === 'delivery');
  const copies = envelope.key_wraps.filter((w) => w.wrap_purpose === 'sender_copy');
  if (delivery.length !== envelope.recipients.length) throw new EnvelopeBindingError('one delivery key wrap per recipient is required');
  if (copies.length !== 1) throw new EnvelopeBindingError('exactly one sender_copy key wrap is required');
  const byDid = new Map<string, KeyWrap>();
  for (const wrap of delivery) {
    const did = wrap.recipient_did ?? '';
    if (byDid.has(did)) throw new EnvelopeBindingError('two delivery key wraps for one recipient');
    byDid.set(did, wrap);
  }
  const expectedByDid = new Map(expected.map((party) => [party.did, party]));
  for (const recipient of envelope.recipients) {
    const wrap = byDid.get(recipient.did);
    if (!wrap) throw new EnvelopeBindingError('a recipient has no delivery key wrap');
    const { stableId, address } = bindingOf(expectedByDid.get(recipient.did)!);
    if (stableId && wrap.recipient_stable_id !== stableId) throw new EnvelopeBindingError('delivery key wrap stable id does not match its recipient');
    if (address && wrap.recipient_address !== address) throw new EnvelopeBindingError('delivery key wrap address does not match its recipient');
    if (wrap.recipient_encryption_key_id !== recipient.encryption_key_id)
      throw new EnvelopeBindingError('delivery key wrap is sealed to another key than its recipient names');
    if (wrap.wrap_id !== recipient.wrap_id) throw new EnvelopeBindingError('delivery key wrap id does not match its recipient');
  }
  const copy = copies[0]!;
  const stableId = sender.stableId?.trim();
  if (copy.sender_did !== sender.did || copy.recipient_did !== sender.did) throw new EnvelopeBindingError('sender_copy key wrap is not the sender’s');
  if (stableId && (copy.sender_stable_id !== stableId || copy.recipient_stable_id !== stableId))
    throw new EnvelopeBindingError('sender_copy key wrap is not the sender’s');
  if (copy.recipient_encryption_key_id !== envelope.from.encryption_key_id)
    throw new EnvelopeBindingError('sender_copy key wrap is not sealed to the sender’s key');
}

/** Throws an E2eeError unless the envelope may be stored and routed as the route describes it. */
export function verifyEnvelopeForIngestion(envelope: E2eeEnvelope, expect: IngestionExpectation): void {
  if (envelope.kind !== expect.kind) throw new EnvelopeBindingError(`envelope kind must be ${expect.kind}`);
  if (envelope.message_id !== expect.messageId) throw new EnvelopeBindingError('envelope message_id does not match the request');
  if (envelope.conversation_id !== expect.conversationId) throw new EnvelopeBindingError('envelope conversation_id does not match the request');
  if (!envelope.policy.requires_e2ee || envelope.policy.legacy_plaintext_allowed)
    throw new EnvelopePolicyError('an encrypted envelope must require E2EE and forbid legacy plaintext');
  checkFreshness(envelope, expect.now);
  checkSender(envelope, expect.sender);
  checkRecipients(envelope, expect.recipients);
  const nonce = decodeRaw(envelope.crypto.content_nonce);
  if (!nonce || isZero(nonce)) throw new MalformedEnvelopeError('crypto.content_nonce must not be all zero');
  checkWraps(envelope, expect.sender, expect.recipients);
  // The suite, the signature, and the ciphertext and key-wrap hashes it covers.
  checkEnvelopeIntegrity(envelope);
}
