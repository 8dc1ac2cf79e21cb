/**
 * The action a ConfirmDialog asks about, for what it is asked about (a member to revoke, a
 * blueprint to delete; null while the dialog is closed): run once at a time (`busy`), with the
 * node's refusal kept in words for the dialog, and that refusal gone as soon as the dialog asks
 * again or about something else, so it never stands under another question.
 */
import { watch } from 'vue';
import { useSubmit } from './useSubmit.ts';

export function useConfirmAction<S>(subject: () => S | null) {
  const { busy, error, run } = useSubmit();
  watch(subject, () => (error.value = null));

  /** Runs `action` on the subject asked about; its result, or null when there is none or it failed. */
  async function confirm<T>(action: (subject: S) => Promise<T>): Promise<T | null> {
    const asked = subject();
    if (asked === null) return null;
    return run(() => action(asked));
  }

  return { busy, error, confirm };
}
