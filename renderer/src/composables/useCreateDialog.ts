/**
 * The state of a "New …" dialog: the form resets each time the dialog opens, and what it created
 * (often a key shown once) is dropped when it closes, so no secret lingers in the DOM.
 */
import { shallowRef, watch } from 'vue';
import { useSubmit } from './useSubmit.ts';

export function useCreateDialog<T>(isOpen: () => boolean, resetForm: () => void) {
  const { busy, error, run } = useSubmit();
  const created = shallowRef<T | null>(null);

  watch(isOpen, (open) => {
    created.value = null;
    if (!open) return;
    resetForm();
    error.value = null;
  });

  async function create(action: () => Promise<T>): Promise<void> {
    const result = await run(action);
    if (result !== null) created.value = result;
  }

  return { created, busy, error, create };
}
