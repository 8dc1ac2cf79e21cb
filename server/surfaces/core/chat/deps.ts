/** What chat's commands and reads work with; wired once by ChatService. */
import type { NodeContext } from '../../../context.ts';
import type { IdentityService } from '../identities/service.ts';
import type { RemoteEncryptionKeys } from '../identities/remote-encryption-keys.ts';
import type { MailService } from '../mail/service.ts';
import type { EndToEnd } from '../messaging/end-to-end.ts';
import type { RemoteQueue } from '../messaging/remote-queue.ts';
import type { Recipients } from '../messaging/recipients.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import type { ChatPresence } from './presence.ts';

export interface ChatDeps {
  ctx: NodeContext;
  identities: IdentityService;
  recipients: Recipients;
  namespaces: NamespaceService;
  /** Sealing, checking and opening end-to-end encrypted messages (the node as its identities' client). */
  endToEnd: EndToEnd;
  /** Who has a session's stream open (sender_waiting, targets_connected). */
  presence: ChatPresence;
  /** Messages to participants on other nodes. */
  queue: RemoteQueue;
  /** The key another node publishes for its identity now: what a client's envelope to a participant there must be sealed to. */
  remoteKeys: RemoteEncryptionKeys;
  /** The identity's unread mail, which chat's pending answer shows beside its chats (`messages_waiting`); mail's to count. */
  mail: Pick<MailService, 'unreadCount'>;
}
