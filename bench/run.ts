/**
 * `npm run bench`: every benchmark, each printing one JSON line with its baseline and ratio.
 * BENCH_N scales the iteration counts.
 */
import { run as backup } from './backup.bench.ts';
import { run as coreIdentity } from './core-identity.bench.ts';
import { run as devices } from './devices.bench.ts';
import { run as docs } from './docs.bench.ts';
import { run as e2eeMail } from './e2ee-mail.bench.ts';
import { run as federation } from './federation.bench.ts';
import { run as inboxUi } from './inbox-ui.bench.ts';
import { run as keyAssertions } from './key-assertions.bench.ts';
import { run as library } from './library.bench.ts';
import { run as messaging } from './messaging.bench.ts';
import { run as responseSerializer } from './response-serializer.bench.ts';
import { run as scale } from './scale.bench.ts';
import { run as search } from './search.bench.ts';
import { run as sseFrames } from './sse-frames.bench.ts';

// BENCH_ONLY=messaging runs one file's benchmarks.
const all = {
  'core-identity': coreIdentity,
  messaging,
  library,
  docs,
  scale,
  'inbox-ui': inboxUi,
  search,
  federation,
  'response-serializer': responseSerializer,
  'sse-frames': sseFrames,
  'key-assertions': keyAssertions,
  'e2ee-mail': e2eeMail,
  backup,
  devices,
};
const only = process.env.BENCH_ONLY;
for (const [name, bench] of Object.entries(all)) if (!only || only === name) await bench();
