/** One shared clock for relative times: ticks every 30 s while anything shows one. */
import { onScopeDispose, ref } from 'vue';
import type { Ref } from 'vue';

const now = ref(new Date());
let users = 0;
let timer: ReturnType<typeof setInterval> | undefined;

export function useNow(): Ref<Date> {
  users += 1;
  if (timer === undefined) timer = setInterval(() => (now.value = new Date()), 30_000);
  onScopeDispose(() => {
    users -= 1;
    if (users === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  });
  return now;
}
