/**
 * The `contacts` table: each identity's known addresses, domains and dids. The only module that
 * writes it; messaging asks whether a sender is among an identity's contacts in its own query.
 */
import type { Db } from '../../../context.ts';
import type { Contact } from '../../../../contract/core/contacts.ts';

export interface ContactRow extends Contact {
  owner_agent_id: string;
}

/** The identity's contacts, in the order they were added. */
export function contactsOf(db: Db, ownerAgentId: string): Contact[] {
  return db
    .prepare(`SELECT contact_id, contact_address, label, created_at FROM contacts WHERE owner_agent_id = ? ORDER BY created_at, rowid`)
    .all(ownerAgentId) as Contact[];
}

export function contactExists(db: Db, ownerAgentId: string, contactAddress: string): boolean {
  return db.prepare(`SELECT 1 FROM contacts WHERE owner_agent_id = ? AND contact_address = ?`).get(ownerAgentId, contactAddress) !== undefined;
}

/** Throws SQLite's constraint error when the identity already has that address. */
export function insertContact(db: Db, row: ContactRow): void {
  db.prepare(
    `INSERT INTO contacts (contact_id, owner_agent_id, contact_address, label, created_at) VALUES (@contact_id, @owner_agent_id, @contact_address, @label, @created_at)`,
  ).run(row);
}

/** Removes the contact when it is the owner's; anything else is left alone. */
export function deleteContact(db: Db, ownerAgentId: string, contactId: string): void {
  db.prepare(`DELETE FROM contacts WHERE contact_id = ? AND owner_agent_id = ?`).run(contactId, ownerAgentId);
}
