/**
 * Contacts (research/anchor-core.md §10.4): the addresses, domains and dids an identity knows.
 * A `contacts-only` identity accepts mail and chat from outside its project only from these
 * (messaging/reachability.ts applies the rule).
 */
import { randomUUID } from 'node:crypto';
import type { NodeContext } from '../../../context.ts';
import { normalizeDomain } from '../../../crypto/dns-txt.ts';
import { conflict } from '../../../errors.ts';
import { conflictOnConstraint } from '../mail/db-errors.ts';
import type { Contact, ContactInput } from '../../../../contract/core/contacts.ts';

/**
 * Domains are case-insensitive, so an address's domain part (or a bare domain) is stored lower
 * case, without a trailing dot, as senders' addresses are. Dids are case-sensitive and kept.
 */
export function normalizeContactAddress(value: string): string {
  if (value.startsWith('did:')) return value;
  const slash = value.indexOf('/');
  const domain = slash < 0 ? value : value.slice(0, slash);
  const normalized = normalizeDomain(domain) ?? domain;
  return slash < 0 ? normalized : `${normalized}${value.slice(slash)}`;
}

export class ContactService {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  list(agentId: string): { contacts: Contact[] } {
    const contacts = this.#ctx.db
      .prepare(`SELECT contact_id, contact_address, label, created_at FROM contacts WHERE owner_agent_id = ? ORDER BY created_at, rowid`)
      .all(agentId) as Contact[];
    return { contacts };
  }

  add(agentId: string, input: ContactInput): Contact {
    const { db, clock } = this.#ctx;
    const contact: Contact = {
      contact_id: randomUUID(),
      contact_address: normalizeContactAddress(input.contact_address),
      label: input.label,
      created_at: clock.now().toISOString(),
    };
    const duplicate = `${contact.contact_address} is already a contact`;
    const exists = db.prepare(`SELECT 1 FROM contacts WHERE owner_agent_id = ? AND contact_address = ?`).get(agentId, contact.contact_address);
    if (exists !== undefined) throw conflict(duplicate);
    conflictOnConstraint(duplicate, () =>
      db
        .prepare(`INSERT INTO contacts (contact_id, owner_agent_id, contact_address, label, created_at) VALUES (?, ?, ?, ?, ?)`)
        .run(contact.contact_id, agentId, contact.contact_address, contact.label, contact.created_at),
    );
    return contact;
  }

  /**
   * Idempotent: removing a contact that is gone, or an id that is not one of the caller's, is
   * the same `{deleted: true}` (and leaves another identity's contact alone).
   */
  remove(agentId: string, contactId: string): { deleted: true } {
    this.#ctx.db.prepare(`DELETE FROM contacts WHERE contact_id = ? AND owner_agent_id = ?`).run(contactId, agentId);
    return { deleted: true };
  }
}
