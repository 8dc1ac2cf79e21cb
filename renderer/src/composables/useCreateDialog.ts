/**
 * The state of a "New …" dialog: the form resets each time the dialog opens, and what it created
 * (often a key shown once) is dropped when it closes, so no secret lingers in the DOM. With the
 * form's field errors, nothing is sent until the client's checks pass, and the node's problems
 * show next to their fields.
 */
import { shallowRef, watch } from 'vue';
import type { FieldErrors } from './useFieldErrors.ts';
import { useSubmit } from './useSubmit.ts';

export function useCreateDialog<T, K extends string = never>(isOpen: () => boolean, resetForm: () => void, form?: FieldErrors<K>) {
  const { busy, error, run } = useSubmit(form);
  const created = shallowRef<T | null>(null);

  watch(isOpen, (open) => {
    created.value = null;
    if (!open) return;
    resetForm();
    form?.reset();
    error.value = null;
  });

  async function create(action: () => Promise<T>): Promise<void> {
    if (form !== undefined && !form.validate()) return;
    const result = await run(action);
    if (result !== null) created.value = result;
  }

  return { created, busy, error, create };
}
