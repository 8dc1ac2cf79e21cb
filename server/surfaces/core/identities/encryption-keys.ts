/**
 * Identities' end-to-end encryption keys (docs/adr/0007-e2ee-keys.md): for every identity whose
 * keys custody holds, an X25519 key in custody and its identity-signed `aweb-e2ee-key-v1`
 * assertion, created with the identity (and at startup for identities older than this), renewed
 * before it expires, rotated on demand and re-signed when the identity's signing key rotates. A
 * self-custodial identity publishes its own assertion, which is verified before it is stored.
 *
 * What is stored is never trusted when served: `current` verifies the assertion against the
 * identity's current did:key and did:svc at the node's time, so an expired assertion, or one a
 * key rotation left behind, is not served.
 */
import type { NodeContext } from '../../../context.ts';
import { parseContractTime } from '../../../crypto/e2ee/encoding.ts';
import { KeyAssertionError } from '../../../crypto/e2ee/errors.ts';
import {
  buildKeyAssertion,
  parseKeyAssertion,
  verifyKeyAssertion,
  type EncryptionKeyAssertion,
  type KeyAssertionExpectation,
  type VerifiedEncryptionKey,
} from '../../../crypto/e2ee/key-assertion.ts';
import { VERIFIED_ASSERTIONS_MAX, VerifiedKeyAssertions } from '../../../crypto/e2ee/verified-key-assertions.ts';
import type { X25519Agreement } from '../../../crypto/e2ee/x25519.ts';
import { fromBase64Unpadded } from '../../../crypto/encoding.ts';
import { conflict, invalid, notFound } from '../../../errors.ts';
import { MemoCache } from '../../../memo-cache.ts';
import { writeCounter } from '../../../store/write-counter.ts';
import type { EncryptionKeySummary } from '../../../../contract/core/encryption-keys.ts';
import { encryptionKeySummary, RENEW_BEFORE_EXPIRY_MS } from './domain/encryption-key-health.ts';
import { findIdentity, type AgentRow } from './store/agents.ts';
import {
  archiveCurrentEncryptionKey,
  currentEncryptionKey,
  custodialKeysExpiringBy,
  custodialWithoutEncryptionKey,
  encryptionKeyOf,
  encryptionKeysOf,
  putCurrentEncryptionKey,
  type EncryptionKeyRecord,
} from './store/encryption-keys.ts';

export const RENEWAL_SWEEP_MS = 24 * 60 * 60 * 1000;

/** How many identities' current keys `current` keeps at hand: far more than send to each other at once. */
const CURRENT_HELD_MAX = 10_000;

/**
 * An identity's current assertion as `current` served it, with everything that answer depended
 * on: the table's write stamp, the identity's keys then, and the times between which it holds.
 */
interface HeldCurrent {
  writes: string;
  didKey: string;
  stableId: string | null;
  from: number;
  until: number;
  assertion: EncryptionKeyAssertion;
}

const rethrow = (error: unknown): never => {
  throw error;
};

export interface EncryptionKeysBackup {
  assertions: EncryptionKeyAssertion[];
  keys: string;
}

export interface EncryptionKeyRotated {
  agent_id: string;
  encryption_key: EncryptionKeyAssertion;
  summary: EncryptionKeySummary;
}

export class IdentityEncryptionKeys {
  /**
   * Assertions whose signatures were checked already: every send serves and seals with the same
   * few, and their Ed25519 check costs most of what verifying one does (the other rules still run).
   */
  readonly #verified = new VerifiedKeyAssertions();
  /**
   * Stored assertions as parsed, frozen, by their stored text: a send serves the same few again
   * and again, and handing out the same frozen object lets the cache above know it by the object
   * (verified-key-assertions.ts) when the send seals to it, rather than by a digest worked out twice.
   */
  readonly #parsed = new MemoCache<EncryptionKeyAssertion>(VERIFIED_ASSERTIONS_MAX);
  /**
   * Each identity's current assertion as last served: every send asks for its sender's and its
   * recipient's, twice when it is sealed ahead, and the answer changes only when a row of the
   * table is written (a key published, renewed, rotated, archived), when the identity's keys
   * change, or when the time leaves the assertion's window; each of those is checked at every ask.
   */
  readonly #current = new Map<string, HeldCurrent>();
  #writes: (() => string) | null = null;
  readonly #ctx: NodeContext;
  #sweeper: NodeJS.Timeout | null = null;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  /**
   * The identity's current assertion when it verifies now against the identity's current keys;
   * null when it has none, or when what is stored no longer verifies (expired, or made for a key
   * the identity has since rotated away from).
   */
  current(row: AgentRow): EncryptionKeyAssertion | null {
    if (row.status === 'deleted' || row.status === 'replaced') return null;
    this.#writes ??= writeCounter(this.#ctx.db, 'identity_encryption_keys', ['identity_encryption_keys']);
    const writes = this.#writes();
    const now = this.#now();
    const held = this.#current.get(row.agent_id);
    if (held?.writes === writes && held.didKey === row.did_key && held.stableId === row.did_aw && held.from <= now && now < held.until) {
      return held.assertion;
    }
    const record = currentEncryptionKey(this.#ctx.db, row.agent_id);
    const served = record ? this.#served(row, record, now) : null;
    this.#current.delete(row.agent_id);
    if (served === null) return null;
    const { assertion, verified } = served;
    const created = parseContractTime(assertion.created_at) ?? Number.POSITIVE_INFINITY;
    if (this.#current.size >= CURRENT_HELD_MAX) this.#current.delete(this.#current.keys().next().value as string);
    this.#current.set(row.agent_id, {
      writes,
      didKey: row.did_key,
      stableId: row.did_aw,
      from: Math.max(created, verified.notBefore),
      until: verified.expiresAt,
      assertion,
    });
    return assertion;
  }

  /**
   * The identity's key as its owner sees it (the identity list, the answer to a rotation): its
   * state at the node's time, who holds it, and how many keys it replaced and when.
   */
  summary(row: AgentRow): EncryptionKeySummary {
    const keys = encryptionKeysOf(this.#ctx.db, row.agent_id);
    const current = keys.find((key) => key.archived_at === null);
    return encryptionKeySummary({
      holder: this.#holdsKeys(row) ? 'node' : 'self',
      keys,
      served: current !== undefined && this.#served(row, current, this.#now()) !== null,
      now: this.#now(),
    });
  }

  /** A first key for a custodial identity that has none; call inside the transaction that creates it. */
  create(agentId: string): EncryptionKeyAssertion {
    const row = this.#custodial(agentId);
    const existing = currentEncryptionKey(this.#ctx.db, agentId);
    if (existing) return JSON.parse(existing.assertion) as EncryptionKeyAssertion;
    return this.#publishNewKey(row, undefined);
  }

  /** A fresh key replaces the current one, which is archived (still able to open what was sealed to it). */
  rotate(agentId: string): EncryptionKeyRotated {
    const row = this.#custodial(agentId);
    if (row.status !== 'active') throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', `Identity is ${row.status}`);
    return this.#ctx.db.transaction(() => {
      const previous = currentEncryptionKey(this.#ctx.db, agentId);
      const assertion = this.#publishNewKey(row, previous);
      return { agent_id: agentId, encryption_key: assertion, summary: this.summary(row) };
    })();
  }

  /**
   * Signs the current key's assertion again with the identity's current signing key and a fresh
   * lifetime: after the signing key rotated (the old assertion names the old did:key) and when
   * it nears expiry. The X25519 key and its previous-key link stay.
   */
  resign(agentId: string): EncryptionKeyAssertion {
    const row = this.#custodial(agentId);
    const record = currentEncryptionKey(this.#ctx.db, agentId);
    if (!record) return this.#publishNewKey(row, undefined);
    const old = JSON.parse(record.assertion) as EncryptionKeyAssertion;
    return this.#store(row, record.key_id, this.#sign(row, this.#ctx.custody.encryptionPublicKey(record.key_id), old.previous_encryption_key_id));
  }

  /**
   * Publishes the assertion a self-custodial identity's client made, after verifying it against
   * the identity's current did:key and did:svc at the node's time. The previous key is archived.
   */
  publishSelf(agentId: string, input: unknown): EncryptionKeyAssertion {
    const row = findIdentity(this.#ctx.db, agentId);
    if (!row || row.status === 'deleted') throw notFound('SVC_ERR_IDENTITY_NOT_FOUND', 'Identity not found');
    if (row.custody !== 'self') {
      throw conflict(
        'SVC_ERR_ENCRYPTION_KEY_NODE_MANAGED',
        'This identity is custodial: the node publishes and rotates its encryption key (POST /v1/node/identities/{agent_id}/encryption-key/rotate)',
      );
    }
    if (row.status !== 'active') throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', `Identity is ${row.status}`);
    const assertion = this.#verifiedFromClient(row, input);
    return this.#ctx.db.transaction(() => this.#store(row, '', assertion))();
  }

  /** verifyKeyAssertion, with each assertion's signature checked once (sealing verifies both parties' again). */
  verifyAssertion(assertion: EncryptionKeyAssertion, expect: KeyAssertionExpectation): VerifiedEncryptionKey {
    return this.#verified.verify(assertion, expect);
  }

  /**
   * Whether `encryptionKeyId` is a key the identity published, current or archived (mail sealed
   * to a key it has since rotated away from still reaches it: a sender may have found the old one).
   */
  published(agentId: string, encryptionKeyId: string): boolean {
    return encryptionKeyOf(this.#ctx.db, agentId, encryptionKeyId) !== undefined;
  }

  /**
   * The agreement of one of the identity's keys, current or archived, by its encryption key id:
   * what opening a message sealed to that key needs. Null for a key the node does not hold.
   */
  agreement(agentId: string, encryptionKeyId: string): X25519Agreement | null {
    const record = encryptionKeyOf(this.#ctx.db, agentId, encryptionKeyId);
    if (!record || record.key_id === '') return null;
    return this.#ctx.custody.encryptionAgreement(record.key_id);
  }

  /**
   * The identity's keys for its backup: their assertions, oldest first and the current one last,
   * and the private keys sealed under the passphrase inside custody. Undefined when it has none.
   */
  exportFor(agentId: string, passphrase: string): EncryptionKeysBackup | undefined {
    const records = encryptionKeysOf(this.#ctx.db, agentId).filter((record) => record.key_id !== '');
    const ordered = [...records.filter((record) => record.archived_at !== null), ...records.filter((record) => record.archived_at === null)];
    if (ordered.length === 0) return undefined;
    return {
      assertions: ordered.map((record) => JSON.parse(record.assertion) as EncryptionKeyAssertion),
      keys: this.#ctx.custody.exportEncryptionKeys(
        ordered.map((record) => record.key_id),
        passphrase,
      ),
    };
  }

  /**
   * Restores a backup's keys into custody, the last one current (its assertion signed again, for
   * this node's time), the others archived so what was sealed to them stays readable. A backup
   * without keys gives the identity a fresh one. Call inside the transaction that restores it.
   */
  restore(agentId: string, backup: { assertions: readonly object[]; keys: string } | undefined, passphrase: string): void {
    if (backup === undefined) {
      this.create(agentId);
      return;
    }
    const row = this.#custodial(agentId);
    const keys = this.#ctx.custody.importEncryptionKeys(backup.keys, passphrase);
    if (keys.length !== backup.assertions.length) throw invalid('SVC_ERR_BACKUP_INVALID', 'the backup has not one assertion per encryption key');
    keys.forEach((key, i) => {
      const assertion = this.#backedUp(backup.assertions[i]);
      if (fromBase64Unpadded(assertion.encryption_public_key)?.equals(key.publicKey) !== true) {
        throw invalid('SVC_ERR_BACKUP_INVALID', 'an encryption key assertion of the backup is not of its key');
      }
      if (i < keys.length - 1) this.#ctx.custody.archiveEncryptionKey(key.keyId);
      this.#store(row, key.keyId, assertion);
    });
    this.resign(agentId);
  }

  /** Wipes every encryption key custody holds for the identity (it is deleted: nothing of it is read again). */
  destroyAll(agentId: string): void {
    for (const record of encryptionKeysOf(this.#ctx.db, agentId)) if (record.key_id !== '') this.#ctx.custody.destroyEncryptionKey(record.key_id);
    archiveCurrentEncryptionKey(this.#ctx.db, agentId, this.#ctx.clock.now().toISOString());
  }

  /**
   * Gives every custodial identity without a key its first one (identities made before keys
   * existed: a migration cannot sign) and renews assertions within RENEW_BEFORE_EXPIRY_MS of
   * expiry. Each identity is its own transaction: one that fails (`onError` hears it, the next
   * sweep tries again) leaves the others done.
   */
  sweep(onError: (error: unknown, agentId: string) => void = rethrow): { created: number; renewed: number } {
    const { db } = this.#ctx;
    const each = (agentIds: string[], step: (agentId: string) => unknown): number => {
      let done = 0;
      for (const agentId of agentIds) {
        try {
          db.transaction(() => step(agentId))();
          done++;
        } catch (error) {
          onError(error, agentId);
        }
      }
      return done;
    };
    const created = each(
      custodialWithoutEncryptionKey(db).map((row) => row.agent_id),
      (agentId) => this.create(agentId),
    );
    const renewed = each(custodialKeysExpiringBy(db, new Date(this.#now() + RENEW_BEFORE_EXPIRY_MS).toISOString()), (agentId) => this.resign(agentId));
    return { created, renewed };
  }

  /** Sweeps now, then once a day; `onError` hears each identity the sweep could not serve. */
  startSweeping(onError: (error: unknown, agentId?: string) => void): void {
    const run = () => {
      try {
        this.sweep(onError);
      } catch (error) {
        onError(error);
      }
    };
    run();
    this.#sweeper = setInterval(run, RENEWAL_SWEEP_MS).unref();
  }

  stopSweeping(): void {
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
  }

  #publishNewKey(row: AgentRow, previous: { key_id: string; encryption_key_id: string } | undefined): EncryptionKeyAssertion {
    const { custody } = this.#ctx;
    const key = custody.createEncryptionKey();
    if (previous) {
      archiveCurrentEncryptionKey(this.#ctx.db, row.agent_id, this.#ctx.clock.now().toISOString());
      if (previous.key_id !== '') custody.archiveEncryptionKey(previous.key_id);
    }
    return this.#store(row, key.keyId, this.#sign(row, key.publicKey, previous?.encryption_key_id));
  }

  #sign(row: AgentRow, publicKey: Buffer, previousEncryptionKeyId: string | undefined): EncryptionKeyAssertion {
    // custody "self": the node is the person's own device, so the key's holder is its owner
    // (docs/adr/0007-e2ee-keys.md).
    return buildKeyAssertion(
      {
        identityDid: row.did_key,
        identityStableId: row.did_aw ?? undefined,
        custody: 'self',
        publicKey,
        previousEncryptionKeyId,
        now: this.#now(),
      },
      (bytes) => this.#ctx.custody.sign(row.key_id, bytes),
    );
  }

  #store(row: AgentRow, keyId: string, assertion: EncryptionKeyAssertion): EncryptionKeyAssertion {
    const current = currentEncryptionKey(this.#ctx.db, row.agent_id);
    if (current && current.encryption_key_id !== assertion.encryption_key_id) {
      archiveCurrentEncryptionKey(this.#ctx.db, row.agent_id, this.#ctx.clock.now().toISOString());
    }
    putCurrentEncryptionKey(this.#ctx.db, {
      agent_id: row.agent_id,
      encryption_key_id: assertion.encryption_key_id,
      key_id: keyId,
      assertion: JSON.stringify(assertion),
      expires_at: new Date(parseContractTime(assertion.expires_at)!).toISOString(),
      created_at: this.#ctx.clock.now().toISOString(),
    });
    return assertion;
  }

  #backedUp(value: unknown): EncryptionKeyAssertion {
    try {
      return parseKeyAssertion(value);
    } catch (error) {
      if (error instanceof KeyAssertionError) throw invalid('SVC_ERR_BACKUP_INVALID', `the backup's ${error.message}`);
      throw error;
    }
  }

  /** A client's assertion, refused by the first rule it breaks, each kind with its own code. */
  #verifiedFromClient(row: AgentRow, input: unknown): EncryptionKeyAssertion {
    let assertion: EncryptionKeyAssertion;
    try {
      assertion = parseKeyAssertion(input);
    } catch (error) {
      if (error instanceof KeyAssertionError) throw invalid('SVC_ERR_ENCRYPTION_KEY_ASSERTION_INVALID', error.message);
      throw error;
    }
    if (assertion.identity_did !== row.did_key) {
      throw invalid('SVC_ERR_ENCRYPTION_KEY_ASSERTION_WRONG_IDENTITY', "identity_did is not this identity's current did:key");
    }
    if ((assertion.identity_stable_id ?? null) !== row.did_aw) {
      throw invalid(
        'SVC_ERR_ENCRYPTION_KEY_ASSERTION_WRONG_IDENTITY',
        row.did_aw === null ? 'this identity has no did:svc: the assertion must omit identity_stable_id' : `identity_stable_id must be ${row.did_aw}`,
      );
    }
    const now = this.#now();
    const times = [assertion.created_at, assertion.not_before, assertion.expires_at].map(parseContractTime);
    const [created, notBefore, expires] = times;
    if (created != null && notBefore != null && expires != null && (created > now || notBefore > now || expires <= now)) {
      throw invalid(
        'SVC_ERR_ENCRYPTION_KEY_ASSERTION_EXPIRED',
        expires <= now ? 'the encryption key assertion is expired' : 'the encryption key assertion is not active yet at the node’s time',
      );
    }
    try {
      verifyKeyAssertion(assertion, { currentDidKey: row.did_key, stableId: row.did_aw, now, expectedCustody: 'self' });
    } catch (error) {
      if (error instanceof KeyAssertionError) throw invalid('SVC_ERR_ENCRYPTION_KEY_ASSERTION_INVALID', error.message);
      throw error;
    }
    return assertion;
  }

  /** The stored assertion, with what its check found, when it verifies at `now` against the identity's current keys; null when it is not to be served. */
  #served(row: AgentRow, record: EncryptionKeyRecord, now: number): { assertion: EncryptionKeyAssertion; verified: VerifiedEncryptionKey } | null {
    if (row.status === 'deleted' || row.status === 'replaced') return null;
    const assertion = this.#parsed.get(record.assertion, () => Object.freeze(JSON.parse(record.assertion) as EncryptionKeyAssertion));
    try {
      return { assertion, verified: this.#verified.verify(assertion, { currentDidKey: row.did_key, stableId: row.did_aw, now }) };
    } catch (error) {
      if (error instanceof KeyAssertionError) return null;
      throw error;
    }
  }

  /** Custody holds the identity's keys (the node makes, renews and rotates its encryption key). */
  #holdsKeys(row: AgentRow): boolean {
    return row.custody !== 'self' && row.key_id !== '';
  }

  #custodial(agentId: string): AgentRow {
    const row = findIdentity(this.#ctx.db, agentId);
    if (!row || row.status === 'deleted') throw notFound('SVC_ERR_IDENTITY_NOT_FOUND', 'Identity not found');
    if (!this.#holdsKeys(row)) {
      throw conflict(
        'SVC_ERR_IDENTITY_SELF_CUSTODIAL',
        'This identity is self-custodial: its client holds its encryption key and publishes it (PUT /v1/agents/me/encryption-key)',
      );
    }
    return row;
  }

  #now(): number {
    return this.#ctx.clock.now().getTime();
  }
}
