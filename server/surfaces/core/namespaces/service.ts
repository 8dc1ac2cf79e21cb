/**
 * Namespaces and their addresses. A namespace exists here only with the owner's consent or with
 * DNS proof (authority.ts), and is controlled by one did:key; only that key assigns, reassigns,
 * rotates and removes addresses under it. DNS (`_svcid.<domain>` TXT) decides the verification
 * state; removal never depends on it.
 */
import type { NodeContext } from '../../../context.ts';
import { isDidKey } from '../../../crypto/did-key.ts';
import { conflict, forbidden, invalid, notFound, unavailable } from '../../../errors.ts';
import type { DidRegistry } from '../did/registry.ts';
import type { NodeDirectory } from '../../../federation/directory.ts';
import { splitAddress } from '../../../federation/addresses.ts';
import { isOwnOrigin, namespaceTrust, proofRecordHint, type Authority, type NamespaceTrust } from './authority.ts';
import { checkNamespaceDns, type VerificationStatus } from './verification.ts';
import type { Address, AddressRemoved, Namespace, ReplacementAnnouncement } from '../../../../contract/core/namespaces.ts';

interface NamespaceRow {
  domain: string;
  controller_did: string;
  controller_key_id: string | null;
  authority: Authority;
  verification_status: VerificationStatus;
  last_verified_at: string | null;
  created_at: string;
  updated_at: string;
  address_count: number;
}

const NAMESPACE_SELECT = `SELECT n.*, (SELECT COUNT(*) FROM addresses a WHERE a.domain = n.domain) AS address_count FROM namespaces n`;
// An address bound to a did:svc reports that identity's current key.
const ADDRESS_SELECT = `SELECT a.domain, a.name, COALESCE(m.current_did_key, a.did_key) AS did_key, a.did_aw, a.created_at, a.updated_at
  FROM addresses a LEFT JOIN did_mappings m ON m.did_aw = a.did_aw`;

function namespaceView(row: NamespaceRow): Namespace {
  return {
    domain: row.domain,
    controller_did: row.controller_did,
    verification_status: row.verification_status,
    last_verified_at: row.last_verified_at,
    node_controlled: row.controller_key_id !== null,
    authority: row.authority,
    address_count: row.address_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function addressView(row: Omit<Address, 'address' | 'current_did_key'>): Address {
  return { ...row, address: `${row.domain}/${row.name}`, current_did_key: row.did_key };
}

export class NamespaceService {
  readonly #ctx: NodeContext;
  readonly #did: DidRegistry;
  readonly #directory: NodeDirectory;

  constructor(ctx: NodeContext, did: DidRegistry, directory: NodeDirectory) {
    this.#ctx = ctx;
    this.#did = did;
    this.#directory = directory;
  }

  #row(domain: string): NamespaceRow | null {
    return (this.#ctx.db.prepare(`${NAMESPACE_SELECT} WHERE n.domain = ?`).get(domain) as NamespaceRow | undefined) ?? null;
  }

  #require(domain: string): NamespaceRow {
    const row = this.#row(domain);
    if (!row) throw notFound('Namespace not found');
    return row;
  }

  #requireController(row: NamespaceRow, signer: string): void {
    if (signer !== row.controller_did) throw forbidden(`Only the controller of ${row.domain} may change its addresses`);
  }

  /** New bindings need a namespace whose DNS has not turned against it; removal never does. */
  #requireNotRevoked(row: NamespaceRow): void {
    if (row.verification_status === 'revoked') {
      throw forbidden(`${row.domain} was revoked: its DNS record no longer names this controller; fix DNS and POST /v1/namespaces/${row.domain}/verify`);
    }
  }

  get(domain: string): Namespace {
    return namespaceView(this.#require(domain));
  }

  list(): Namespace[] {
    return (this.#ctx.db.prepare(`${NAMESPACE_SELECT} ORDER BY n.domain`).all() as NamespaceRow[]).map(namespaceView);
  }

  listByController(controllerDid: string): Namespace[] {
    const rows = this.#ctx.db.prepare(`${NAMESPACE_SELECT} WHERE n.controller_did = ? ORDER BY n.domain`).all(controllerDid) as NamespaceRow[];
    return rows.map(namespaceView);
  }

  /** True when `domain` is a namespace of this node (its addresses live here). */
  isLocal(domain: string): boolean {
    return this.#ctx.db.prepare(`SELECT 1 FROM namespaces WHERE domain = ?`).get(domain) !== undefined;
  }

  /** What an address on one of this node's namespaces can be trusted as; null for no such namespace. */
  trustOfAddress(address: string): NamespaceTrust | null {
    const domain = splitAddress(address)?.domain;
    if (domain === undefined) return null;
    const row = this.#ctx.db.prepare(`SELECT authority, verification_status FROM namespaces WHERE domain = ?`).get(domain) as
      | Pick<NamespaceRow, 'authority' | 'verification_status'>
      | undefined;
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
  async registerByOwner(domain: string, controllerDid: string, controllerKeyId: string | null = null): Promise<{ namespace: Namespace; created: boolean }> {
    const existing = this.#existing(domain, controllerDid);
    if (existing) return { namespace: existing, created: false };
    this.#refusePeer(domain);
    const dns = await checkNamespaceDns(this.#ctx.dns, domain, controllerDid);
    if (dns.status !== 'unverified') this.#refuseElsewhere(domain, dns.origin);
    if (dns.status === 'mismatch') {
      throw forbidden(`DNS for ${domain} names another controller (${dns.controllerDid}); register it with that key as --controller, or fix the _svcid record`);
    }
    return { namespace: this.#insert(domain, controllerDid, controllerKeyId, 'owner', dns.status), created: true };
  }

  /**
   * Anyone else (`POST /v1/namespaces`) needs DNS proof: a `_svcid` record naming `controllerDid`
   * and this node. A lookup that fails proves nothing, so it is a 503, never a registration.
   */
  async registerByDnsProof(domain: string, controllerDid: string): Promise<{ namespace: Namespace; created: boolean }> {
    const existing = this.#existing(domain, controllerDid);
    if (existing) return { namespace: existing, created: false };
    this.#refusePeer(domain);
    const dns = await checkNamespaceDns(this.#ctx.dns, domain, controllerDid);
    if (dns.status === 'unverified') {
      if (dns.lookupFailed) throw unavailable(`Could not look up _svcid.${domain} in DNS, so nothing proves this registration; try again later`);
      throw forbidden(`${domain} can only be registered here with DNS proof: publish ${proofRecordHint(controllerDid, this.#ctx.ownOrigins())} at _svcid.${domain}, or ask this node's owner`);
    }
    this.#refuseElsewhere(domain, dns.origin);
    if (dns.status === 'mismatch') throw forbidden(`DNS for ${domain} names another controller (${dns.controllerDid})`);
    if (dns.origin === null) {
      throw forbidden(`The _svcid record of ${domain} names no node; add node=<this node's public origin> to prove the namespace lives here`);
    }
    return { namespace: this.#insert(domain, controllerDid, null, 'dns', 'verified'), created: true };
  }

  /** The namespace when it is already registered to `controllerDid` (idempotent); 409 for another controller. */
  #existing(domain: string, controllerDid: string): Namespace | null {
    if (!isDidKey(controllerDid)) throw invalid('controller_did is not an Ed25519 did:key');
    const row = this.#row(domain);
    if (!row) return null;
    if (row.controller_did !== controllerDid) throw conflict(`Namespace ${domain} is already registered to another controller`);
    return namespaceView(row);
  }

  /** The owner's peer table sends this domain's mail to another node: it cannot also live here. */
  #refusePeer(domain: string): void {
    const peer = this.#directory.peerUrl(domain);
    if (peer !== null) {
      throw conflict(`The peer table sends ${domain} to the node at ${peer}; remove that peer (svc-node peer remove ${domain}) before registering it here`);
    }
  }

  /** DNS says the namespace is served by a node that is not this one. */
  #refuseElsewhere(domain: string, origin: string | null): void {
    if (origin !== null && !isOwnOrigin(origin, this.#ctx.ownOrigins())) {
      throw conflict(`DNS says ${domain} lives on the node at ${origin}, not on this node`);
    }
  }

  #insert(domain: string, controllerDid: string, controllerKeyId: string | null, authority: Authority, status: VerificationStatus): Namespace {
    const now = this.#ctx.clock.now().toISOString();
    this.#ctx.db
      .prepare(
        `INSERT INTO namespaces (domain, controller_did, controller_key_id, authority, verification_status, last_verified_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(domain, controllerDid, controllerKeyId, authority, status, status === 'verified' ? now : null, now, now);
    return this.get(domain);
  }

  /**
   * Re-reads DNS: a verified namespace whose record vanished or changed becomes revoked. A lookup
   * that fails (resolver down, timeout) proves nothing: 503, and the state stays as it was.
   */
  async reverify(domain: string): Promise<Namespace> {
    const row = this.#require(domain);
    const dns = await checkNamespaceDns(this.#ctx.dns, domain, row.controller_did);
    if (dns.status === 'unverified' && dns.lookupFailed) {
      throw unavailable(`DNS lookup for ${domain} failed; verification state left as ${row.verification_status} (${dns.reason})`);
    }
    const next: VerificationStatus =
      dns.status === 'verified' ? 'verified' : row.verification_status === 'unverified' ? 'unverified' : 'revoked';
    const now = this.#ctx.clock.now().toISOString();
    this.#ctx.db
      .prepare(`UPDATE namespaces SET verification_status = ?, last_verified_at = ?, updated_at = ? WHERE domain = ?`)
      .run(next, next === 'verified' ? now : row.last_verified_at, now, domain);
    return this.get(domain);
  }

  listAddresses(domain: string): Address[] {
    this.#require(domain);
    const rows = this.#ctx.db.prepare(`${ADDRESS_SELECT} WHERE a.domain = ? ORDER BY a.name`).all(domain) as Address[];
    return rows.map(addressView);
  }

  findAddress(domain: string, name: string): Address | null {
    const row = this.#ctx.db.prepare(`${ADDRESS_SELECT} WHERE a.domain = ? AND a.name = ?`).get(domain, name) as Address | undefined;
    return row ? addressView(row) : null;
  }

  getAddress(domain: string, name: string): Address {
    this.#require(domain);
    const address = this.findAddress(domain, name);
    if (!address) throw notFound('Address not found');
    return address;
  }

  /** Controller-signed replacement announcements recorded for an address, oldest first. */
  replacements(domain: string, name: string): ReplacementAnnouncement[] {
    this.getAddress(domain, name);
    return this.#ctx.db
      .prepare(
        `SELECT domain || '/' || address_name AS address, controller_did, new_did, old_did, timestamp, controller_signature
         FROM replacement_announcements WHERE domain = ? AND address_name = ? ORDER BY created_at`,
      )
      .all(domain, name) as ReplacementAnnouncement[];
  }

  /** Addresses bound to a did:svc, oldest first: the first is the identity's sender address. */
  addressesOf(didAw: string): Address[] {
    const rows = this.#ctx.db.prepare(`${ADDRESS_SELECT} WHERE a.did_aw = ? ORDER BY a.created_at, a.domain, a.name`).all(didAw) as Address[];
    return rows.map(addressView);
  }

  /** Checks a did_key / did_aw pair: a did:svc must be registered and currently hold that key. */
  #binding(didKey: string, didAw: string | undefined): { didKey: string; didAw: string | null } {
    if (!isDidKey(didKey)) throw invalid('did_key is not an Ed25519 did:key');
    if (didAw === undefined) return { didKey, didAw: null };
    const current = this.#did.currentKey(didAw);
    if (current === null) throw conflict('did_aw must be registered before address assignment');
    if (current !== didKey) throw conflict('did_aw current key does not match did_key');
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
      throw conflict(`Address ${domain}/${name} is already assigned`);
    }
    const now = this.#ctx.clock.now().toISOString();
    this.#ctx.db
      .prepare(`INSERT INTO addresses (domain, name, did_key, did_aw, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`)
      .run(domain, name, binding.didKey, binding.didAw, now, now);
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
        throw conflict(`${domain}/${name} follows ${existing.did_aw}; rotate that identity's key or reassign the address`);
      }
      keepDid = existing.did_aw;
    }
    const binding = this.#binding(didKey, keepDid);
    this.#ctx.db
      .prepare(`UPDATE addresses SET did_key = ?, did_aw = ?, updated_at = ? WHERE domain = ? AND name = ?`)
      .run(binding.didKey, binding.didAw, this.#ctx.clock.now().toISOString(), domain, name);
    return this.getAddress(domain, name);
  }

  /** Removes an address; allowed whatever the namespace's DNS state. */
  removeAddress(domain: string, name: string, signer: string): AddressRemoved {
    this.#requireController(this.#require(domain), signer);
    this.getAddress(domain, name);
    this.#ctx.db.prepare(`DELETE FROM addresses WHERE domain = ? AND name = ?`).run(domain, name);
    return { deleted: true, domain, name };
  }
}
