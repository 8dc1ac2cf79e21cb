import { describe, expect, it } from 'vitest';
import { newestRead } from './newest-read.ts';

/** Reads that answer when the test says, each showing its answer if it is still the newest. */
function reads() {
  const shown: string[] = [];
  const pending: { answer: string; done: () => void }[] = [];
  const load = newestRead(
    (newest) =>
      new Promise<void>((resolve) => {
        const answer = `answer ${pending.length + 1}`;
        pending.push({
          answer,
          done: () => {
            if (newest()) shown.push(answer);
            resolve();
          },
        });
      }),
  );
  return { load, shown, answer: (n: number) => pending[n - 1]!.done() };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('newestRead', () => {
  it('shows only the newest answer, whatever order the answers come in', async () => {
    const { load, shown, answer } = reads();
    const first = load();
    const second = load();
    answer(2);
    answer(1);
    await Promise.all([first, second]);
    expect(shown).toEqual(['answer 2']);
  });

  it('has a caller whose read was overtaken go on only once the newest has answered', async () => {
    const { load, answer } = reads();
    let firstDone = false;
    const first = load().then(() => (firstDone = true));
    void load();
    answer(1);
    await tick();
    expect(firstDone).toBe(false);
    answer(2);
    await first;
    expect(firstDone).toBe(true);
  });

  it('follows a read overtaken twice to the last one', async () => {
    const { load, shown, answer } = reads();
    let firstDone = false;
    const first = load().then(() => (firstDone = true));
    void load();
    answer(1);
    await tick();
    void load();
    answer(2);
    await tick();
    expect(firstDone).toBe(false);
    answer(3);
    await first;
    expect(shown).toEqual(['answer 3']);
  });
});
