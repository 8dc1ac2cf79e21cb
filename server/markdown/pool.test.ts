/**
 * The render pool with real worker threads and budgets small enough to reach: a render over its
 * time budget is refused (422) and its worker replaced; the queue is bounded (503 with
 * Retry-After), per listener, and the loopback listener's renders go first; a render that
 * outgrows the worker's heap is refused; the event loop is free while a render runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { RenderPool } from './pool.ts';

/** Over a second of rendering: one-character rows that markdown-it completes to whole table rows. */
function slowTable(chars: number): string {
  let markdown = 'a|b\n-|-\n';
  while (markdown.length + 2 <= chars) markdown += 'x\n';
  return markdown;
}

const pools: RenderPool[] = [];
const pool = (options: ConstructorParameters<typeof RenderPool>[0]): RenderPool => {
  const made = new RenderPool(options);
  pools.push(made);
  return made;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((made) => made.close()));
});

async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('RenderPool', () => {
  it('renders in a worker, with the team images it is given', async () => {
    const renderer = pool({});
    const id = '0a0a0a0a-0000-4000-8000-000000000000';
    expect(await renderer.render(`# Hi ![logo](/assets/${id}) ![x](/assets/ffffffff-0000-4000-8000-000000000000)`, [[id, `/assets/${id}`]])).toBe(
      `<h1>Hi <img src="/assets/${id}" alt="logo" /> x</h1>\n`,
    );
    expect(renderer.stats).toMatchObject({ rendered: 1, workers_started: 1 });
  });

  it('refuses a render over its time budget with a 422, and carries on with a fresh worker', async () => {
    const renderer = pool({ budgetMs: 150 });
    const refused = await refusal(renderer.render(slowTable(400_000), []));
    expect(refused.statusCode).toBe(422);
    expect(refused.code).toBe('SVC_ERR_DOCUMENT_TOO_COMPLEX');
    expect(refused.message).toMatch(/too complex to render \(it takes more than 0.15 s\)/);
    expect(await renderer.render('*fine*', [])).toBe('<p><em>fine</em></p>\n');
    expect(renderer.stats).toMatchObject({ rendered: 1, timed_out: 1, workers_started: 2 });
  });

  it('keeps the event loop free while a render runs', async () => {
    // What is checked is that timers keep firing while the worker renders, not how soon: a loaded
    // machine may delay any one of them, but a render on this thread would let none of them run
    // until it finished. Nor is the budget measured: the node's 5 s must not refuse this table here.
    const renderer = pool({ budgetMs: 60_000 });
    await renderer.render('warm up', []);
    const rendering = renderer.render(slowTable(200_000), []);
    let done = false;
    void rendering.finally(() => (done = true));
    let ticksWhileRendering = 0;
    // The render sets `done` when it finishes, while this loop awaits; the types do not see that.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (!done) ticksWhileRendering++;
    }
    expect(await rendering).toContain('<table>');
    expect(ticksWhileRendering).toBeGreaterThanOrEqual(3);
  });

  it('refuses renders beyond its queue with a 503 and Retry-After', async () => {
    const renderer = pool({ queueMax: 2 });
    const accepted = [renderer.render(slowTable(50_000), []), renderer.render('two', [])];
    const refused = await refusal(renderer.render('three', []));
    expect(refused.statusCode).toBe(503);
    expect(refused.code).toBe('SVC_ERR_RENDERER_BUSY');
    expect(refused.headers).toEqual({ 'retry-after': '5' });
    expect(refused.message).toMatch(/renderer is busy/);
    await Promise.all(accepted);
    expect(renderer.stats.refused_busy).toBe(1);
    // Room again once the queue drained.
    expect(await renderer.render('four', [])).toBe('<p>four</p>\n');
  });

  it('serves the loopback listener first: a full peer queue neither refuses nor delays the owner', async () => {
    const renderer = pool({ queueMax: 2 });
    await renderer.render('warm up', [], 'peer');
    const finished: string[] = [];
    const track = (name: string, promise: Promise<string>) => promise.then(() => finished.push(name));
    // A peer keeps the worker busy and its own queue full.
    const peers = [track('peer-running', renderer.render(slowTable(50_000), [], 'peer'))];
    peers.push(track('peer-1', renderer.render('one', [], 'peer')), track('peer-2', renderer.render('two', [], 'peer')));
    expect((await refusal(renderer.render('three', [], 'peer'))).statusCode).toBe(503);
    // The owner's render is accepted, and runs before the peers' waiting ones.
    const owner = track('owner', renderer.render('mine', [], 'loopback'));
    await Promise.all([...peers, owner]);
    expect(finished).toEqual(['peer-running', 'owner', 'peer-1', 'peer-2']);
  });

  it('refuses a render that outgrows the worker heap, and carries on', { timeout: 60_000 }, async () => {
    const renderer = pool({ heapMb: 24, budgetMs: 30_000 });
    await renderer.render('warm up', []);
    const refused = await refusal(renderer.render(slowTable(4_000_000), []));
    expect(refused.statusCode).toBe(422);
    expect(refused.code).toBe('SVC_ERR_DOCUMENT_TOO_COMPLEX');
    expect(refused.message).toMatch(/too complex to render \(it needs more than 24 MB\)/);
    expect(renderer.stats.crashed).toBe(1);
    expect(await renderer.render('after', [])).toBe('<p>after</p>\n');
  });
});
