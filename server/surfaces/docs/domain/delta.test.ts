import { describe, expect, it } from 'vitest';
import { seeded } from '../../../../test/support/seeded.ts';
import {
  applyStored,
  commonPrefix,
  commonSuffix,
  encodeDelta,
  encodeSnapshot,
  encodeVersion,
  isSnapshotVersion,
  reconstruct,
  snapshotVersionFor,
  SNAPSHOT_INTERVAL,
  type StoredVersion,
} from './delta.ts';

const b = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('snapshot cadence', () => {
  it('snapshots version 1 and every 64th after it', () => {
    expect(SNAPSHOT_INTERVAL).toBe(64);
    expect([1, 2, 64, 65, 66, 128, 129].map(isSnapshotVersion)).toEqual([true, false, false, true, false, false, true]);
    expect([1, 2, 64, 65, 128, 129, 1000].map(snapshotVersionFor)).toEqual([1, 1, 1, 65, 65, 129, 961]);
  });
});

describe('common prefix and suffix', () => {
  it('finds them across chunk boundaries', () => {
    const base = Buffer.alloc(20_000, 'a');
    const changed = Buffer.from(base);
    changed[10_001] = 'b'.charCodeAt(0);
    expect(commonPrefix(base, changed)).toBe(10_001);
    expect(commonSuffix(base, changed)).toBe(20_000 - 10_002);
    expect(commonPrefix(base, base)).toBe(20_000);
  });

  it('never lets prefix and suffix overlap', () => {
    const previous = b('aaaa');
    const next = b('aaaaaa');
    const delta = encodeDelta(previous, next);
    expect(delta.prefix_len + delta.suffix_len).toBeLessThanOrEqual(previous.length);
    expect(applyStored(previous, delta).toString()).toBe('aaaaaa');
  });
});

describe('deltas', () => {
  it('stores only the changed middle', () => {
    const previous = b(`${'x'.repeat(1000)}hello${'y'.repeat(1000)}`);
    const next = b(`${'x'.repeat(1000)}HELLO, world${'y'.repeat(1000)}`);
    const delta = encodeDelta(previous, next);
    expect(delta).toMatchObject({ kind: 'delta', prefix_len: 1000, suffix_len: 1000, compressed: false });
    expect(delta.payload.toString()).toBe('HELLO, world');
    expect(applyStored(previous, delta).equals(next)).toBe(true);
  });

  it('round-trips insertions, deletions, empty bodies and identical bodies', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['', 'new'],
      ['old', ''],
      ['same', 'same'],
      ['abc', 'abXc'],
      ['abXc', 'abc'],
      ['start', 'prefix start'],
      ['end', 'end suffix'],
    ];
    for (const [from, to] of cases) expect(applyStored(b(from), encodeDelta(b(from), b(to))).toString()).toBe(to);
  });

  it('works on UTF-8 bytes, even when a change splits a multi-byte character', () => {
    // "é" (c3 a9) → "è" (c3 a8): the common prefix ends inside the character.
    const previous = b('café 🙂 ok');
    const next = b('cafè 🙃 ok');
    const delta = encodeDelta(previous, next);
    expect(applyStored(previous, delta).toString('utf8')).toBe('cafè 🙃 ok');
  });

  it('compresses a large changed middle and leaves a small one raw', () => {
    const big = encodeDelta(b('a'), b(`a${'lorem ipsum '.repeat(500)}`));
    expect(big.compressed).toBe(true);
    expect(big.payload.length).toBeLessThan(500);
    const snapshot = encodeSnapshot(b('# Title\n\n' + 'Some repeated text. '.repeat(1000)));
    expect(snapshot).toMatchObject({ kind: 'snapshot', compressed: true });
    expect(applyStored(null, snapshot).toString()).toMatch(/^# Title/);
    expect(encodeSnapshot(b('tiny')).compressed).toBe(false);
  });

  it('refuses a delta without a previous body or one that does not fit', () => {
    const delta: StoredVersion = { kind: 'delta', prefix_len: 5, suffix_len: 5, payload: b(''), compressed: false };
    expect(() => applyStored(null, delta)).toThrow(/previous/);
    expect(() => applyStored(b('short'), delta)).toThrow(/fit/);
    expect(() => reconstruct([delta])).toThrow(/snapshot/);
  });
});

describe('random edits (property)', () => {
  it('reconstructs every version of a long random history exactly', () => {
    const random = seeded(42);
    const alphabet = ['a', 'b', ' ', '\n', 'é', '🙂', '|', '#'];
    const piece = (n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const bodies: Buffer[] = [b(piece(2000))];
    for (let i = 1; i < 300; i++) {
      const text = bodies[i - 1]!.toString('utf8');
      const at = Math.floor(random() * (text.length + 1));
      const cut = Math.floor(random() * 20);
      bodies.push(b(text.slice(0, at) + piece(Math.floor(random() * 30)) + text.slice(at + cut)));
    }
    const stored = bodies.map((body, i) => encodeVersion(i + 1, i === 0 ? null : bodies[i - 1]!, body));
    expect(stored.filter((s) => s.kind === 'snapshot')).toHaveLength(Math.ceil(300 / SNAPSHOT_INTERVAL));
    for (let n = 1; n <= bodies.length; n++) {
      const from = snapshotVersionFor(n);
      const chain = stored.slice(from - 1, n);
      expect(chain.length).toBeLessThanOrEqual(SNAPSHOT_INTERVAL);
      expect(reconstruct(chain).equals(bodies[n - 1]!), `version ${n}`).toBe(true);
    }
    const deltaBytes = stored.filter((s) => s.kind === 'delta').reduce((sum, s) => sum + s.payload.length, 0);
    expect(deltaBytes / (stored.length - 5)).toBeLessThan(200);
  });
});
