import { z } from 'zod';

/** Address names: what fits in `<domain>/<name>` without ambiguity (no `/`, `.`, `~`). */
export const ADDRESS_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const addressName = z.string().regex(ADDRESS_NAME, 'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit');
const didKey = z.string().min(1).max(256);
const didAw = z.string().min(1).max(256);

export const RegisterNamespaceBody = z.strictObject({
  domain: z.string().min(1).max(253),
  controller_did: didKey.optional(),
});

export const AssignAddressBody = z.strictObject({
  name: addressName,
  did_key: didKey,
  did_aw: didAw.optional(),
});

export const RebindAddressBody = z.strictObject({
  did_key: didKey,
  did_aw: didAw.optional(),
});

export const DomainParams = z.object({ domain: z.string().min(1).max(253) });
export const AddressParams = z.object({ domain: z.string().min(1).max(253), name: z.string().min(1).max(64) });
export const ControllerQuery = z.object({ controller_did: didKey });
