/**
 * The recipient's side of a message (ours; upstream has none): archive and unarchive, delete from
 * this inbox, mark unread. Each acts only on a message in the caller's own inbox (anything else is
 * a 404, as for ack) and never on the sender's copy, which is the same row seen from Sent.
 *
 * One rule keeps the badge, the Unread folder and the event stream in agreement: unread mail is
 * always in the inbox. So archiving and deleting also mark the message read (it is dealt with,
 * no longer waiting), and marking an archived message unread puts it back in the inbox.
 */
import type { MailDeleted, MailFolderState } from '../../../../contract/core/mail.ts';
import type { Db, NodeContext } from '../../../context.ts';
import type { EventBus } from '../../../events/bus.ts';
import { notFound } from '../../../errors.ts';
import { identityTopic, mailTopic } from '../../../events/bus.ts';
import { archiveMail, deleteMail, mailFolderState, markMailUnread, unarchiveMail, type OwnMail } from './store/messages.ts';

/** After a change commits: the identity's streams re-read what is waiting; the owner's UI shows the message as it is now. */
export function publishMailChange(bus: EventBus, agentId: string, messageId: string): void {
  bus.publish(identityTopic(agentId));
  bus.publish(mailTopic(agentId, messageId));
}

export class MailFolders {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  /** Moves it to the Archive (and marks it read); archiving again keeps the first time. */
  archive(agentId: string, messageId: string): MailFolderState {
    return this.#change({ agentId, messageId }, archiveMail);
  }

  /** Back to the inbox, as it is (read or not). */
  unarchive(agentId: string, messageId: string): MailFolderState {
    return this.#change({ agentId, messageId }, unarchiveMail);
  }

  /** Unread again, and in the inbox (see the rule above). */
  markUnread(agentId: string, messageId: string): MailFolderState {
    return this.#change({ agentId, messageId }, markMailUnread);
  }

  /**
   * Deletes it from the caller's inbox: it is listed nowhere for the caller again, and every
   * action on it is a 404 (so is deleting it twice). The sender's Sent keeps it.
   */
  remove(agentId: string, messageId: string): MailDeleted {
    const { db, clock, bus } = this.#ctx;
    const now = clock.now().toISOString();
    if (!deleteMail(db, { agentId, messageId }, now)) throw notFound('SVC_ERR_MESSAGE_NOT_FOUND', 'Message not found');
    publishMailChange(bus, agentId, messageId);
    return { message_id: messageId, deleted_at: now };
  }

  #change(mine: OwnMail, write: (db: Db, mine: OwnMail, now: string) => void): MailFolderState {
    const { db, clock, bus } = this.#ctx;
    const now = clock.now().toISOString();
    const state = db.transaction(() => {
      write(db, mine, now);
      return mailFolderState(db, mine);
    })();
    if (state === undefined) throw notFound('SVC_ERR_MESSAGE_NOT_FOUND', 'Message not found');
    publishMailChange(bus, mine.agentId, mine.messageId);
    return state;
  }
}
