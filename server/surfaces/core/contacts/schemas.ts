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
