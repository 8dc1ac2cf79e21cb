/**
 * The command line of `npm run bench:compare`: which commit to compare against, which workloads,
 * how many rounds of how many requests, and how wide the noise band is. Pure, so it is tested
 * without starting anything.
 */
import { parseArgs } from 'node:util';

export interface CompareOptions {
  /** The git revision the working tree is compared against, as typed (`HEAD~3`, a branch, a hash). */
  base: string;
  /** The workloads to run, in the order the run takes them. */
  workloads: string[];
  /** Rounds of every workload; the verdict reads the median of their ratios. */
  rounds: number;
  /** Timed requests per node in each round of each workload. */
  requests: number;
  /** The noise band: a median ratio further than this from 1 is reported (0.1 is ±10%). */
  band: number;
}

/** A command line this script cannot run with; the message says what to change. */
export class CompareArgsError extends Error {
  override name = 'CompareArgsError';
}

export const DEFAULTS = { rounds: 5, requests: 200, band: 0.1 } as const;

export const USAGE = `npm run bench:compare -- --base <git rev> [--only <workload,...>] [--rounds N] [--requests N] [--band F]
  --base      the commit the working tree is measured against (required)
  --only      a comma-separated subset of the workloads
  --rounds    rounds of every workload, default ${DEFAULTS.rounds}; the verdict reads the median of their ratios
  --requests  timed requests per node per round, default ${DEFAULTS.requests}
  --band      the noise band around a ratio of 1, as a fraction or a percentage, default ${DEFAULTS.band} (±${DEFAULTS.band * 100}%)`;

function integer(flag: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new CompareArgsError(`--${flag} must be a whole number from ${min} to ${max}, not ${text}`);
  return value;
}

/** `0.1` or `10%`: a fraction strictly between 0 and 1. */
function band(text: string | undefined): number {
  if (text === undefined) return DEFAULTS.band;
  const percent = text.endsWith('%');
  const number = percent ? text.slice(0, -1) : text;
  const value = /^\d*\.?\d+$/.test(number) ? Number(number) / (percent ? 100 : 1) : NaN;
  if (!(value > 0 && value < 1)) throw new CompareArgsError(`--band must be a fraction between 0 and 1 (0.1) or a percentage (10%), not ${text}`);
  return value;
}

/** The workloads `--only` names, in the run's own order; without it, all of them. */
function chosen(only: string | undefined, known: readonly string[]): string[] {
  if (only === undefined) return [...known];
  const names = only
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new CompareArgsError(`--only: no workload ${unknown.join(', ')}; the workloads are ${known.join(', ')}`);
  if (names.length === 0) throw new CompareArgsError(`--only needs at least one workload of ${known.join(', ')}`);
  return known.filter((name) => names.includes(name));
}

/** The options of `argv` (the arguments after the script), or null when help was asked for. */
export function parseCompareArgs(argv: string[], known: readonly string[]): CompareOptions | null {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        base: { type: 'string' },
        only: { type: 'string' },
        rounds: { type: 'string' },
        requests: { type: 'string' },
        band: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new CompareArgsError(error instanceof Error ? error.message : String(error));
  }
  const text = (name: string): string | undefined => (typeof values[name] === 'string' ? values[name] : undefined);
  if (values.help === true) return null;
  const base = text('base')?.trim();
  if (base === undefined || base === '') throw new CompareArgsError('--base <git rev> is required: the commit to compare the working tree against');
  return {
    base,
    workloads: chosen(text('only'), known),
    rounds: integer('rounds', text('rounds'), DEFAULTS.rounds, 1, 99),
    requests: integer('requests', text('requests'), DEFAULTS.requests, 10, 100_000),
    band: band(text('band')),
  };
}
