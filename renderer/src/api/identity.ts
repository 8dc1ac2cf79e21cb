/**
 * The identity API (mail, chat, contacts) as one identity of this node: one client per area, all
 * sharing the identity's session keys (identity-keys.ts). `NodeClient.asIdentity` makes one.
 */
import { ChatClient } from './chat.ts';
import { ContactsClient } from './contacts.ts';
import { IdentityRequests, type KeySource } from './identity-keys.ts';
import { MailClient } from './mail.ts';
import type { FetchLike } from './sse.ts';

export class IdentityClient {
  readonly mail: MailClient;
  readonly chat: ChatClient;
  readonly contacts: ContactsClient;

  constructor(options: { coreUrl: string; fetch: FetchLike; keys: KeySource }) {
    const requests = new IdentityRequests(options);
    this.mail = new MailClient(requests);
    this.chat = new ChatClient(requests);
    this.contacts = new ContactsClient(requests);
  }
}
