/**
 * The `namespaces` table, their `addresses`, and the controller-signed replacement announcements
 * recorded when an address moves to a replacement identity. The only module that reads or writes
 * them.
 */
import type { Db } from '../../../context.ts';
import type { Address, Namespace, NamespaceAuthority, ReplacementAnnouncement, VerificationStatus } from '../../../../contract/core/namespaces.ts';

export interface NamespaceRow {
  domain: string;
  controller_did: string;
  /** Set when this node's custody holds the controller key. */
  controller_key_id: string | null;
  authority: NamespaceAuthority;
  verification_status: VerificationStatus;
  last_verified_at: string | null;
  created_at: string;
  updated_at: string;
  /** Not a column: how many addresses the namespace holds. */
  address_count: number;
}

/** An address as read: `did_key` is the bound did:svc's current key when it follows one. */
export interface AddressRow {
  domain: string;
  name: string;
  did_key: string;
  did_aw: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReplacementAnnouncementRow {
  announcement_id: string;
  domain: string;
  address_name: string;
  old_did: string;
  new_did: string;
  controller_did: string;
  timestamp: string;
  controller_signature: string;
  created_at: string;
}

const NAMESPACE_SELECT = `SELECT n.*, (SELECT COUNT(*) FROM addresses a WHERE a.domain = n.domain) AS address_count FROM namespaces n`;
// An address bound to a did:svc reports that identity's current key.
const ADDRESS_SELECT = `SELECT a.domain, a.name, COALESCE(m.current_did_key, a.did_key) AS did_key, a.did_aw, a.created_at, a.updated_at
  FROM addresses a LEFT JOIN did_mappings m ON m.did_aw = a.did_aw`;

export function toNamespace(row: NamespaceRow): Namespace {
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

export function toAddress(row: AddressRow): Address {
  return { ...row, address: `${row.domain}/${row.name}`, current_did_key: row.did_key };
}

/**
 * Whether `domain` is a namespace of this node, so its addresses live here: the one answer to
 * "is this ours" for recipients, setup, peers and mail claiming to come from another node.
 */
export function isLocalNamespace(db: Db, domain: string): boolean {
  return db.prepare(`SELECT 1 FROM namespaces WHERE domain = ?`).get(domain) !== undefined;
}

export function findNamespaceRow(db: Db, domain: string): NamespaceRow | undefined {
  return db.prepare(`${NAMESPACE_SELECT} WHERE n.domain = ?`).get(domain) as NamespaceRow | undefined;
}

export function namespaceRows(db: Db): NamespaceRow[] {
  return db.prepare(`${NAMESPACE_SELECT} ORDER BY n.domain`).all() as NamespaceRow[];
}

export function namespaceRowsOfController(db: Db, controllerDid: string): NamespaceRow[] {
  return db.prepare(`${NAMESPACE_SELECT} WHERE n.controller_did = ? ORDER BY n.domain`).all(controllerDid) as NamespaceRow[];
}

/** Why the namespace is here and what DNS says of it; read for every message a reader shows, so it counts nothing. */
export function namespaceStanding(db: Db, domain: string): Pick<NamespaceRow, 'authority' | 'verification_status'> | undefined {
  return db.prepare(`SELECT authority, verification_status FROM namespaces WHERE domain = ?`).get(domain) as
    Pick<NamespaceRow, 'authority' | 'verification_status'> | undefined;
}

export function insertNamespace(db: Db, row: Omit<NamespaceRow, 'address_count'>): void {
  db.prepare(
    `INSERT INTO namespaces (domain, controller_did, controller_key_id, authority, verification_status, last_verified_at, created_at, updated_at)
     VALUES (@domain, @controller_did, @controller_key_id, @authority, @verification_status, @last_verified_at, @created_at, @updated_at)`,
  ).run(row);
}

export function updateNamespaceVerification(
  db: Db,
  domain: string,
  change: Pick<NamespaceRow, 'verification_status' | 'last_verified_at' | 'updated_at'>,
): void {
  db.prepare(`UPDATE namespaces SET verification_status = ?, last_verified_at = ?, updated_at = ? WHERE domain = ?`).run(
    change.verification_status,
    change.last_verified_at,
    change.updated_at,
    domain,
  );
}

/**
 * Removes a namespace only while it has no address and is controlled by the custody key
 * `controllerKeyId`: for taking back one registered moments ago by a step that then failed.
 */
export function deleteEmptyNodeNamespace(db: Db, domain: string, controllerKeyId: string): void {
  db.prepare(`DELETE FROM namespaces WHERE domain = ? AND controller_key_id = ? AND NOT EXISTS (SELECT 1 FROM addresses WHERE domain = ?)`).run(
    domain,
    controllerKeyId,
    domain,
  );
}

export function addressRowsIn(db: Db, domain: string): AddressRow[] {
  return db.prepare(`${ADDRESS_SELECT} WHERE a.domain = ? ORDER BY a.name`).all(domain) as AddressRow[];
}

export function findAddressRow(db: Db, domain: string, name: string): AddressRow | undefined {
  return db.prepare(`${ADDRESS_SELECT} WHERE a.domain = ? AND a.name = ?`).get(domain, name) as AddressRow | undefined;
}

/** Addresses bound to a did:svc, oldest first. */
export function addressRowsOfDid(db: Db, didAw: string): AddressRow[] {
  return db.prepare(`${ADDRESS_SELECT} WHERE a.did_aw = ? ORDER BY a.created_at, a.domain, a.name`).all(didAw) as AddressRow[];
}

/** Addresses bound to a did:svc or, without one, assigned to the did:key; oldest first. */
export function addressRowsOfIdentity(db: Db, didAw: string | null, didKey: string): AddressRow[] {
  return db
    .prepare(
      `${ADDRESS_SELECT} WHERE a.rowid IN (SELECT rowid FROM addresses WHERE did_aw = @didAw UNION ALL SELECT rowid FROM addresses WHERE did_aw IS NULL AND did_key = @didKey)
       ORDER BY a.created_at, a.domain, a.name`,
    )
    .all({ didAw, didKey }) as AddressRow[];
}

export function insertAddress(db: Db, row: AddressRow): void {
  db.prepare(
    `INSERT INTO addresses (domain, name, did_key, did_aw, created_at, updated_at) VALUES (@domain, @name, @did_key, @did_aw, @created_at, @updated_at)`,
  ).run(row);
}

export function updateAddressBinding(db: Db, domain: string, name: string, binding: { didKey: string; didAw: string | null }, updatedAt: string): void {
  db.prepare(`UPDATE addresses SET did_key = ?, did_aw = ?, updated_at = ? WHERE domain = ? AND name = ?`).run(
    binding.didKey,
    binding.didAw,
    updatedAt,
    domain,
    name,
  );
}

export function deleteAddress(db: Db, domain: string, name: string): void {
  db.prepare(`DELETE FROM addresses WHERE domain = ? AND name = ?`).run(domain, name);
}

export function insertReplacementAnnouncement(db: Db, row: ReplacementAnnouncementRow): void {
  db.prepare(
    `INSERT INTO replacement_announcements (announcement_id, domain, address_name, old_did, new_did, controller_did, timestamp, controller_signature, created_at)
     VALUES (@announcement_id, @domain, @address_name, @old_did, @new_did, @controller_did, @timestamp, @controller_signature, @created_at)`,
  ).run(row);
}

/** The announcements recorded for an address, oldest first, as the wire shows them. */
export function replacementAnnouncementsOf(db: Db, domain: string, name: string): ReplacementAnnouncement[] {
  return db
    .prepare(
      `SELECT domain || '/' || address_name AS address, controller_did, new_did, old_did, timestamp, controller_signature
       FROM replacement_announcements WHERE domain = ? AND address_name = ? ORDER BY created_at`,
    )
    .all(domain, name) as ReplacementAnnouncement[];
}

/** The newest announcement that gave `address` to the key `newDid` (a message signed with that key carries it). */
export function replacementAnnouncementTo(db: Db, newDid: string, address: string): ReplacementAnnouncement | undefined {
  return db
    .prepare(
      `SELECT domain || '/' || address_name AS address, controller_did, new_did, old_did, timestamp, controller_signature
       FROM replacement_announcements WHERE new_did = ? AND domain || '/' || address_name = ? ORDER BY created_at DESC LIMIT 1`,
    )
    .get(newDid, address) as ReplacementAnnouncement | undefined;
}
