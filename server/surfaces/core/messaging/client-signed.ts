/**
 * Client-signed mail and chat (docs/adr/0004-custody-model.md,
 * docs/adr/0005-signed-messages-and-federation.md): the one place the node checks a signature a
 * client made over a message envelope. The sender signs the canonical envelope with its own key and
 * sends `signature` beside the exact `signed_payload` bytes; the node checks, in this order, that
 *
 * 1. `signing_key_id` (when given) is `from_did`, and `from_did` is the sender's current key;
 * 2. the signed `timestamp` is second precision and within ±300 s of the node's clock;
 * 3. the signature verifies over the `signed_payload` bytes (crypto/message-signing.ts);
 * 4. the payload says what the request says (type, sender, content, message_id, timestamp), and,
 *    once the recipients are known, names them (`to`, `to_did`, `to_stable_id`).
 *
 * What passes is stored as signed, under the client's message_id and timestamp, in place of a
 * signature made in custody. Replays: the signed message_id is the stored id, unique, and the
 * send's idempotency key (idempotency.ts), so a signature takes effect once: the identical send
 * again gets the first answer and delivers nothing, the id under other content is a 409, and
 * outside the window it is stale.
 */
import { REPLAY_WINDOW_SECONDS } from '../../../auth/timestamp.ts';
import type { NodeContext } from '../../../context.ts';
import { verifyMessageSignature } from '../../../crypto/message-signing.ts';
import { isSecondPrecisionTimestamp, parseRfc3339 } from '../../../crypto/timestamp.ts';
import type { ErrorCodeWithStatus } from '../../../../contract/errors.ts';
import { invalid, unauthorized } from '../../../errors.ts';
import type { Party } from './participants.ts';
import type { SignedMessage } from './signing.ts';

/** The transport fields of a client-signed send, as the request carried them. */
export interface ClientSignature {
  signature: string;
  signed_payload: string;
  from_did: string;
  signing_key_id: string | undefined;
  message_id: string;
  timestamp: string;
}

/** A request's client signature, or null when the node is to sign (the contract made the fields go together). */
export function clientSignatureOf(input: {
  signature?: string | undefined;
  signed_payload?: string | undefined;
  from_did?: string | undefined;
  signing_key_id?: string | undefined;
  message_id?: string | undefined;
  timestamp?: string | undefined;
}): ClientSignature | null {
  const { signature, signed_payload, from_did, signing_key_id, message_id, timestamp } = input;
  if (signature === undefined || signed_payload === undefined || from_did === undefined || message_id === undefined || timestamp === undefined) return null;
  return { signature, signed_payload, from_did, signing_key_id, message_id, timestamp };
}

/**
 * A `from_did` sent beside an envelope rather than a signature (upstream's clients name
 * themselves so) must be the sender's current did:key; the envelope's own signature is checked
 * against the same key when it is ingested.
 */
export function assertNamesItself(sender: { did_key: string }, input: { signature?: string | undefined; from_did?: string | undefined }): void {
  if (input.signature === undefined && input.from_did !== undefined && input.from_did !== sender.did_key) {
    throw invalid('SVC_ERR_SIGNER_MISMATCH', 'from_did must match the authenticated sender (its current did:key)');
  }
}

/** What the signed envelope must say besides its addressing, as the request says it. */
export type SignedContent =
  | { type: 'mail'; subject: string; body: string; priority: string }
  | { type: 'chat'; body: string; reply_to: string | null; wait_seconds: number | null; hang_on: boolean; sender_leaving: boolean };

/** A checked client signature: the message as stored, and the payload for the recipient check. */
export interface VerifiedClientMessage {
  signed: SignedMessage;
  payload: Record<string, unknown>;
}

const mismatch = (what: string) => invalid('SVC_ERR_SIGNED_PAYLOAD_MISMATCH', `signed_payload ${what}`);
const refuse = (code: ErrorCodeWithStatus<401>, detail: string) => unauthorized(code, detail, 'Signature');
const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** Checks 1-4 (all but the recipients); throws the refusal. */
export function verifyClientSigned(ctx: NodeContext, sender: Party, sig: ClientSignature, content: SignedContent): VerifiedClientMessage {
  if (sig.signing_key_id !== undefined && sig.signing_key_id !== '' && sig.signing_key_id !== sig.from_did) {
    throw invalid('SVC_ERR_SIGNING_KEY_MISMATCH', `signing_key_id ${sig.signing_key_id} is not from_did ${sig.from_did}: they name the same key`);
  }
  if (sig.from_did !== sender.didKey) throw invalid('SVC_ERR_SIGNER_MISMATCH', 'from_did must match the authenticated sender (its current did:key)');
  if (!isSecondPrecisionTimestamp(sig.timestamp)) {
    throw invalid('SVC_ERR_VALIDATION', [
      { loc: ['body', 'timestamp'], msg: 'timestamp must be RFC 3339 at second precision with a timezone', type: 'value_error' },
    ]);
  }
  const at = parseRfc3339(sig.timestamp) ?? 0;
  if (Math.abs(ctx.clock.now().getTime() - at) > REPLAY_WINDOW_SECONDS * 1000) {
    throw refuse(
      'SVC_ERR_MESSAGE_TIMESTAMP_STALE',
      `timestamp ${sig.timestamp} is outside the allowed ${REPLAY_WINDOW_SECONDS} s window: sign the message again now`,
    );
  }
  if (verifyMessageSignature(sig) !== 'verified')
    throw refuse('SVC_ERR_MESSAGE_SIGNATURE_INVALID', 'signature does not verify over signed_payload with from_did');

  let parsed: unknown;
  try {
    parsed = JSON.parse(sig.signed_payload);
  } catch {
    throw mismatch('must be valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw mismatch('must be a JSON object');
  const payload = parsed as Record<string, unknown>;
  if (payload.type !== content.type) throw mismatch(`type must be ${content.type}`);
  const from = text(payload.from);
  const senderNames = [sender.alias, sender.address, sender.didKey, sender.stableId].filter((v): v is string => typeof v === 'string' && v !== '');
  if (from !== '' && !senderNames.includes(from)) throw mismatch('from must match the authenticated sender');
  if (payload.from_did !== sig.from_did) throw mismatch('from_did must match the authenticated sender');
  const fromStableId = text(payload.from_stable_id);
  if (fromStableId !== '' && fromStableId !== (sender.stableId ?? '')) throw mismatch('from_stable_id must match the authenticated sender');
  if (payload.message_id !== sig.message_id) throw mismatch(`message_id must match the ${content.type} message`);
  if (payload.timestamp !== sig.timestamp) throw mismatch(`timestamp must match the ${content.type} message`);
  if (payload.body !== content.body) throw mismatch(`body must match the ${content.type} message`);
  if (content.type === 'mail') {
    if ((payload.subject ?? '') !== content.subject) throw mismatch('subject must match the mail subject');
    if ((payload.priority || 'normal') !== content.priority) throw mismatch('priority must match the mail message');
  } else {
    if ((payload.wait_seconds ?? null) !== content.wait_seconds) throw mismatch('wait_seconds must match the chat message');
    if ((text(payload.reply_to) || null) !== content.reply_to) throw mismatch('reply_to must match the chat message');
    if (Boolean(payload.sender_leaving) !== content.sender_leaving) throw mismatch('sender_leaving must match the chat message');
    if (Boolean(payload.hang_on) !== content.hang_on) throw mismatch('hang_on must match the chat message');
  }
  return {
    payload,
    signed: {
      message_id: sig.message_id,
      timestamp: sig.timestamp,
      signature: sig.signature,
      signed_payload: sig.signed_payload,
      from: from || sender.address || sender.alias,
      from_did: sig.from_did,
      from_stable_id: sender.stableId,
    },
  };
}

/** One recipient as the signed `to` may name it. */
export interface SignedRecipient {
  /** Every name the sender may have written: as addressed, alias, address, agent id, dids. */
  names: (string | null)[];
  didKey: string;
  stableId: string | null;
  /**
   * On another node: known here by its address alone, so the signed `to_did` and `to_stable_id`
   * (when named) are that node's to check (federation/wire.ts `recipientProblem`).
   */
  remote?: boolean;
}

/**
 * Check 4's second half: the payload names exactly these recipients. `to` is one of a
 * recipient's names, or for several a comma-joined sorted list of one kind of name (upstream's
 * group chat); `to_did` and `to_stable_id`, when signed, name the one recipient.
 */
export function assertSignedRecipients(verified: VerifiedClientMessage, recipients: readonly SignedRecipient[]): void {
  const { payload } = verified;
  const what = payload.type === 'chat' ? 'the chat target' : 'the mail recipient';
  const to = text(payload.to);
  if (to !== '') {
    const allowed = new Set<string>();
    if (recipients.length === 1) for (const name of recipients[0]?.names ?? []) if (name) allowed.add(name);
    const kinds = Math.max(0, ...recipients.map((r) => r.names.length));
    for (let kind = 0; kind < kinds; kind++) {
      const names = recipients.map((r) => r.names[kind] ?? '');
      if (names.every((name) => name !== '')) allowed.add([...names].sort().join(','));
    }
    if (!allowed.has(to)) throw mismatch(`recipient must match ${what}`);
  }
  const only = recipients.length === 1 ? recipients[0] : undefined;
  if (only?.remote === true) return;
  const toDid = text(payload.to_did);
  if (toDid !== '' && (only === undefined || ![only.didKey, only.stableId].includes(toDid))) throw mismatch(`recipient must match ${what}`);
  const toStableId = text(payload.to_stable_id);
  if (toStableId !== '' && (only === undefined || only.stableId !== toStableId)) throw mismatch(`recipient must match ${what}`);
}

/**
 * A message to another node: that node checks the sender by the address the envelope names, so
 * a client's signed `from` must be the sender's address (not its alias or a did).
 */
export function assertSignedFromAddress(verified: VerifiedClientMessage, sender: Party): void {
  if (sender.address !== null && text(verified.payload.from) !== sender.address) {
    throw mismatch(`from must be the sender's address ${sender.address}: the recipient's node checks the sender by it`);
  }
}

/**
 * A resolved recipient's names, in the order `assertSignedRecipients` compares them kind by kind;
 * one on another node (no agent) by its address alone, as that node looks it up.
 */
export function signedRecipient(r: {
  to: string;
  alias: string;
  address: string | null;
  didKey: string;
  stableId: string | null;
  agent: { agent_id: string } | null;
}): SignedRecipient {
  if (r.agent === null) return { names: [r.to, r.address], didKey: r.didKey, stableId: r.stableId, remote: true };
  return { names: [r.to, r.alias, r.address, r.stableId, r.didKey, r.agent.agent_id], didKey: r.didKey, stableId: r.stableId };
}
