/**
 * `npm run bench`: every benchmark, each printing one JSON line with its baseline and ratio.
 * BENCH_N scales the iteration counts.
 */
import { run as coreIdentity } from './core-identity.bench.ts';

for (const bench of [coreIdentity]) await bench();
