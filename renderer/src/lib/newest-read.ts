/**
 * A read of a whole list that may be asked for again before it answers (a nudge, a create, a
 * view opening): only the newest read's answer is shown, and every caller goes on once the newest
 * has answered, so what it reads next (the team chosen, the identity acted as) is that answer.
 * `run` is given whether it is still the newest, to check before it shows what it read; it says
 * its own failures (it does not throw).
 */
export function newestRead(run: (newest: () => boolean) => Promise<void>): () => Promise<void> {
  let reads = 0;
  let latest: Promise<void> = Promise.resolve();
  return async () => {
    const mine = ++reads;
    let waiting = run(() => mine === reads);
    latest = waiting;
    for (;;) {
      await waiting;
      if (waiting === latest) return;
      waiting = latest;
    }
  };
}
