/**
 * An identity's encryption key, found on its own node by its address, as upstream's clients and
 * registries resolve it (docs/design/e2ee-v2-wire.md, section 2): the node that answers for the
 * address's domain (the directory: the owner's peer table, then DNS, never what a message says),
 * then `GET /v1/namespaces/{domain}/addresses/{name}` on it for the address's current did:key and
 * did:svc, then `GET /v1/did/{did_aw}/key` for the did:svc's `encryption_key` assertion. Every
 * question goes through the one outbound client (server/net/remote-client.ts: public addresses
 * only for a DNS-found node, no redirects, capped answers, timeouts).
 *
 * The node that answers is only a distributor: the assertion is used only when it verifies
 * against the address's current did:key and did:svc at this node's time, so that node cannot
 * substitute a key the identity never signed. Every way it can fail is a refusal with a code of
 * its own, and a refused key is never returned, so nothing is encrypted to it.
 *
 * A key found is kept for `ttlMs` (never past its assertion's expiry), so a busy sender's mail to
 * one address asks its node once every few minutes: a rotated key is then picked up at most that
 * late, and mail sealed to the previous key still opens (its holder keeps archived keys). A
 * refusal is kept for `failureTtlMs` only, so a burst of sends to a broken address asks its node
 * once, and a fixed one works again within seconds. Lookups of one address already under way are
 * joined. Signatures already verified are not verified again (verified-key-assertions.ts).
 *
 * The same lookup answers a self-custodial client of this node that seals for an address on
 * another node (the address and did:svc routes answer it for an identity that asks, as they
 * answer for this node's own addresses): `addressOf` names the address a did:svc was found for.
 */
import type { NodeContext } from '../context.ts';
import { parseContractTime } from '../crypto/e2ee/encoding.ts';
import { KeyAssertionError } from '../crypto/e2ee/errors.ts';
import { parseKeyAssertion, type EncryptionKeyAssertion, type VerifiedEncryptionKey } from '../crypto/e2ee/key-assertion.ts';
import { VerifiedKeyAssertions } from '../crypto/e2ee/verified-key-assertions.ts';
import { conflict, invalid, notFound, ServiceError, unavailable } from '../errors.ts';
import type { RemoteClient } from '../net/remote-client.ts';
import { RemoteError } from '../net/remote-error.ts';
import { Address } from '../../contract/core/namespaces.ts';
import { DidKey } from '../../contract/core/did.ts';
import { splitAddress } from '../../contract/core-rules.ts';
import type { NodeDirectory, NodeLocation } from './directory.ts';
import { addressPathOf, CHECK_ANSWER_MAX_BYTES, didKeyPathOf } from './lookup-paths.ts';

/** How long a key found is used without asking again (bounded by its assertion's expiry). */
export const REMOTE_KEY_TTL_MS = 5 * 60_000;
/** How long a refusal, or a node that could not be asked, is answered from memory. */
export const REMOTE_KEY_FAILURE_TTL_MS = 10_000;
/** Addresses remembered at most; the oldest entries go first beyond it. */
export const REMOTE_KEY_MAX_ENTRIES = 4096;

/** A recipient's encryption key, verified. */
export interface FoundEncryptionKey {
  address: string;
  /** The address's current did:key, the key that signed the assertion. */
  didKey: string;
  /** The address's did:svc, which the assertion names. */
  stableId: string;
  /** The assertion as its node served it, to pass on (an envelope's recipient key, say). */
  assertion: EncryptionKeyAssertion;
  key: VerifiedEncryptionKey;
  /** When the address was made and last changed, as its node said (null when it did not: upstream's registry names no `updated_at`). */
  addressCreatedAt: string | null;
  addressUpdatedAt: string | null;
}

export interface RemoteKeyOptions {
  ttlMs: number;
  failureTtlMs: number;
  maxEntries: number;
}

interface Entry {
  outcome: Promise<FoundEncryptionKey>;
  /** Until when, by the node's clock, the outcome is answered; Infinity while it is under way. */
  until: number;
}

// Only the fields used are read, so an upstream node's answer (which carries fewer) parses too.
const AddressAnswer = Address.pick({ current_did_key: true, did_aw: true });
const DidKeyAnswer = DidKey.pick({ did_aw: true });

export class RemoteEncryptionKeyLookup {
  readonly #ctx: NodeContext;
  readonly #directory: NodeDirectory;
  readonly #remote: RemoteClient;
  readonly #verified: VerifiedKeyAssertions;
  readonly #options: RemoteKeyOptions;
  readonly #entries = new Map<string, Entry>();
  /** The address each did:svc was last found for (as many as the entries). */
  readonly #addresses = new Map<string, string>();

  constructor(
    ctx: NodeContext,
    directory: NodeDirectory,
    remote: RemoteClient,
    verified = new VerifiedKeyAssertions(),
    options: Partial<RemoteKeyOptions> = {},
  ) {
    this.#ctx = ctx;
    this.#directory = directory;
    this.#remote = remote;
    this.#verified = verified;
    this.#options = { ttlMs: REMOTE_KEY_TTL_MS, failureTtlMs: REMOTE_KEY_FAILURE_TTL_MS, maxEntries: REMOTE_KEY_MAX_ENTRIES, ...options };
  }

  /** The verified current encryption key of `address` (`domain/name`) on its own node, or a ServiceError saying why there is none. */
  find(address: string): Promise<FoundEncryptionKey> {
    const now = this.#now();
    const known = this.#entries.get(address);
    if (known !== undefined && known.until > now) return known.outcome;
    const entry: Entry = { outcome: this.#lookup(address), until: Infinity };
    this.#remember(address, entry);
    entry.outcome.then(
      (found) => {
        entry.until = Math.min(this.#now() + this.#options.ttlMs, found.key.expiresAt);
        this.#addresses.delete(found.stableId);
        this.#addresses.set(found.stableId, address);
        if (this.#addresses.size > this.#options.maxEntries) this.#addresses.delete(this.#addresses.keys().next().value!);
      },
      () => {
        entry.until = this.#now() + this.#options.failureTtlMs;
      },
    );
    return entry.outcome;
  }

  /**
   * The address on another node whose did:svc `stableId` is, when a lookup found it (its key is
   * then asked for by address, with that lookup's rules); null when none did.
   */
  addressOf(stableId: string): string | null {
    return this.#addresses.get(stableId) ?? null;
  }

  /** Addresses remembered now (tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }

  async #lookup(address: string): Promise<FoundEncryptionKey> {
    const parts = splitAddress(address);
    if (parts === null) throw invalid('SVC_ERR_ADDRESS_MALFORMED', `${address} is not an address of the form <domain>/<name>`);
    const node = await this.#nodeOf(parts.domain, address);

    const addressAnswer = await this.#ask(node, addressPathOf(parts.domain, parts.name), address);
    if (addressAnswer === null) throw notFound('SVC_ERR_RECIPIENT_NOT_FOUND', `${address} does not exist on its node`);
    const held = AddressAnswer.safeParse(addressAnswer);
    if (!held.success) throw unusable(address, 'its answer for the address is not an address');
    const { current_did_key: didKey, did_aw: stableId } = held.data;
    const { created_at: createdAt, updated_at: updatedAt } = addressAnswer as Record<string, unknown>;
    if (stableId === null) throw conflict('SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED', `${address} has no did:svc on its node, so it publishes no encryption key`);

    const keyAnswer = await this.#ask(node, didKeyPathOf(stableId), address);
    if (keyAnswer === null) throw conflict('SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED', `${address}'s node does not know its did:svc ${stableId}`);
    const keyOf = DidKeyAnswer.safeParse(keyAnswer);
    if (!keyOf.success || keyOf.data.did_aw !== stableId) throw unusable(address, 'its answer for the did:svc is not that did:svc’s key');
    const published = (keyAnswer as { encryption_key?: unknown }).encryption_key;
    if (published === undefined || published === null) {
      throw conflict('SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED', `${address}'s node publishes no encryption key for it valid now`);
    }

    const assertion = Object.freeze(this.#parsed(address, published));
    const key = Object.freeze(this.#verify(address, assertion, didKey, stableId));
    // Every caller of the next few minutes gets this same object: none may change it for the others.
    return Object.freeze({ address, didKey, stableId, assertion, key, addressCreatedAt: textOrNull(createdAt), addressUpdatedAt: textOrNull(updatedAt) });
  }

  /** The node for `domain`: a refusal when none is known, unavailable when DNS could not be asked. */
  async #nodeOf(domain: string, address: string): Promise<NodeLocation> {
    let node: NodeLocation | null;
    try {
      node = await this.#directory.find(domain);
    } catch {
      throw unavailable('SVC_ERR_PEER_UNAVAILABLE', `Could not look up ${domain} in DNS here to find ${address}'s encryption key; try again later`);
    }
    if (node === null) {
      throw notFound(
        'SVC_ERR_RECIPIENT_NODE_UNKNOWN',
        `No node is known for ${domain} (no peer entry and no node= in DNS), so ${address}'s encryption key cannot be looked up`,
      );
    }
    return node;
  }

  /** GET a JSON value from the node through the outbound client: null for a 404, unavailable for anything it cannot use. */
  async #ask(node: NodeLocation, path: string, address: string): Promise<unknown> {
    try {
      return await this.#remote.getJson(node, path, CHECK_ANSWER_MAX_BYTES);
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      // The asker is an identity of this node, so the failure may be named, in our words only.
      throw unusable(address, error.status === null ? error.message : `it answered ${error.status}`);
    }
  }

  #parsed(address: string, value: unknown): EncryptionKeyAssertion {
    try {
      return parseKeyAssertion(value);
    } catch (error) {
      if (error instanceof KeyAssertionError) throw invalid('SVC_ERR_RECIPIENT_KEY_INVALID', `${address}'s ${error.message}`);
      throw error;
    }
  }

  /**
   * The assertion's key once it verifies against the address's keys at this node's time, refused
   * by the first rule it breaks: who it names, then when it is valid, then the rest (its
   * constants, its key id, its signature), each kind with its own code.
   */
  #verify(address: string, assertion: EncryptionKeyAssertion, didKey: string, stableId: string): VerifiedEncryptionKey {
    if (assertion.identity_did !== didKey) {
      throw invalid('SVC_ERR_RECIPIENT_KEY_WRONG_IDENTITY', `${address}'s encryption key assertion names ${assertion.identity_did}, not its current did:key`);
    }
    if (assertion.identity_stable_id !== stableId) {
      throw invalid('SVC_ERR_RECIPIENT_KEY_WRONG_IDENTITY', `${address}'s encryption key assertion names another did:svc than its ${stableId}`);
    }
    const now = this.#now();
    const [created, notBefore, expires] = [assertion.created_at, assertion.not_before, assertion.expires_at].map(parseContractTime);
    if (created != null && notBefore != null && expires != null && (created > now || notBefore > now || expires <= now)) {
      throw invalid(
        'SVC_ERR_RECIPIENT_KEY_EXPIRED',
        expires <= now ? `${address}'s encryption key assertion is expired` : `${address}'s encryption key assertion is not valid yet at this node's time`,
      );
    }
    try {
      return this.#verified.verify(assertion, { currentDidKey: didKey, stableId, now });
    } catch (error) {
      if (error instanceof KeyAssertionError) throw invalid('SVC_ERR_RECIPIENT_KEY_INVALID', `${address}'s ${error.message}`);
      throw error;
    }
  }

  #remember(address: string, entry: Entry): void {
    this.#entries.delete(address);
    this.#entries.set(address, entry);
    if (this.#entries.size > this.#options.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  #now(): number {
    return this.#ctx.clock.now().getTime();
  }
}

const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A node that could not be asked, or whose answer cannot be read: worth trying again later. */
const unusable = (address: string, why: string): ServiceError =>
  unavailable('SVC_ERR_PEER_UNAVAILABLE', `Could not get ${address}'s encryption key from its node (${why}); try again later`);
