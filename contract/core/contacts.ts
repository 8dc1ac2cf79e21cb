/**
 * Contacts (`/v1/contacts`, upstream's): the addresses, domains and dids an
 * identity knows. A `contacts-only` identity accepts mail and chat from outside its project only
 * from these. The node validates requests and describes its API with these schemas; the UI takes
 * the inferred types.
 */
import { z } from 'zod';

/** Addresses (`acme.com/alice`), domains (`acme.com`) and dids (`did:key:z…`, `did:svc:…`). */
export const CONTACT_ADDRESS = /^[a-zA-Z0-9/_.:-]+$/;

export const ContactBody = z.strictObject({
  contact_address: z
    .string()
    .min(1)
    .max(256)
    .regex(CONTACT_ADDRESS, 'must be an address <domain>/<name>, a domain, or a did (letters, digits, "/", "_", ".", ":", "-")'),
  label: z.string().max(128).default(''),
});
export type ContactInput = z.output<typeof ContactBody>;

export const ContactIdParams = z.object({ contact_id: z.string().min(1).max(256) });

export const Contact = z.object({
  contact_id: z.string(),
  /** Stored with its domain part lower case; dids as given. */
  contact_address: z.string(),
  label: z.string(),
  created_at: z.string(),
});
export type Contact = z.output<typeof Contact>;

export const ContactList = z.object({ contacts: z.array(Contact) });
export type ContactList = z.output<typeof ContactList>;

/** Removing is idempotent: a contact already gone, or another identity's, answers the same. */
export const ContactRemoved = z.object({ deleted: z.literal(true) });
