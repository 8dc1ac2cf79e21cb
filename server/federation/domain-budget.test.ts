import { describe, expect, it } from 'vitest';
import { DomainBudgets } from './domain-budget.ts';

function clockAt(ms: number) {
  const clock = { t: ms, now: () => new Date(clock.t) };
  return clock;
}

describe('DomainBudgets', () => {
  it('cuts a domain off by messages or by bytes, whichever is spent first, charging nothing when it refuses', () => {
    const clock = clockAt(0);
    const budgets = new DomainBudgets({ messages: { burst: 3, perSecond: 1 }, bytes: { burst: 1000, perSecond: 100 } }, clock);
    expect([budgets.take('a.test', 10), budgets.take('a.test', 10), budgets.take('a.test', 10)]).toEqual([0, 0, 0]);
    expect(budgets.take('a.test', 10)).toBe(1);
    // Another domain has its own budget.
    expect(budgets.take('b.test', 900)).toBe(0);
    // 100 bytes left: a 200-byte message waits a second for them, and is not charged a message.
    expect(budgets.take('b.test', 200)).toBe(1);
    expect(budgets.take('b.test', 100)).toBe(0);
    clock.t += 1000;
    expect(budgets.take('a.test', 10)).toBe(0);
    expect(budgets.take('b.test', 100)).toBe(0);
  });
});
