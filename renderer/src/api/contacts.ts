/** An identity's contacts (/v1/contacts), through `IdentityRequests` (identity-keys.ts). */
// The wire contract (contract/) is written once, for the node and for this client, so the two
// cannot drift apart.
import type { Contact } from '../../../contract/core/contacts.ts';
import type { IdentityRequests } from './identity-keys.ts';

export type { Contact };

export class ContactsClient {
  readonly #requests: IdentityRequests;

  constructor(requests: IdentityRequests) {
    this.#requests = requests;
  }

  async list(): Promise<Contact[]> {
    return (await this.#requests.call<{ contacts: Contact[] }>('GET', '/v1/contacts')).contacts;
  }

  add(address: string, label = ''): Promise<Contact> {
    return this.#requests.call<Contact>('POST', '/v1/contacts', { contact_address: address, label });
  }
}
