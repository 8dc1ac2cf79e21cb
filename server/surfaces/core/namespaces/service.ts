/**
 * Namespaces and their addresses. A namespace is controlled by one did:key; only that key
 * assigns, reassigns, rotates and removes addresses under it. DNS (`_svcid.<domain>` TXT) decides
 * the verification state; removal never depends on it.
 */
import type { NodeContext } from '../../../context.ts';
import { isDidKey } from '../../../crypto/did-key.ts';
import { conflict, forbidden, invalid, notFound, unavailable } from '../../../errors.ts';
import type { DidRegistry } from '../did/registry.ts';
import { checkNamespaceDns, type VerificationStatus } from './verification.ts';

export interface NamespaceView {
  domain: string;
  controller_did: string;
  verification_status: VerificationStatus;
  last_verified_at: string | null;
  node_controlled: boolean;
  address_count: number;
  created_at: string;
  updated_at: string;
}

export interface AddressView {
  domain: string;
  name: string;
  address: string;
  did_key: string;
  current_did_key: string;
  did_aw: string | null;
  created_at: string;
  updated_at: string;
}

interface NamespaceRow {
  domain: string;
  controller_did: string;
  controller_key_id: string | null;
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

function namespaceView(row: NamespaceRow): NamespaceView {
  return {
    domain: row.domain,
    controller_did: row.controller_did,
    verification_status: row.verification_status,
    last_verified_at: row.last_verified_at,
    node_controlled: row.controller_key_id !== null,
    address_count: row.address_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function addressView(row: Omit<AddressView, 'address' | 'current_did_key'>): AddressView {
  return { ...row, address: `${row.domain}/${row.name}`, current_did_key: row.did_key };
}

export class NamespaceService {
  readonly #ctx: NodeContext;
  readonly #did: DidRegistry;

  constructor(ctx: NodeContext, did: DidRegistry) {
    this.#ctx = ctx;
    this.#did = did;
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

  get(domain: string): NamespaceView {
    return namespaceView(this.#require(domain));
  }

  list(): NamespaceView[] {
    return (this.#ctx.db.prepare(`${NAMESPACE_SELECT} ORDER BY n.domain`).all() as NamespaceRow[]).map(namespaceView);
  }

  listByController(controllerDid: string): NamespaceView[] {
    const rows = this.#ctx.db.prepare(`${NAMESPACE_SELECT} WHERE n.controller_did = ? ORDER BY n.domain`).all(controllerDid) as NamespaceRow[];
    return rows.map(namespaceView);
  }

  /** The custody key id of the controller, when this node holds it. */
  controllerKeyId(domain: string): string | null {
    return this.#row(domain)?.controller_key_id ?? null;
  }

  /**
   * Registers a namespace for `controllerDid`. Idempotent for the same controller; DNS naming
   * another controller is refused; no record leaves the namespace unverified.
   */
  async register(
    domain: string,
    controllerDid: string,
    controllerKeyId: string | null = null,
  ): Promise<{ namespace: NamespaceView; created: boolean }> {
    if (!isDidKey(controllerDid)) throw invalid('controller_did is not an Ed25519 did:key');
    const existing = this.#row(domain);
    if (existing) {
      if (existing.controller_did !== controllerDid) throw conflict(`Namespace ${domain} is already registered to another controller`);
      return { namespace: namespaceView(existing), created: false };
    }
    const dns = await checkNamespaceDns(this.#ctx.dns, domain, controllerDid);
    if (dns.status === 'mismatch') throw forbidden(`DNS for ${domain} names another controller (${dns.controllerDid})`);
    const now = this.#ctx.clock.now().toISOString();
    this.#ctx.db
      .prepare(
        `INSERT INTO namespaces (domain, controller_did, controller_key_id, verification_status, last_verified_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(domain, controllerDid, controllerKeyId, dns.status, dns.status === 'verified' ? now : null, now, now);
    return { namespace: this.get(domain), created: true };
  }

  /**
   * Re-reads DNS: a verified namespace whose record vanished or changed becomes revoked. A lookup
   * that fails (resolver down, timeout) proves nothing: 503, and the state stays as it was.
   */
  async reverify(domain: string): Promise<NamespaceView> {
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

  listAddresses(domain: string): AddressView[] {
    this.#require(domain);
    const rows = this.#ctx.db.prepare(`${ADDRESS_SELECT} WHERE a.domain = ? ORDER BY a.name`).all(domain) as AddressView[];
    return rows.map(addressView);
  }

  findAddress(domain: string, name: string): AddressView | null {
    const row = this.#ctx.db.prepare(`${ADDRESS_SELECT} WHERE a.domain = ? AND a.name = ?`).get(domain, name) as AddressView | undefined;
    return row ? addressView(row) : null;
  }

  getAddress(domain: string, name: string): AddressView {
    this.#require(domain);
    const address = this.findAddress(domain, name);
    if (!address) throw notFound('Address not found');
    return address;
  }

  /** Controller-signed replacement announcements recorded for an address, oldest first. */
  replacements(domain: string, name: string) {
    this.getAddress(domain, name);
    return this.#ctx.db
      .prepare(
        `SELECT domain || '/' || address_name AS address, controller_did, new_did, old_did, timestamp, controller_signature
         FROM replacement_announcements WHERE domain = ? AND address_name = ? ORDER BY created_at`,
      )
      .all(domain, name);
  }

  /** Addresses bound to a did:svc, oldest first: the first is the identity's sender address. */
  addressesOf(didAw: string): AddressView[] {
    const rows = this.#ctx.db.prepare(`${ADDRESS_SELECT} WHERE a.did_aw = ? ORDER BY a.created_at, a.domain, a.name`).all(didAw) as AddressView[];
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

  assignAddress(domain: string, name: string, signer: string, didKey: string, didAw?: string): { address: AddressView; created: boolean } {
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
  ): AddressView {
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
  removeAddress(domain: string, name: string, signer: string): { deleted: true; domain: string; name: string } {
    this.#requireController(this.#require(domain), signer);
    this.getAddress(domain, name);
    this.#ctx.db.prepare(`DELETE FROM addresses WHERE domain = ? AND name = ?`).run(domain, name);
    return { deleted: true, domain, name };
  }
}
