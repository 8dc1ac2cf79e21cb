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
 */
import type { FederatedMail } from '../../contract/core/federation.ts';
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

export class OutboxSealing {
  readonly #keys: Pick<RemoteEncryptionKeyLookup, 'find'>;
  readonly #core: Pick<FederationCore, 'sealMail'>;

  constructor(keys: Pick<RemoteEncryptionKeyLookup, 'find'>, core: Pick<FederationCore, 'sealMail'>) {
    this.#keys = keys;
    this.#core = core;
  }

  /** Each row as it is sent: as stored, or sealed now for its recipient's key; in order. */
  prepare(rows: readonly OutboxRow[]): Promise<Prepared[]> {
    return Promise.all(rows.map((row) => (row.content_mode === 'encrypted_v2' ? this.#seal(row) : { row })));
  }

  async #seal(row: OutboxRow): Promise<Prepared> {
    try {
      const key = await this.#keys.find(row.to_address);
      const sealed = this.#core.sealMail(row.from_agent_id, JSON.parse(row.payload) as FederatedMail, key);
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
