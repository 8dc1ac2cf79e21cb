/**
 * What a comparison must undo however it ends (the two nodes, the base commit's worktree, the
 * temp data): steps are added as things are made and run once, newest first, when the run ends,
 * fails or is interrupted. A step that fails is reported and the others still run, so one stuck
 * node does not leave the worktree behind.
 */
export class Cleanup {
  readonly #steps: { what: string; run: () => Promise<void> | void }[] = [];
  #done: Promise<void> | null = null;

  /** `run` undoes `what`; it is called at most once. */
  add(what: string, run: () => Promise<void> | void): void {
    this.#steps.push({ what, run });
  }

  /** Whether the steps have begun to run (the run ended, failed or was interrupted). */
  get started(): boolean {
    return this.#done !== null;
  }

  /** Runs every step, newest first; a second call waits for the first. */
  run(): Promise<void> {
    this.#done ??= (async () => {
      for (const step of this.#steps.reverse()) {
        try {
          await step.run();
        } catch (error) {
          process.stderr.write(`bench:compare: cleaning up ${step.what} failed: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      }
    })();
    return this.#done;
  }
}

/** The exit codes a shell gives a process ended by these signals. */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/**
 * Ctrl-C (or a SIGTERM) would otherwise end the process at once and leave both nodes running and
 * the worktree registered: run the cleanup first, then exit as the signal would have. Returns a
 * function that takes the handlers off again.
 */
export function cleanUpOnSignals(cleanup: Cleanup): () => void {
  const handlers = Object.entries(SIGNAL_EXIT).map(([signal, code]) => {
    const handler = (): void => {
      process.stderr.write(`bench:compare: ${signal}, cleaning up\n`);
      void cleanup.run().finally(() => process.exit(code));
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  return () => handlers.forEach((off) => off());
}
