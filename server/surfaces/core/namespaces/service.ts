/**
 * Namespaces and their addresses. A namespace exists here only with the owner's consent or with
 * DNS proof (authority.ts), and is controlled by one did:key; only that key assigns, reassigns,
 * rotates and removes addresses under it. DNS (`_svcid.<domain>` TXT) decides the verification
 * state; removal never depends on it.
 */
import type { NodeContext } from '../../../context.ts';
import type { DnsResolver } from '../../../dns/resolver.ts';
import { isDidKey } from '../../../crypto/did-key.ts';
import { conflict, forbidden, invalid, notFound, unavailable } from '../../../errors.ts';
import type { DidRegistry } from '../did/registry.ts';
import { splitAddress } from '../../../../contract/core-rules.ts';
import { isOwnOrigin, namespaceTrust, proofRecordHint, type Authority, type NamespaceTrust } from './authority.ts';
import {
  addressRowsIn,
  addressRowsOfDid,
  addressRowsOfIdentity,
  deleteAddress,
  findAddressRow,
  findNamespaceRow,
  insertAddress,
  insertNamespace,
  isLocalNamespace,
  namespaceRows,
  namespaceRowsOfController,
  namespaceStanding,
  replacementAnnouncementsOf,
  toAddress,
  toNamespace,
  updateAddressBinding,
  updateNamespaceVerification,
  type NamespaceRow,
} from './store.ts';
import { checkNamespaceDns } from '../../../dns/namespace-verification.ts';
import type { Address, AddressRemoved, Namespace, ReplacementAnnouncement, VerificationStatus } from '../../../../contract/core/namespaces.ts';

/** The owner's peer table (federation's node directory): where mail to a domain goes instead of here. */
export interface PeerTable {
  peerUrl(domain: string): string | null;
}

export class NamespaceService {
  readonly #ctx: NodeContext;
  readonly #did: DidRegistry;
  readonly #directory: PeerTable;

  constructor(ctx: NodeContext, did: DidRegistry, directory: PeerTable) {
    this.#ctx = ctx;
    this.#did = did;
    this.#directory = directory;
  }

  #row(domain: string): NamespaceRow | null {
    return findNamespaceRow(this.#ctx.db, domain) ?? null;
  }

  #require(domain: string): NamespaceRow {
    const row = this.#row(domain);
    if (!row) throw notFound('SVC_ERR_NAMESPACE_NOT_FOUND', 'Namespace not found');
    return row;
  }

  #requireController(row: NamespaceRow, signer: string): void {
    if (signer !== row.controller_did) throw forbidden('SVC_ERR_NAMESPACE_NOT_CONTROLLER', `Only the controller of ${row.domain} may change its addresses`);
  }

  /** New bindings need a namespace whose DNS has not turned against it; removal never does. */
  #requireNotRevoked(row: NamespaceRow): void {
    if (row.verification_status === 'revoked') {
      throw forbidden(
        'SVC_ERR_NAMESPACE_REVOKED',
        `${row.domain} was revoked: its DNS record no longer names this controller; fix DNS and POST /v1/namespaces/${row.domain}/verify`,
      );
    }
  }

  get(domain: string): Namespace {
    return toNamespace(this.#require(domain));
  }

  list(): Namespace[] {
    return namespaceRows(this.#ctx.db).map(toNamespace);
  }

  listByController(controllerDid: string): Namespace[] {
    return namespaceRowsOfController(this.#ctx.db, controllerDid).map(toNamespace);
  }

  /** True when `domain` is a namespace of this node (its addresses live here). */
  isLocal(domain: string): boolean {
    return isLocalNamespace(this.#ctx.db, domain);
  }

  /** What an address on one of this node's namespaces can be trusted as; null for no such namespace. */
  trustOfAddress(address: string): NamespaceTrust | null {
    const domain = splitAddress(address)?.domain;
    if (domain === undefined) return null;
    const row = namespaceStanding(this.#ctx.db, domain);
    return row === undefined ? null : namespaceTrust(row.authority, row.verification_status);
  }

  /** The custody key id of the controller, when this node holds it. */
  controllerKeyId(domain: string): string | null {
    return this.#row(domain)?.controller_key_id ?? null;
  }

  /**
   * The owner consents to a namespace (owner API, `svc-node namespace create`): controlled by a
   * key custody holds (`controllerKeyId`) or by an outside `controllerDid`. Consent is enough where
   * DNS is silent or unreachable (a node offline still works), never where the peer table or DNS
   * places the domain on another node, and never against a record naming another controller.
   */
  async registerByOwner(
    domain: string,
    controllerDid: string,
    controllerKeyId: string | null = null,
    resolver: DnsResolver = this.#ctx.dns,
  ): Promise<{ namespace: Namespace; created: boolean }> {
    const existing = this.#existing(domain, controllerDid);
    if (existing) return { namespace: existing, created: false };
    this.#refusePeer(domain);
    const dns = await checkNamespaceDns(resolver, domain, controllerDid, { fresh: true });
    if (dns.status !== 'unverified') this.#refuseElsewhere(domain, dns.origin);
    if (dns.status === 'mismatch') {
      throw forbidden(
        'SVC_ERR_NAMESPACE_DNS_MISMATCH',
        `DNS for ${domain} names another controller (${dns.controllerDid}); register it with that key as --controller, or fix the _svcid record`,
      );
    }
    return this.#insert(domain, controllerDid, controllerKeyId, 'owner', dns.status);
  }

  /**
   * The owner's consent as the owner API asks for it (`POST /v1/node/namespaces`, `svc-node
   * namespace create`): with `controllerDid`, an outside key controls the namespace; without, a key
   * this node creates and holds. Asked again for a namespace whose key this node already holds:
   * the same namespace, not a new key that would then be "another controller".
   */
  async consentByOwner(domain: string, controllerDid?: string): Promise<{ namespace: Namespace; created: boolean }> {
    if (controllerDid !== undefined) return this.registerByOwner(domain, controllerDid);
    if (this.isLocal(domain)) {
      const held = this.get(domain);
      if (held.node_controlled) return { namespace: held, created: false };
      throw conflict(
        'SVC_ERR_NAMESPACE_TAKEN',
        `${domain} is already on this node, controlled by the outside key ${held.controller_did}; only that key assigns its addresses`,
      );
    }
    const { namespace } = await this.registerWithNodeKey(domain);
    return { namespace, created: true };
  }

  /** A new namespace with a key this node creates in custody; when DNS or the peer table refuses it, no key is kept. */
  async registerWithNodeKey(domain: string): Promise<{ namespace: Namespace; keyId: string }> {
    const key = this.#ctx.custody.createSigningKey('namespace');
    try {
      const { namespace } = await this.registerByOwner(domain, key.didKey, key.keyId);
      return { namespace, keyId: key.keyId };
    } catch (error) {
      this.#ctx.custody.destroyKey(key.keyId);
      throw error;
    }
  }

  /**
   * Anyone else (`POST /v1/namespaces`) needs DNS proof: a `_svcid` record naming `controllerDid`
   * and this node. A lookup that fails proves nothing, so it is a 503, never a registration.
   * `resolver` is the request's (request-dns.ts): its queries are capped and charged to its client.
   */
  async registerByDnsProof(domain: string, controllerDid: string, resolver: DnsResolver = this.#ctx.dns): Promise<{ namespace: Namespace; created: boolean }> {
    const existing = this.#existing(domain, controllerDid);
    if (existing) return { namespace: existing, created: false };
    this.#refusePeer(domain);
    const dns = await checkNamespaceDns(resolver, domain, controllerDid, { fresh: true });
    if (dns.status === 'unverified') {
      if (dns.lookupFailed)
        throw unavailable(
          'SVC_ERR_NAMESPACE_DNS_UNAVAILABLE',
          `Could not look up _svcid.${domain} in DNS, so nothing proves this registration; try again later`,
        );
      throw forbidden(
        'SVC_ERR_NAMESPACE_DNS_PROOF_REQUIRED',
        `${domain} can only be registered here with DNS proof: publish ${proofRecordHint(controllerDid, this.#ctx.ownOrigins())} at _svcid.${domain}, or ask this node's owner`,
      );
    }
    this.#refuseElsewhere(domain, dns.origin);
    if (dns.status === 'mismatch') throw forbidden('SVC_ERR_NAMESPACE_DNS_MISMATCH', `DNS for ${domain} names another controller (${dns.controllerDid})`);
    if (dns.origin === null) {
      throw forbidden(
        'SVC_ERR_NAMESPACE_DNS_NODE_MISSING',
        `The _svcid record of ${domain} names no node; add node=<this node's public origin> to prove the namespace lives here`,
      );
    }
    return this.#insert(domain, controllerDid, null, 'dns', 'verified');
  }

  /** The namespace when it is already registered to `controllerDid` (idempotent); 409 for another controller. */
  #existing(domain: string, controllerDid: string): Namespace | null {
    if (!isDidKey(controllerDid)) throw invalid('SVC_ERR_DID_MALFORMED', 'controller_did is not an Ed25519 did:key');
    const row = this.#row(domain);
    if (!row) return null;
    if (row.controller_did !== controllerDid) throw conflict('SVC_ERR_NAMESPACE_TAKEN', `Namespace ${domain} is already registered to another controller`);
    return toNamespace(row);
  }

  /** The owner's peer table sends this domain's mail to another node: it cannot also live here. */
  #refusePeer(domain: string): void {
    const peer = this.#directory.peerUrl(domain);
    if (peer !== null) {
      throw conflict(
        'SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE',
        `The peer table sends ${domain} to the node at ${peer}; remove that peer (svc-node peer remove ${domain}) before registering it here`,
      );
    }
  }

  /** DNS says the namespace is served by a node that is not this one. */
  #refuseElsewhere(domain: string, origin: string | null): void {
    if (origin !== null && !isOwnOrigin(origin, this.#ctx.ownOrigins())) {
      throw conflict('SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE', `DNS says ${domain} lives on the node at ${origin}, not on this node`);
    }
  }

  /**
   * Inserts the namespace, unless a request for the same domain got there while this one waited
   * on DNS: then it is that registration's (the same controller: unchanged, 200) or a 409. The
   * check and the insert run with no await between them, so no two requests both insert.
   */
  #insert(
    domain: string,
    controllerDid: string,
    controllerKeyId: string | null,
    authority: Authority,
    status: VerificationStatus,
  ): { namespace: Namespace; created: boolean } {
    const raced = this.#row(domain);
    if (raced) {
      if (raced.controller_did === controllerDid) return { namespace: toNamespace(raced), created: false };
      throw conflict('SVC_ERR_NAMESPACE_TAKEN', `Namespace ${domain} was registered to another controller while this request waited on DNS`);
    }
    const now = this.#ctx.clock.now().toISOString();
    insertNamespace(this.#ctx.db, {
      domain,
      controller_did: controllerDid,
      controller_key_id: controllerKeyId,
      authority,
      verification_status: status,
      last_verified_at: status === 'verified' ? now : null,
      created_at: now,
      updated_at: now,
    });
    return { namespace: this.get(domain), created: true };
  }

  /**
   * Re-reads DNS: a verified namespace whose record vanished or changed becomes revoked. A lookup
   * that fails (resolver down, timeout) proves nothing: 503, and the state stays as it was.
   */
  async reverify(domain: string, resolver: DnsResolver = this.#ctx.dns): Promise<Namespace> {
    const row = this.#require(domain);
    const dns = await checkNamespaceDns(resolver, domain, row.controller_did, { fresh: true });
    if (dns.status === 'unverified' && dns.lookupFailed) {
      throw unavailable(
        'SVC_ERR_NAMESPACE_DNS_UNAVAILABLE',
        `DNS lookup for ${domain} failed; verification state left as ${row.verification_status} (${dns.reason})`,
      );
    }
    const next: VerificationStatus = dns.status === 'verified' ? 'verified' : row.verification_status === 'unverified' ? 'unverified' : 'revoked';
    const now = this.#ctx.clock.now().toISOString();
    updateNamespaceVerification(this.#ctx.db, domain, {
      verification_status: next,
      last_verified_at: next === 'verified' ? now : row.last_verified_at,
      updated_at: now,
    });
    return this.get(domain);
  }

  /** The namespace's addresses, or of `names` only those that exist. */
  listAddresses(domain: string, names?: string[]): Address[] {
    this.#require(domain);
    if (names === undefined) return addressRowsIn(this.#ctx.db, domain).map(toAddress);
    return [...new Set(names)].flatMap((name) => this.findAddress(domain, name) ?? []);
  }

  findAddress(domain: string, name: string): Address | null {
    const row = findAddressRow(this.#ctx.db, domain, name);
    return row ? toAddress(row) : null;
  }

  getAddress(domain: string, name: string): Address {
    this.#require(domain);
    const address = this.findAddress(domain, name);
    if (!address) throw notFound('SVC_ERR_ADDRESS_NOT_FOUND', 'Address not found');
    return address;
  }

  /** Controller-signed replacement announcements recorded for an address, oldest first. */
  replacements(domain: string, name: string): ReplacementAnnouncement[] {
    this.getAddress(domain, name);
    return replacementAnnouncementsOf(this.#ctx.db, domain, name);
  }

  /** Addresses bound to a did:svc, oldest first. */
  addressesOf(didAw: string): Address[] {
    return addressRowsOfDid(this.#ctx.db, didAw).map(toAddress);
  }

  /**
   * An identity's addresses, oldest first (the first is its sender address): those bound to its
   * did:svc, and those assigned to its current did:key without one.
   */
  addressesOfIdentity(didAw: string | null, didKey: string): Address[] {
    return addressRowsOfIdentity(this.#ctx.db, didAw, didKey).map(toAddress);
  }

  /** Checks a did_key / did_aw pair: a did:svc must be registered and currently hold that key. */
  #binding(didKey: string, didAw: string | undefined): { didKey: string; didAw: string | null } {
    if (!isDidKey(didKey)) throw invalid('SVC_ERR_DID_MALFORMED', 'did_key is not an Ed25519 did:key');
    if (didAw === undefined) return { didKey, didAw: null };
    const current = this.#did.currentKey(didAw);
    if (current === null) throw conflict('SVC_ERR_DID_UNREGISTERED', 'did_aw must be registered before address assignment');
    if (current !== didKey) throw conflict('SVC_ERR_DID_KEY_MISMATCH', 'did_aw current key does not match did_key');
    return { didKey, didAw };
  }

  assignAddress(domain: string, name: string, signer: string, didKey: string, didAw?: string): { address: Address; created: boolean } {
    const namespace = this.#require(domain);
    this.#requireController(namespace, signer);
    this.#requireNotRevoked(namespace);
    const binding = this.#binding(didKey, didAw);
    const existing = this.findAddress(domain, name);
    if (existing) {
      if (existing.did_key === binding.didKey && existing.did_aw === binding.didAw) return { address: existing, created: false };
      throw conflict('SVC_ERR_ADDRESS_TAKEN', `Address ${domain}/${name} is already assigned`);
    }
    const now = this.#ctx.clock.now().toISOString();
    insertAddress(this.#ctx.db, { domain, name, did_key: binding.didKey, did_aw: binding.didAw, created_at: now, updated_at: now });
    return { address: this.getAddress(domain, name), created: true };
  }

  /** Points an existing address at another identity (reassign) or another key (rotate). */
  rebindAddress(
    domain: string,
    name: string,
    signer: string,
    didKey: string,
    didAw: string | undefined,
    operation: 'reassign_address' | 'update_address',
  ): Address {
    const namespace = this.#require(domain);
    this.#requireController(namespace, signer);
    this.#requireNotRevoked(namespace);
    const existing = this.getAddress(domain, name);
    let keepDid = didAw;
    if (operation === 'update_address' && didAw === undefined && existing.did_aw !== null) {
      // Rotating the key of an address that follows a did:svc only makes sense to that did's key.
      if (this.#did.currentKey(existing.did_aw) !== didKey) {
        throw conflict('SVC_ERR_DID_KEY_MISMATCH', `${domain}/${name} follows ${existing.did_aw}; rotate that identity's key or reassign the address`);
      }
      keepDid = existing.did_aw;
    }
    const binding = this.#binding(didKey, keepDid);
    updateAddressBinding(this.#ctx.db, domain, name, binding, this.#ctx.clock.now().toISOString());
    return this.getAddress(domain, name);
  }

  /** Removes an address; allowed whatever the namespace's DNS state. */
  removeAddress(domain: string, name: string, signer: string): AddressRemoved {
    this.#requireController(this.#require(domain), signer);
    this.getAddress(domain, name);
    deleteAddress(this.#ctx.db, domain, name);
    return { deleted: true, domain, name };
  }
}
