import { describe, expect, it } from 'vitest';
import { CompareArgsError, DEFAULTS, parseCompareArgs } from './args.ts';
import { WORKLOAD_NAMES } from './workloads.ts';

const parse = (...argv: string[]) => parseCompareArgs(argv, WORKLOAD_NAMES);
const refusal = (...argv: string[]): string => {
  try {
    parse(...argv);
  } catch (error) {
    expect(error).toBeInstanceOf(CompareArgsError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${argv.join(' ')}`);
};

describe('bench:compare arguments', () => {
  it('need only the base; the rest has defaults and every workload runs', () => {
    expect(parse('--base', 'HEAD~3')).toEqual({ base: 'HEAD~3', workloads: [...WORKLOAD_NAMES], ...DEFAULTS });
    expect(WORKLOAD_NAMES).toEqual(['mail-send', 'inbox-page', 'mail-read', 'chat-send', 'document-save', 'search', 'shelf-read', 'identity-list']);
  });

  it('take rounds, requests and the band as a fraction or a percentage', () => {
    expect(parse('--base', 'main', '--rounds', '3', '--requests', '50', '--band', '0.05')).toMatchObject({ rounds: 3, requests: 50, band: 0.05 });
    expect(parse('--base=main', '--band=15%')).toMatchObject({ base: 'main', band: 0.15 });
  });

  it('--only keeps the named workloads in the run order, once each', () => {
    expect(parse('--base', 'x', '--only', 'search, mail-send,search')?.workloads).toEqual(['mail-send', 'search']);
  });

  it('refuse what they cannot run with, saying what to change', () => {
    expect(refusal()).toMatch(/--base <git rev> is required/);
    expect(refusal('--base', '  ')).toMatch(/--base <git rev> is required/);
    expect(refusal('--base', 'x', '--only', 'mail-send,teleport')).toMatch(/no workload teleport; the workloads are mail-send, /);
    expect(refusal('--base', 'x', '--only', ',')).toMatch(/at least one workload/);
    expect(refusal('--base', 'x', '--rounds', '0')).toMatch(/--rounds must be a whole number from 1 to 99, not 0/);
    expect(refusal('--base', 'x', '--rounds', '2.5')).toMatch(/--rounds must be a whole number/);
    expect(refusal('--base', 'x', '--requests', '5')).toMatch(/--requests must be a whole number from 10/);
    for (const band of ['0', '1', '150%', '-0.1', 'wide', ''])
      expect(refusal('--base', 'x', `--band=${band}`)).toMatch(/--band must be a fraction between 0 and 1/);
    expect(refusal('--base', 'x', '--round', '3')).toMatch(/round/);
    expect(refusal('--base', 'x', 'extra')).toMatch(/extra/);
  });

  it('--help asks for the usage instead of a run', () => {
    expect(parse('--help')).toBeNull();
    expect(parse('-h', '--base', 'x')).toBeNull();
  });
});
