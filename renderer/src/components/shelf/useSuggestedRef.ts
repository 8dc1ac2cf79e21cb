/**
 * An id field filled from a name ("Code Reviewer (v2)" → `code-reviewer-v2`, lib/shelf.ts
 * suggestRef) until the person types an id of their own; emptied, it follows the name again.
 * The new-profile and new-blueprint forms share it, so both fill their ids the same way.
 */
import { ref, watch, type Ref } from 'vue';
import { suggestRef } from '../../lib/shelf.ts';

export function useSuggestedRef(name: Ref<string>) {
  const id = ref('');
  /** The id was typed, so the name no longer suggests it. */
  const typed = ref(false);

  watch(name, (value) => {
    if (!typed.value) id.value = suggestRef(value);
  });

  function onInput(event: Event): void {
    id.value = (event.target as HTMLInputElement).value;
    typed.value = id.value !== '';
  }

  function reset(): void {
    id.value = suggestRef(name.value);
    typed.value = false;
  }

  return { id, typed, onInput, reset };
}
