/**
 * The recipient's side of a message (ours, issue 14): archive and unarchive, delete from this
 * inbox, mark unread. Each acts only on a message in the caller's own inbox (anything else is a
 * 404, as for ack) and never on the sender's copy, which is the same row seen from Sent.
 *
 * One rule keeps the badge, the Unread folder and the event stream in agreement: unread mail is
 * always in the inbox. So archiving and deleting also mark the message read (it is dealt with,
 * no longer waiting), and marking an archived message unread puts it back in the inbox.
 */
import type { MailDeleted, MailFolderState } from '../../../../contract/core/mail.ts';
import type { NodeContext } from '../../../context.ts';
import type { EventBus } from '../../../events/bus.ts';
import { notFound } from '../../../errors.ts';
import { identityTopic, mailTopic } from '../../../events/bus.ts';

/** The caller's own, undeleted copy. */
const MINE = `message_id = @messageId AND to_agent_id = @agentId AND deleted_at IS NULL`;

interface StateRow {
  archived_at: string | null;
  read_at: string | null;
}

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
    return this.#change(agentId, messageId, (now) => [
      `UPDATE messages SET archived_at = COALESCE(archived_at, @now), read_at = COALESCE(read_at, @now) WHERE ${MINE}`,
      { now },
    ]);
  }

  /** Back to the inbox, as it is (read or not). */
  unarchive(agentId: string, messageId: string): MailFolderState {
    return this.#change(agentId, messageId, () => [`UPDATE messages SET archived_at = NULL WHERE ${MINE}`, {}]);
  }

  /** Unread again, and in the inbox (see the rule above). */
  markUnread(agentId: string, messageId: string): MailFolderState {
    return this.#change(agentId, messageId, () => [`UPDATE messages SET read_at = NULL, archived_at = NULL WHERE ${MINE}`, {}]);
  }

  /**
   * Deletes it from the caller's inbox: it is listed nowhere for the caller again, and every
   * action on it is a 404 (so is deleting it twice). The sender's Sent keeps it.
   */
  remove(agentId: string, messageId: string): MailDeleted {
    const { db, clock, bus } = this.#ctx;
    const now = clock.now().toISOString();
    const changed = db
      .prepare(`UPDATE messages SET deleted_at = @now, read_at = COALESCE(read_at, @now) WHERE ${MINE}`)
      .run({ now, agentId, messageId }).changes;
    if (changed === 0) throw notFound('Message not found');
    publishMailChange(bus, agentId, messageId);
    return { message_id: messageId, deleted_at: now };
  }

  #change(agentId: string, messageId: string, statement: (now: string) => [string, Record<string, string>]): MailFolderState {
    const { db, clock, bus } = this.#ctx;
    const [sql, extra] = statement(clock.now().toISOString());
    const row = db.transaction(() => {
      db.prepare(sql).run({ ...extra, agentId, messageId });
      return db.prepare(`SELECT archived_at, read_at FROM messages WHERE ${MINE}`).get({ agentId, messageId }) as StateRow | undefined;
    })();
    if (row === undefined) throw notFound('Message not found');
    publishMailChange(bus, agentId, messageId);
    return { message_id: messageId, folder: row.archived_at === null ? 'inbox' : 'archive', archived_at: row.archived_at, read_at: row.read_at };
  }
}
