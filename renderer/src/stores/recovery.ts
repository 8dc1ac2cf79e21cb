/**
 * Whether this node could be brought back after a loss: when its last recovery kit was made and
 * whether a key changed since (then the kit no longer holds every key). The sidebar marks Settings
 * until a kit holds every key, and Settings → Recovery says why; both read it here. Refreshed when
 * the app connects, when the window comes back into view, every ten minutes (a key is renewed or
 * rotated in the background), and after a kit is made.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { RecoveryKitStatus } from '../api/owner.ts';
import { useSessionStore } from './session.ts';

const POLL_MS = 10 * 60_000;

export const useRecoveryStore = defineStore('recovery', () => {
  const session = useSessionStore();
  const kit = ref<RecoveryKitStatus | null>(null);
  /** A kit is due: none was made, or a key changed since the last one. Unknown (not read yet) is not due. */
  const kitDue = computed(() => kit.value !== null && (kit.value.last_created_at === null || kit.value.keys_changed_since));

  async function refresh(): Promise<void> {
    try {
      kit.value = await session.api().recoveryKitStatus();
    } catch {
      // A hint: Settings → Recovery reads it again and says what failed.
    }
  }

  let timer: ReturnType<typeof setInterval> | undefined;
  const onVisible = (): void => {
    if (document.visibilityState === 'visible') void refresh();
  };

  function start(): void {
    stop();
    void refresh();
    timer = setInterval(onVisible, POLL_MS);
    document.addEventListener('visibilitychange', onVisible);
  }

  function stop(): void {
    clearInterval(timer);
    timer = undefined;
    document.removeEventListener('visibilitychange', onVisible);
  }

  return { kit, kitDue, refresh, start, stop };
});
