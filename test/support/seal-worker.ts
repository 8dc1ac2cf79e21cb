/** Waiting for the process's seal worker (server/crypto/e2ee/seal-pool.ts), which declines every seal until it has started. */
import { sealPool } from '../../server/crypto/e2ee/seal-pool.ts';

/** Sends with `send` (the attempt's number) until the seal worker has made one: sends seal on their own thread until it is ready. */
export async function untilSealWorkerSeals(send: (attempt: number) => Promise<unknown>): Promise<void> {
  for (let attempt = 0; sealPool.stats.prepared === 0; attempt++) {
    if (attempt === 300) throw new Error('the seal worker never became ready');
    await send(attempt);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
