/**
 * What can be done to a message in the mail list: mark it read or unread, archive it (with Undo),
 * move it back from the Archive, delete it. Each is shown at once and put back, with the node's
 * reason, when the node refuses; the unread badge follows (stores/unread.ts). Used by the mail
 * store (stores/mail.ts), which holds the list and the selection.
 */
import { ref, type Ref } from 'vue';
import type { MailMessage } from '../api/mail.ts';
import { errorMessage } from '../lib/format.ts';
import { mergeMessages, nextAfterRemoval, patchMessage, withoutMessage } from '../lib/mail.ts';
import { useUnreadStore } from '../stores/unread.ts';
import type { ShownMail } from './useMailChanges.ts';
import type { Notice } from './useNotice.ts';

export interface MessageActionsContext extends Omit<ShownMail, 'loaded' | 'reload' | 'ticket'> {
  selectedId: Readonly<Ref<string | null>>;
  select: (id: string | null) => void;
  /** Runs one of our own changes (composables/useMailChanges.ts#ours). */
  ours: <T>(work: () => Promise<T>) => Promise<T>;
  say: (text: string, undo: (() => void) | null, action?: Notice['action']) => void;
  dismissNotice: () => void;
}

export function useMessageActions(context: MessageActionsContext) {
  const { agentId, folder, messages, selectedId, select, ours, say, api } = context;
  const unread = useUnreadStore();

  /** Why the last "mark read" failed, for the reading pane. */
  const ackError = ref<string | null>(null);
  /** Why the last archive, delete or mark unread failed, above the list. */
  const actionError = ref<string | null>(null);

  /** Acknowledges a message (marks it read): shown read at once, put back if the node refuses. */
  async function markRead(id: string): Promise<void> {
    const message = messages.value.find((m) => m.message_id === id);
    if (message === undefined || message.read_at !== null) return;
    const owner = agentId.value;
    const patch = (readAt: string | null) => (messages.value = messages.value.map((m) => (m.message_id === id ? { ...m, read_at: readAt } : m)));
    patch(new Date().toISOString());
    unread.mailRead();
    ackError.value = null;
    try {
      const answer = await ours(() => api().ack(id));
      if (owner === agentId.value) patch(answer.acknowledged_at);
    } catch (error) {
      if (owner !== agentId.value) return;
      patch(null);
      ackError.value = `Could not mark it read: ${errorMessage(error)}`;
      unread.schedule(0);
    }
  }

  /**
   * Takes `id` out of the list shown (it left this folder) and shows the next one; returns how to
   * put it back if the node refuses.
   */
  function takeOut(id: string): () => void {
    const message = messages.value.find((m) => m.message_id === id);
    const wasSelected = selectedId.value === id;
    const next = nextAfterRemoval(messages.value, id);
    messages.value = withoutMessage(messages.value, id);
    if (wasSelected) select(next);
    return () => {
      if (message === undefined) return;
      messages.value = mergeMessages(messages.value, [message]);
      if (wasSelected) select(id);
    };
  }

  /** Runs a change at the node; on a refusal puts things back and says why. */
  async function change(work: () => Promise<unknown>, putBack: () => void, what: string): Promise<boolean> {
    const owner = agentId.value;
    actionError.value = null;
    try {
      await ours(work);
      return true;
    } catch (error) {
      if (owner === agentId.value) {
        putBack();
        actionError.value = `Could not ${what}: ${errorMessage(error)}`;
      }
      unread.schedule(0);
      return false;
    }
  }

  /** Archives (the node marks it read); "Undo" puts it back as it was, unread included. */
  async function archive(id: string): Promise<void> {
    const message = messages.value.find((m) => m.message_id === id);
    if (message === undefined || folder.value === 'archive') return;
    const wasUnread = message.read_at === null;
    const putBack = takeOut(id);
    if (wasUnread) unread.mailRead();
    const done = await change(() => api().move(id, 'archive'), putBack, 'archive it');
    if (done) say(`Archived “${message.subject || '(no subject)'}”.`, () => void restore(message, wasUnread));
  }

  /** Undo of an archive: back in the inbox, unread again if it was. */
  async function restore(message: MailMessage, wasUnread: boolean): Promise<void> {
    context.dismissNotice();
    const owner = agentId.value;
    try {
      const state = await ours(() => api().move(message.message_id, wasUnread ? 'unread' : 'unarchive'));
      if (owner !== agentId.value) return;
      if (folder.value !== 'archive' && (folder.value !== 'unread' || state.read_at === null)) {
        // Back in its place, not opened: opening it would mark it read again.
        messages.value = mergeMessages(messages.value, [{ ...message, archived_at: null, read_at: state.read_at }]);
      }
      if (wasUnread) unread.schedule(0);
    } catch (error) {
      if (owner === agentId.value) actionError.value = `Could not undo: ${errorMessage(error)}`;
    }
  }

  /** From the Archive back to the inbox, as it is. */
  async function unarchive(id: string): Promise<void> {
    if (folder.value !== 'archive' || !messages.value.some((m) => m.message_id === id)) return;
    const putBack = takeOut(id);
    if (await change(() => api().move(id, 'unarchive'), putBack, 'move it to the inbox')) say('Moved to the inbox.', null);
  }

  /** Unread again (and, from the Archive, back in the inbox). */
  async function markUnread(id: string): Promise<void> {
    const message = messages.value.find((m) => m.message_id === id);
    if (message === undefined || message.read_at === null) return;
    const putBack =
      folder.value === 'archive'
        ? takeOut(id)
        : (() => {
            messages.value = patchMessage(messages.value, id, { read_at: null });
            return () => (messages.value = patchMessage(messages.value, id, { read_at: message.read_at }));
          })();
    if (await change(() => api().move(id, 'unread'), putBack, 'mark it unread')) unread.schedule(0);
  }

  /** Deletes it from this identity's mail for good (the view asked first). */
  async function remove(id: string): Promise<void> {
    const message = messages.value.find((m) => m.message_id === id);
    if (message === undefined) return;
    const putBack = takeOut(id);
    if (message.read_at === null) unread.mailRead();
    if (await change(() => api().delete(id), putBack, 'delete it')) say(`Deleted “${message.subject || '(no subject)'}”.`, null);
  }

  return { ackError, actionError, markRead, markUnread, archive, unarchive, remove };
}
