/**
 * What this node asks another node about its namespaces and identities, written once: where that
 * node answers for a namespace, one of its addresses and a did:svc (upstream's registry routes,
 * which every node serves on its peer listener), and how much of such an answer is read. The
 * checks of an arriving message's sender (inbound.ts) and the lookup of a recipient's encryption
 * key (remote-encryption-keys.ts) both ask through these.
 */

/**
 * The largest answer another node may give to an address, namespace, replacements or did:svc key
 * lookup: each is one small JSON object (under 2 KiB for a real node), so 64 KiB leaves room for
 * long replacement lists while a hostile node can cost us no more than that per question.
 */
export const CHECK_ANSWER_MAX_BYTES = 64 * 1024;

/** `GET /v1/namespaces/{domain}`: the namespace, its controller and DNS state. */
export const namespacePathOf = (domain: string): string => `/v1/namespaces/${encodeURIComponent(domain)}`;

/** `GET /v1/namespaces/{domain}/addresses/{name}`: the address's current did:key and did:svc. */
export const addressPathOf = (domain: string, name: string): string => `${namespacePathOf(domain)}/addresses/${encodeURIComponent(name)}`;

/** `GET /v1/did/{did_aw}/key`: a did:svc's current did:key, log head and encryption key assertion. */
export const didKeyPathOf = (didAw: string): string => `/v1/did/${encodeURIComponent(didAw)}/key`;

/** `GET /v1/did/{did_aw}/log`: a did:svc's whole log. */
export const didLogPathOf = (didAw: string): string => `/v1/did/${encodeURIComponent(didAw)}/log`;
