/**
 * One run per burst, never two at once: a live view is nudged whenever something it shows
 * changed (a publish nudges twice, a burst of agents many times), and each nudge only means
 * "read it again". `schedule()` runs `run` once the nudges pause for `delayMs`; nudges while it
 * runs make exactly one more run after it.
 */
export function coalesce(run: () => Promise<void>, delayMs: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let pending = false;

  function schedule(): void {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (running !== null) {
        pending = true;
        return;
      }
      running = run().finally(() => {
        running = null;
        if (pending) {
          pending = false;
          schedule();
        }
      });
    }, delayMs);
  }

  return schedule;
}
