/**
 * A form's submit: one at a time (`busy` disables the button), and a failure kept in words for an
 * ErrorNote. With a form's field errors (useFieldErrors), the node's problems about a field go
 * next to that field instead, and the note clears as soon as any field is edited: an error never
 * stays after the fix.
 */
import { ref, watch } from 'vue';
import { errorMessage } from '../lib/format.ts';
import type { FieldErrors } from './useFieldErrors.ts';

export function useSubmit<K extends string = never>(form?: FieldErrors<K>) {
  const busy = ref(false);
  const error = ref<string | null>(null);

  if (form !== undefined) watch(form.values, () => (error.value = null));

  /** Runs `action`; its result, or null when it failed (then `error` and the fields say why). */
  async function run<T>(action: () => Promise<T>): Promise<T | null> {
    busy.value = true;
    error.value = null;
    try {
      return await action();
    } catch (caught) {
      error.value = form === undefined ? errorMessage(caught) : form.take(caught);
      return null;
    } finally {
      busy.value = false;
    }
  }

  return { busy, error, run };
}
