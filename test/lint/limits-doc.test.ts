/**
 * docs/security.md opens with the node's limits, each value written from the constant the node
 * enforces (scripts/limits-table.ts), so a changed limit cannot leave its documented value behind.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bytes, duration, withLimitsTable } from '../../scripts/limits-table.ts';

const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');

describe('the limits of docs/security.md', () => {
  it('are the values in the code (run `npm run docs:limits` after changing one)', () => {
    expect(withLimitsTable(doc)).toBe(doc);
  });

  it('are written in units a reader takes in at once', () => {
    expect([bytes(2 * 1024 * 1024), bytes(64 * 1024), bytes(2 ** 31), bytes(1000)]).toEqual(['2 MiB', '64 KiB', '2 GiB', '1,000 bytes']);
    expect([
      duration(25_000),
      duration(60_000),
      duration(300_000),
      duration(3_600_000),
      duration(86_400_000),
      duration(14 * 86_400_000),
      duration(1500),
    ]).toEqual(['25 s', '60 s', '5 min', '1 h', '1 day', '14 days', '1,500 ms']);
  });
});
