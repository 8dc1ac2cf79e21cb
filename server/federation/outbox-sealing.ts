/**
 * Mail to another node, sealed end to end as it leaves (docs/adr/0008-end-to-end-mail.md). A send
 * from an identity whose keys the node holds queues the sender's own signed copy, marked
 * `encrypted_v2` (outbox-store.ts); at each delivery the recipient's key is found on its own node
 * (remote-encryption-keys.ts: the directory, the guarded client, the assertion verified against
 * the address's keys) and the core seals the mail for it (core-port.ts, sealMail). What crosses
 * the wire is the envelope; the plaintext copy never leaves this node.
 *
 * Sealing at delivery rather than at send keeps a send acknowledged (and queued) while the
 * recipient's node is down, and every envelope fresh for the receiver's five-minute ingestion
 * window however long the mail waited; the receiver knows a copy by its id and sender key, so a
 * mail sealed again after a lost answer is acknowledged as the duplicate it is.
 *
 * No downgrade: a recipient whose node publishes no valid key for it gets nothing. The mail
 * bounces, saying so, and only a send that names plaintext reaches such a recipient.
 *
 * Mail a self-custodial identity's client sealed itself (`sealed_by_client`) is the other case:
 * the node holds neither its keys nor its plaintext, so the envelope goes exactly as the client
 * made it, and it is fresh for its receiver only until its `expires_at` (at most five minutes
 * after its `created_at`). Past that, the receiver would refuse it as stale: rather than send
 * what will be refused, or retry forever, the outbox bounces it, asking the sender to send it again.
 */
import type { FederatedMail, FederatedMessage } from '../../contract/core/federation.ts';
import type { Clock } from '../clock.ts';
import { ServiceError } from '../errors.ts';
import type { FederationCore } from './core-port.ts';
import type { OutboxRow } from './outbox-store.ts';
import type { Outcome } from './peer-delivery.ts';
import type { RemoteEncryptionKeyLookup } from './remote-encryption-keys.ts';

/** Refusals that say the recipient has no key to seal for: waiting will not change them. */
const NO_KEY = new Set([
  'SVC_ERR_RECIPIENT_NOT_FOUND',
  'SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED',
  'SVC_ERR_RECIPIENT_KEY_INVALID',
  'SVC_ERR_RECIPIENT_KEY_WRONG_IDENTITY',
  'SVC_ERR_RECIPIENT_KEY_EXPIRED',
]);

/** A row ready to send (its payload the wire form), or what settles it without sending. */
export type Prepared = { row: OutboxRow } | { outcome: Outcome };

/** Why a client-sealed mail is not sent: its envelope is past the receiver's ingestion window. */
export const CLIENT_SEALED_STALE =
  'it was not sent: it was sealed by your client more than 5 minutes ago; send it again (the receiving node takes an envelope only within 5 minutes of its created_at, and it could not be delivered in time)';

/**
 * When a client-sealed row's envelope stops being fresh for its receiver (ms since the epoch):
 * its `expires_at`, which the contract keeps within five minutes of its `created_at`. Null for a
 * row the client did not seal. An envelope whose time cannot be read is past it already.
 */
export function clientSealedUntil(row: OutboxRow): number | null {
  if (row.sealed_by_client !== 1) return null;
  const envelope = (JSON.parse(row.payload) as FederatedMail).encrypted_envelope as { expires_at?: unknown } | undefined;
  const until = typeof envelope?.expires_at === 'string' ? Date.parse(envelope.expires_at) : NaN;
  return Number.isNaN(until) ? 0 : until;
}

export class OutboxSealing {
  readonly #keys: Pick<RemoteEncryptionKeyLookup, 'find'>;
  readonly #core: Pick<FederationCore, 'sealMail' | 'sealChat'>;
  readonly #clock: Clock;

  constructor(keys: Pick<RemoteEncryptionKeyLookup, 'find'>, core: Pick<FederationCore, 'sealMail' | 'sealChat'>, clock: Clock) {
    this.#keys = keys;
    this.#core = core;
    this.#clock = clock;
  }

  /** Each row as it is sent: as stored (a client's envelope while it is fresh), or sealed now for its recipient's key; in order. */
  prepare(rows: readonly OutboxRow[]): Promise<Prepared[]> {
    return Promise.all(
      rows.map((row) => {
        const until = clientSealedUntil(row);
        if (until !== null) return until > this.#clock.now().getTime() ? { row } : { outcome: { kind: 'bounce' as const, reason: CLIENT_SEALED_STALE } };
        return row.content_mode === 'encrypted_v2' ? this.#seal(row) : { row };
      }),
    );
  }

  async #seal(row: OutboxRow): Promise<Prepared> {
    try {
      const key = await this.#keys.find(row.to_address);
      // Chat is sealed as mail is, for its one remote participant (docs/adr/0009-end-to-end-chat.md).
      const message = JSON.parse(row.payload) as FederatedMessage;
      const sealed = message.kind === 'chat' ? this.#core.sealChat(row.from_agent_id, message, key) : this.#core.sealMail(row.from_agent_id, message, key);
      return { row: { ...row, payload: JSON.stringify(sealed) } };
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (NO_KEY.has(error.code)) {
        return {
          outcome: {
            kind: 'bounce',
            reason: `it was not sent: it is end-to-end encrypted, and ${error.message}. To reach ${row.to_address} anyway, send it again as plaintext by name (content_mode legacy_plaintext_v1)`,
          },
        };
      }
      // The sender can no longer seal (gone, or without a key of its own): nothing will change that.
      if (error.statusCode === 409) return { outcome: { kind: 'bounce', reason: `it could not be sealed end to end: ${error.message}` } };
      // No node known for the domain yet, or its node did not answer: try again later.
      return { outcome: { kind: 'retry', error: `could not find ${row.to_address}'s encryption key: ${error.message}` } };
    }
  }
}
