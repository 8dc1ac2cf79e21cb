import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Database } from '../../store/database.ts';
import { CAPTURE_FUNCTION, DEVICE_FUNCTION, SEQ_FUNCTION, TICK_FUNCTION } from '../../store/sync-functions.ts';
import { ChangeApplier } from './apply.ts';
import { installCapture, removeCapture } from './capture-store.ts';
import { opsAfter, vectorOf, type DeviceOp } from './op-log-store.ts';
import { SYNCED_TABLES } from './tables.ts';

let root: string;
const opened: Database[] = [];

/** A device as sync sees it: its database with the capture triggers, and the functions they call (as DeviceSync defines them). */
function device(id: string) {
  const db = openDatabase({ file: join(root, id, 'node.db'), key: randomBytes(32) });
  opened.push(db);
  const state = { capture: true, seq: 0, lamport: 0 };
  db.function(CAPTURE_FUNCTION, () => (state.capture ? 1 : 0));
  db.function(DEVICE_FUNCTION, () => id);
  db.function(SEQ_FUNCTION, () => ++state.seq);
  db.function(TICK_FUNCTION, () => ++state.lamport);
  installCapture(db, SYNCED_TABLES);
  const applier = new ChangeApplier(db, SYNCED_TABLES);
  return {
    db,
    /** Applies what `from` holds that this one lacks, as a pull would. */
    pull(from: { db: Database }, reverse = false): void {
      const { ops } = opsAfter(from.db, vectorOf(db), 10_000);
      state.capture = false;
      try {
        db.transaction(() => applier.apply(reverse ? [...ops].reverse() : ops))();
      } finally {
        state.capture = true;
      }
      for (const op of ops) state.lamport = Math.max(state.lamport, op.lamport);
    },
    ops: (): DeviceOp[] => db.prepare('SELECT * FROM device_ops ORDER BY origin, seq').all() as DeviceOp[],
    peer: (domain: string) => db.prepare('SELECT url FROM peers WHERE domain = ?').pluck().get(domain) as string | undefined,
    setPeer(domain: string, url: string): void {
      const now = new Date().toISOString();
      db.prepare('INSERT INTO peers (domain, url, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (domain) DO UPDATE SET url = excluded.url').run(
        domain,
        url,
        now,
        now,
      );
    },
  };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-sync-apply-'));
});

afterEach(() => {
  for (const db of opened.splice(0)) closeDatabase(db);
  rmSync(root, { recursive: true, force: true });
});

describe('changes captured on one device and applied on another', () => {
  it('are captured in the change’s own transaction, and not when it rolls back', () => {
    const a = device('dev_a');
    a.setPeer('b.test', 'http://b');
    expect(() =>
      a.db.transaction(() => {
        a.setPeer('c.test', 'http://c');
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(a.ops().map((op) => [op.tbl, op.op, op.key])).toEqual([['peers', 'upsert', '["b.test"]']]);
  });

  it('leave out what stays on its device: this computer’s settings', () => {
    const a = device('dev_a');
    a.db.prepare(`INSERT INTO node_settings (key, value) VALUES ('tunnel', '{}'), ('theme', '"dark"')`).run();
    expect(a.ops().map((op) => op.key)).toEqual(['["theme"]']);
  });

  it('converge on the later change whatever order they arrive in, deletes included', () => {
    const a = device('dev_a');
    const b = device('dev_b');
    a.setPeer('x.test', 'http://first');
    b.pull(a);
    // Both change the same row while apart; b's change is the later one (it saw a's first).
    a.setPeer('x.test', 'http://from-a');
    b.setPeer('x.test', 'http://from-b');
    a.pull(b, true);
    b.pull(a, true);
    expect(a.peer('x.test')).toBe('http://from-b');
    expect(b.peer('x.test')).toBe('http://from-b');
    // A delete is a change like any other.
    a.db.prepare(`DELETE FROM peers WHERE domain = 'x.test'`).run();
    b.pull(a);
    expect(b.peer('x.test')).toBeUndefined();
    // Applied changes are not captured again: nothing echoes back.
    expect(b.ops().filter((op) => op.origin === 'dev_b')).toHaveLength(1);
  });

  it('tie on Lamport time by device id, the same on both', () => {
    const a = device('dev_a');
    const b = device('dev_b');
    a.setPeer('y.test', 'http://a');
    b.setPeer('y.test', 'http://b');
    a.pull(b);
    b.pull(a);
    expect(a.peer('y.test')).toBe(b.peer('y.test'));
    expect(a.peer('y.test')).toBe('http://b');
  });

  it('skip a change the schema refuses (a row whose parent is not there) and go on', () => {
    const a = device('dev_a');
    const b = device('dev_b');
    // An address naming a did:svc and namespace b never receives (their changes are withheld here).
    a.db.pragma('foreign_keys = OFF');
    a.db
      .prepare(
        `INSERT INTO addresses (domain, name, did_key, did_aw, created_at, updated_at) VALUES ('n.test', 'x', 'did:key:z', 'did:svc:x', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
      )
      .run();
    a.db.pragma('foreign_keys = ON');
    a.setPeer('z.test', 'http://z');
    b.pull(a);
    expect(b.peer('z.test')).toBe('http://z');
    expect(b.db.prepare('SELECT count(*) FROM addresses').pluck().get()).toBe(0);
  });

  it('stop being captured once the node has no other device', () => {
    const a = device('dev_a');
    removeCapture(a.db);
    a.setPeer('w.test', 'http://w');
    expect(a.ops()).toEqual([]);
  });
});
