/**
 * `npm run bench:compare -- --base <git rev>`: the working tree against an earlier commit, in the
 * same run. The base commit is checked out in a temp worktree, both trees' headless nodes run side
 * by side on fresh data dirs, are seeded alike over HTTP, and every workload takes turns request by
 * request between them, so load from elsewhere on the machine falls on both alike. One JSON line
 * per workload (base and head p50/p99, the ratio head/base), then a verdict line naming the
 * workloads outside the noise band. docs/benchmarks.md says what a base commit must have.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompareArgsError, parseCompareArgs, USAGE, type CompareOptions } from './compare/args.ts';
import { addBaseTree, BaseRevisionError, describeHead, resolveCommit } from './compare/base-tree.ts';
import { Cleanup, cleanUpOnSignals } from './compare/cleanup.ts';
import { seed, type SeededNode } from './compare/seed.ts';
import { NodeRequestError } from './compare/http.ts';
import { startTreeNode, TreeNodeStartError, type TreeNode } from './compare/tree-node.ts';
import { compareRounds, verdict, type Comparison, type RoundTimings } from './compare/verdict.ts';
import { WORKLOAD_NAMES, WORKLOADS } from './compare/workloads.ts';
import { report, timeInterleaved } from './measure.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Untimed calls per node at the start of each round of a workload. */
const WARMUP = 20;

const say = (line: string): void => void process.stderr.write(`bench:compare: ${line}\n`);

/** Starts both nodes at once, each on a fresh data dir in `temp`. */
async function startBoth(trees: { base: string; head: string }, temp: string, cleanup: Cleanup): Promise<{ base: TreeNode; head: TreeNode }> {
  const start = (side: 'base' | 'head'): Promise<TreeNode> => {
    const dataDir = join(temp, `data-${side}`);
    mkdirSync(dataDir);
    return startTreeNode(trees[side], dataDir, cleanup);
  };
  const [base, head] = await Promise.all([start('base'), start('head')]);
  return { base, head };
}

/**
 * Every workload, round after round; every other round the head goes first in each turn, so neither
 * side always meets a cache the other just warmed or a disk the other just flushed.
 */
async function measure(options: CompareOptions, nodes: { base: SeededNode; head: SeededNode }): Promise<Comparison[]> {
  const workloads = WORKLOADS.filter((w) => options.workloads.includes(w.name));
  const rounds = new Map<string, RoundTimings[]>(workloads.map((w) => [w.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    say(`round ${round + 1} of ${options.rounds}`);
    const order = round % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const);
    for (const workload of workloads) {
      const calls = WARMUP + options.requests;
      const fns = Object.fromEntries(order.map((side) => [side, workload.prepare(nodes[side], calls)])) as Record<'base' | 'head', () => Promise<unknown>>;
      rounds.get(workload.name)?.push(await timeInterleaved(options.requests, fns, WARMUP));
    }
  }
  return workloads.map((w) => compareRounds(w.name, rounds.get(w.name) ?? []));
}

async function compare(options: CompareOptions, cleanup: Cleanup): Promise<void> {
  const baseCommit = resolveCommit(ROOT, options.base);
  const head = describeHead(ROOT);
  const temp = mkdtempSync(join(tmpdir(), 'svc-node-compare-'));
  cleanup.add(`the temp folder ${temp}`, () => rmSync(temp, { recursive: true, force: true }));
  const baseTree = join(temp, 'base');
  say(`checking out ${options.base} (${baseCommit.slice(0, 10)}) in ${baseTree}`);
  addBaseTree(ROOT, baseCommit, baseTree, cleanup);
  const started = await startBoth({ base: baseTree, head: ROOT }, temp, cleanup);
  say(`base node ${started.base.url}, head node ${started.head.url}; seeding both`);
  const [base, headNode] = await Promise.all([seed(started.base), seed(started.head)]);
  const comparisons = await measure(options, { base, head: headNode });
  for (const c of comparisons) report('compare', { ...c, requests_per_round: options.requests });
  report('compare-verdict', {
    base: { rev: options.base, commit: baseCommit },
    head: { commit: head.commit, uncommitted_changes: head.dirty },
    rounds: options.rounds,
    requests_per_round: options.requests,
    ...verdict(comparisons, options.band),
  });
}

let options: CompareOptions | null;
try {
  options = parseCompareArgs(process.argv.slice(2), WORKLOAD_NAMES);
} catch (error) {
  if (!(error instanceof CompareArgsError)) throw error;
  process.stderr.write(`bench:compare: ${error.message}\n${USAGE}\n`);
  process.exit(2);
}
if (options === null) {
  process.stdout.write(`${USAGE}\nworkloads: ${WORKLOAD_NAMES.join(', ')}\n`);
  process.exit(0);
}

const cleanup = new Cleanup();
const stopHandlingSignals = cleanUpOnSignals(cleanup);
try {
  await compare(options, cleanup);
} catch (error) {
  // Once a signal started the cleanup, the requests it cut short fail too; that is not news. The
  // refusals this script names say all there is in their message; anything else keeps its stack.
  const named = error instanceof BaseRevisionError || error instanceof TreeNodeStartError || error instanceof NodeRequestError;
  if (!cleanup.started) say(`failed: ${named ? `${error.name}: ${error.message}` : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup.run();
  stopHandlingSignals();
}
