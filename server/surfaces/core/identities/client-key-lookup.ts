/**
 * Where a client of this node finds an address's encryption key, here or on another node, by the
 * routes upstream's clients ask their registry (docs/design/e2ee-v2-wire.md, section 2):
 * `GET /v1/namespaces/{domain}/addresses/{name}` for the address's did:svc and current did:key,
 * then `GET /v1/did/{did_aw}/key` for its `encryption_key`. This node is the registry of its own
 * namespaces and answers anyone for them. A self-custodial identity sealing mail for an address
 * on another node asks its own node the same two questions: for an identity that asks (its
 * credentials on the request), and only then, the node answers for the other node's address with
 * what it found there (federation/remote-encryption-keys.ts, through RemoteEncryptionKeys: the
 * directory, the guarded outbound client, the assertion verified against the address's keys,
 * remembered a few minutes, each failure a refusal of its own). Anyone else hears what it hears
 * for any address the node does not hold, so the routes are no open proxy to other nodes.
 */
import type { Address } from '../../../../contract/core/namespaces.ts';
import type { DidKey } from '../../../../contract/core/did.ts';
import { notFound, ServiceError } from '../../../errors.ts';
import { splitAddress } from '../../../../contract/core-rules.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import type { RemoteEncryptionKeys } from './remote-encryption-keys.ts';
import type { IdentityService } from './service.ts';

export class ClientKeyLookup {
  readonly #namespaces: NamespaceService;
  readonly #identities: IdentityService;
  readonly #remote: RemoteEncryptionKeys;

  constructor(namespaces: NamespaceService, identities: IdentityService, remote: RemoteEncryptionKeys) {
    this.#namespaces = namespaces;
    this.#identities = identities;
    this.#remote = remote;
  }

  /**
   * The address `domain/name`: this node's, for anyone; one on another node, for an identity of
   * this node that asks (`forIdentity`), as its node answered it, with the did:svc and current
   * did:key its published encryption key verified against.
   */
  async address(domain: string, name: string, forIdentity: boolean): Promise<Address> {
    if (!forIdentity || this.#namespaces.isLocal(domain)) return this.#namespaces.getAddress(domain, name);
    const parts = splitAddress(`${domain}/${name}`);
    if (parts === null) return this.#namespaces.getAddress(domain, name);
    const found = await this.#remote.find(`${parts.domain}/${parts.name}`);
    return {
      domain: parts.domain,
      name: parts.name,
      address: found.address,
      did_key: found.didKey,
      current_did_key: found.didKey,
      did_aw: found.stableId,
      created_at: found.addressCreatedAt ?? '',
      updated_at: found.addressUpdatedAt ?? found.addressCreatedAt ?? '',
    };
  }

  /**
   * The did:svc's current did:key and encryption key: this node's, for anyone; for an identity of
   * this node that asks, also one of another node's address, once that address was looked up
   * (upstream's clients ask for the address first), its key found again by address with the
   * lookup's rules. Its log stays on its own node, so that answer carries no `log_head`.
   */
  async didKey(didAw: string, forIdentity: boolean): Promise<DidKey> {
    try {
      return this.#identities.didKey(didAw);
    } catch (error) {
      const address = forIdentity && error instanceof ServiceError && error.code === 'SVC_ERR_DID_NOT_FOUND' ? this.#remote.addressOf(didAw) : null;
      if (address === null) throw error;
      const found = await this.#remote.find(address);
      if (found.stableId !== didAw) throw notFound('SVC_ERR_DID_NOT_FOUND', `did:svc not found: ${address} is another did:svc now`);
      return { did_aw: didAw, current_did_key: found.didKey, encryption_key: found.assertion };
    }
  }
}
