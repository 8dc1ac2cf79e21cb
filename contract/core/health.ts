/**
 * `GET /health` (upstream's shape, `{status, version, checks}`): whether the node answers and its
 * database with it, and its version. No credential; served on every listener.
 */
import { z } from 'zod';

export const Health = z.object({
  /** `ok`, or `unhealthy` when a check failed (the node answers 503 then). */
  status: z.enum(['ok', 'unhealthy']),
  version: z.string(),
  checks: z.object({ database: z.enum(['ok', 'error']) }),
});
export type Health = z.output<typeof Health>;
