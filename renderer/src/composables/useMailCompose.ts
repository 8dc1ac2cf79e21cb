/**
 * Writing mail in Mail's compose dialog: what it opens with (a kept draft, a fresh reply, an unsent
 * mail to edit) and where every edit is kept until it is sent or thrown away on purpose. A new
 * mail, or a reply per thread, is kept per identity in the window's storage (lib/drafts.ts); an
 * unsent mail stays in the outbox (stores/mail-outbox.ts). Closing the dialog keeps what was
 * written and says so in Mail's notice, with Discard.
 */
import { ref } from 'vue';
import { MailDrafts, mailDraftSlot, sameMailDraft, type KeepProblem, type MailDraft } from '../lib/drafts.ts';
import { useMailStore } from '../stores/mail.ts';
import { useOutboxStore, type OutboxItem } from '../stores/mail-outbox.ts';

export interface Composing {
  /** What the dialog opens with: a kept draft, a fresh reply, an unsent mail; null for an empty mail. */
  draft: MailDraft | null;
  /** The mail as it was before anything was written: equal to it, there is nothing to keep. */
  baseline: MailDraft;
  /** The identity writing it. */
  agentId: string;
  failure: string | null;
  /** An unsent mail being edited: it is kept in the outbox, not as a draft. */
  outboxId: string | null;
  /** The form as last edited. */
  latest: MailDraft | null;
  /** Why the draft could not be kept, for the dialog to say. */
  notKept: KeepProblem | null;
}

/** A new mail before anything is written. */
export const EMPTY_MAIL: MailDraft = { to: [], subject: '', body: '', priority: 'normal' };

export function useMailCompose() {
  const mail = useMailStore();
  const outbox = useOutboxStore();
  const drafts = new MailDrafts(window.localStorage, window.location.origin);
  const compose = ref<Composing | null>(null);

  /** Opens the dialog for `agentId` with `baseline`, or with the draft kept for it. */
  function open(agentId: string, baseline: MailDraft, extra: Partial<Composing> = {}): void {
    const kept = extra.outboxId ? null : drafts.get(agentId, mailDraftSlot(baseline));
    const draft = kept ?? (sameMailDraft(baseline, EMPTY_MAIL) ? null : baseline);
    compose.value = { draft, baseline, agentId, failure: null, outboxId: null, latest: null, notKept: null, ...extra };
  }

  function editFailed(item: OutboxItem): void {
    open(item.agentId, item.draft, { draft: item.draft, failure: item.error, outboxId: item.id });
  }

  /** Every edit: kept (an unsent mail in the outbox, else as the identity's draft), or let go when nothing is written. */
  function composed(draft: MailDraft): void {
    const current = compose.value;
    if (current === null) return;
    current.latest = draft;
    if (current.outboxId !== null) outbox.update(current.outboxId, draft);
    else if (sameMailDraft(draft, current.baseline)) {
      drafts.remove(current.agentId, mailDraftSlot(draft));
      current.notKept = null;
    } else current.notKept = drafts.put(current.agentId, draft);
  }

  /** Closed without sending: what was written stays, and the list says so, with a way to throw it away. */
  function closeCompose(): void {
    const closed = compose.value;
    compose.value = null;
    if (closed === null || closed.latest === null || sameMailDraft(closed.latest, closed.baseline) || closed.notKept !== null) return;
    if (closed.outboxId !== null) {
      mail.say('Changes kept in the unsent mail.', null);
      return;
    }
    const slot = mailDraftSlot(closed.latest);
    const reopen = closed.latest.thread_id === undefined ? 'C opens it again' : 'R on that mail opens it again';
    mail.say(`Draft kept. ${reopen}.`, null, { label: 'Discard', run: () => drafts.remove(closed.agentId, slot) });
  }

  function discardCompose(): void {
    const closed = compose.value;
    compose.value = null;
    if (closed === null) return;
    if (closed.outboxId !== null) outbox.discard(closed.outboxId);
    else drafts.remove(closed.agentId, mailDraftSlot(closed.baseline));
  }

  function send(draft: MailDraft): void {
    const sending = compose.value;
    if (sending?.outboxId) outbox.discard(sending.outboxId);
    else if (sending) drafts.remove(sending.agentId, mailDraftSlot(draft));
    outbox.send(draft);
    compose.value = null;
  }

  return { compose, open, editFailed, composed, closeCompose, discardCompose, send };
}
