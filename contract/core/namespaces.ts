/**
 * Namespaces and their addresses (`/v1/namespaces`; spec §4.1). Reads are public; every write
 * carries a DIDKey signature by the namespace's controller. The node validates requests and
 * describes its API with these schemas; the UI takes the inferred types.
 */
import { z } from 'zod';
import { ADDRESS_NAME, namespaceDomain, namespaceDomainError } from '../core-rules.ts';

export { ADDRESS_NAME };

/** An address name, as the identity API words its refusal. */
export const addressName = z.string().regex(ADDRESS_NAME, 'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit');
const didKey = z.string().min(1).max(256);
const didAw = z.string().min(1).max(256);

/**
 * A namespace domain a request names, read as the node stores it (lower case, no trailing dot);
 * one that cannot be a domain is refused here, before any signature is checked or DNS asked.
 */
export const NamespaceDomain = z
  .string()
  .min(1)
  .max(253)
  .transform((value, context) => {
    const domain = namespaceDomain(value);
    if (domain === null) context.addIssue({ code: 'custom', message: `not a valid domain name: ${namespaceDomainError(value) ?? 'invalid'}`, input: value });
    return domain ?? value;
  });

/**
 * A namespace domain in a path, spelled as the node stores it. One that cannot be a domain is
 * no namespace of this node, so it stays as written and the service answers 404 for it.
 */
export const NamespaceDomainPath = z
  .string()
  .min(1)
  .max(253)
  .transform((value) => namespaceDomain(value) ?? value);

export const RegisterNamespaceBody = z.strictObject({
  domain: NamespaceDomain,
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

export const DomainParams = z.object({ domain: NamespaceDomainPath });
export const AddressParams = z.object({ domain: NamespaceDomainPath, name: z.string().min(1).max(64) });
export const ControllerQuery = z.object({ controller_did: didKey });

/** The most names one address-list query may ask for (a federation batch's senders fit). */
export const ADDRESS_QUERY_MAX_NAMES = 64;

/**
 * `GET /v1/namespaces/{domain}/addresses?names=a,b`: only those addresses (the ones that exist),
 * so a receiving node checks a batch's senders in one request. Without it, all of them. A node
 * older than the filter ignores it and answers the whole list, which still answers the question.
 */
export const AddressListQuery = z.object({
  names: z
    .string()
    .max(ADDRESS_QUERY_MAX_NAMES * 65)
    .transform((value) => value.split(','))
    .refine((names) => names.length <= ADDRESS_QUERY_MAX_NAMES, `at most ${ADDRESS_QUERY_MAX_NAMES} names`)
    .refine((names) => names.every((name) => name.length > 0 && name.length <= 64), 'comma-separated names of 1-64 characters')
    .optional(),
});

/** What the namespace's `_svcid` DNS record says of its controller. */
export const VerificationStatus = z.enum(['unverified', 'verified', 'revoked']);
export type VerificationStatus = z.output<typeof VerificationStatus>;

/** Why a namespace exists on this node: the owner's consent, DNS proof, or neither (registered before that rule). */
export const NamespaceAuthority = z.enum(['owner', 'dns', 'unproven']);
export type NamespaceAuthority = z.output<typeof NamespaceAuthority>;

/**
 * What a reader may believe of an address on a namespace, strongest first: DNS names its
 * controller (`verified`), this node's owner registered it (`owner`), or nobody checked.
 */
export const NamespaceTrust = z.enum(['verified', 'owner', 'unverified']);
export type NamespaceTrust = z.output<typeof NamespaceTrust>;

export const Namespace = z.object({
  domain: z.string(),
  controller_did: z.string(),
  verification_status: VerificationStatus,
  last_verified_at: z.string().nullable(),
  /** The node holds the controller key (it assigns addresses itself). */
  node_controlled: z.boolean(),
  /** Ours: why the namespace exists here. */
  authority: NamespaceAuthority,
  address_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Namespace = z.output<typeof Namespace>;

export const NamespaceList = z.object({ namespaces: z.array(Namespace) });
export type NamespaceList = z.output<typeof NamespaceList>;

/** An address `<domain>/<name>` and the key it names (a did:svc's current key when bound to one). */
export const Address = z.object({
  domain: z.string(),
  name: z.string(),
  address: z.string(),
  did_key: z.string(),
  current_did_key: z.string(),
  did_aw: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Address = z.output<typeof Address>;

export const AddressList = z.object({ addresses: z.array(Address) });

/** Removing an address: allowed whatever the namespace's DNS state. */
export const AddressRemoved = z.object({ deleted: z.literal(true), domain: z.string(), name: z.string() });
export type AddressRemoved = z.output<typeof AddressRemoved>;

/** The controller vouches that an address moved from `old_did` to `new_did` (an identity replaced). */
export const ReplacementAnnouncement = z.object({
  address: z.string(),
  controller_did: z.string(),
  new_did: z.string(),
  old_did: z.string(),
  timestamp: z.string(),
  controller_signature: z.string(),
});
export type ReplacementAnnouncement = z.output<typeof ReplacementAnnouncement>;

export const ReplacementList = z.object({ replacement_announcements: z.array(ReplacementAnnouncement) });
