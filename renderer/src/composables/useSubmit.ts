/** A form's submit: one at a time (`busy` disables the button), and a failure kept in words for an ErrorNote. */
import { ref } from 'vue';
import { errorMessage } from '../lib/format.ts';

export function useSubmit() {
  const busy = ref(false);
  const error = ref<string | null>(null);

  /** Runs `action`; its result, or null when it failed (then `error` says why). */
  async function run<T>(action: () => Promise<T>): Promise<T | null> {
    busy.value = true;
    error.value = null;
    try {
      return await action();
    } catch (caught) {
      error.value = errorMessage(caught);
      return null;
    } finally {
      busy.value = false;
    }
  }

  return { busy, error, run };
}
