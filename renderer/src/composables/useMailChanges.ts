/**
 * Mail changed elsewhere (an agent or another window archived, deleted, marked read or unread a
 * message) arrives as `mail_changed` nudges; each message named is read again and put where it
 * now belongs in the folder shown (lib/mail.ts#placeChanged). Our own changes come back as nudges
 * too, and a read that overlaps one of them could show the message as it was before it: `ours`
 * wraps each of our changes so such a read is made again after it.
 */
import type { Ref } from 'vue';
import type { MailClient, MailMessage } from '../api/mail.ts';
import type { NodeChange } from '../api/owner.ts';
import { placeChanged, type MailFolder } from '../lib/mail.ts';

/** Folders listed from the inbox route, where a changed message can appear or leave. */
export const INBOX_FOLDERS: readonly MailFolder[] = ['inbox', 'unread', 'archive'];

/** Changes made elsewhere close together (an agent archiving twenty messages) are read back together. */
const CHANGED_DEBOUNCE_MS = 250;

/** The mail list shown, as the mail store holds it. */
export interface ShownMail {
  agentId: Ref<string | null>;
  folder: Ref<MailFolder>;
  messages: Ref<MailMessage[]>;
  loaded: Readonly<Ref<boolean>>;
  /** Reads the folder again from the start. */
  reload: () => Promise<void>;
  /** Whether the list is still the one shown when the ticket was taken. */
  ticket: () => () => boolean;
  api: () => MailClient;
}

/** `largestBurst`: more changes than this at once are one re-read of the folder. */
export function useMailChanges(shown: ShownMail, largestBurst: number) {
  const { agentId, folder, messages, loaded } = shown;

  /** Our own changes on their way to the node, and how many were ever made here. */
  let changing = 0;
  let changesMade = 0;
  /** Messages the node said changed, not yet read again. */
  const changed = new Set<string>();
  let changedTimer: ReturnType<typeof setTimeout> | undefined;

  /** One of our own changes: what is read back meanwhile is read again after it (it would undo it on screen). */
  async function ours<T>(work: () => Promise<T>): Promise<T> {
    changing++;
    changesMade++;
    try {
      return await work();
    } finally {
      changing--;
    }
  }

  function scheduleChanged(): void {
    clearTimeout(changedTimer);
    changedTimer = setTimeout(() => void showChanged(), CHANGED_DEBOUNCE_MS);
  }

  /**
   * Each message changed is read again and shown as the node now has it, in or out of the folder
   * shown. A burst larger than a page is one re-read of the folder.
   */
  async function showChanged(): Promise<void> {
    const ids = [...changed];
    changed.clear();
    if (ids.length === 0 || agentId.value === null || !loaded.value || !INBOX_FOLDERS.includes(folder.value)) return;
    const again = (): void => {
      for (const id of ids) changed.add(id);
      scheduleChanged();
    };
    // Our own change still on its way: its answer, then this.
    if (changing > 0) return again();
    if (ids.length > largestBurst) {
      await shown.reload();
      return;
    }
    const current = shown.ticket();
    const shownFolder = folder.value as 'inbox' | 'unread' | 'archive';
    const at = changesMade;
    const read = await Promise.all(
      ids.map((id) =>
        shown
          .api()
          .message(id)
          .then(
            (m) => [id, m] as const,
            () => null,
          ),
      ),
    );
    if (!current() || folder.value !== shownFolder) return;
    if (changesMade !== at) return again();
    let next = messages.value;
    for (const entry of read) if (entry !== null) next = placeChanged(next, entry[0], entry[1], shownFolder);
    messages.value = next;
  }

  function changedElsewhere(change: NodeChange): void {
    if (change.kind !== 'mail_changed' || change.agentId === undefined || change.agentId !== agentId.value || change.messageId === undefined) return;
    changed.add(change.messageId);
    scheduleChanged();
  }

  return { ours, changedElsewhere };
}
