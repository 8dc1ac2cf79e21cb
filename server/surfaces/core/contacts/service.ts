/**
 * Contacts (upstream's `/v1/contacts`): the addresses, domains and dids an identity knows; an
 * address matches exactly, a domain matches every address under it, as upstream matches them.
 * A `contacts-only` identity accepts mail and chat from outside its project only from these
 * (messaging/reachability.ts applies the rule).
 */
import { randomUUID } from 'node:crypto';
import type { NodeContext } from '../../../context.ts';
import { conflict } from '../../../errors.ts';
import { conflictOnConstraint } from '../../../store/db-errors.ts';
import { normalizeContactAddress } from './domain/contact-address.ts';
import { contactExists, contactsOf, deleteContact, insertContact } from './store.ts';
import type { Contact, ContactInput } from '../../../../contract/core/contacts.ts';

export class ContactService {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  list(agentId: string): { contacts: Contact[] } {
    return { contacts: contactsOf(this.#ctx.db, agentId) };
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
    if (contactExists(db, agentId, contact.contact_address)) throw conflict('SVC_ERR_CONTACT_EXISTS', duplicate);
    conflictOnConstraint('SVC_ERR_CONTACT_EXISTS', duplicate, () => insertContact(db, { ...contact, owner_agent_id: agentId }));
    return contact;
  }

  /**
   * Idempotent: removing a contact that is gone, or an id that is not one of the caller's, is
   * the same `{deleted: true}` (and leaves another identity's contact alone).
   */
  remove(agentId: string, contactId: string): { deleted: true } {
    deleteContact(this.#ctx.db, agentId, contactId);
    return { deleted: true };
  }
}
