import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Database } from '../../store/database.ts';
import { CAPTURE_FUNCTION, DEVICE_FUNCTION, SEQ_FUNCTION, TICK_FUNCTION } from '../../store/sync-functions.ts';
import { ChangeApplier } from './apply.ts';
import { installCapture, removeCapture } from './capture-store.ts';
import { opsAfter, prunedPast, pruneOps, vectorOf, type DeviceOp } from './op-log-store.ts';
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

  it('keep each device’s own line of a document’s versions when both added one while apart, never a mix of the two', () => {
    const a = device('dev_a');
    const b = device('dev_b');
    const version = (db: Database, number: number, id: string) =>
      db
        .prepare(
          `INSERT INTO document_versions (document_id, version_number, version_id, kind, payload, compressed, body_bytes, body_sha256, source, created_at)
           VALUES ('doc', ?, ?, 'snapshot', x'00', 0, 1, 'x', 'api', '2026-12-07T00:00:00Z')`,
        )
        .run(number, id);
    a.db
      .prepare(
        `INSERT INTO documents (document_id, team_id, slug, title, body, current_version, created_at, updated_at) VALUES ('doc', 't', 'plan', 'Plan', x'00', 1, 'x', 'x')`,
      )
      .run();
    version(a.db, 1, 'v1');
    b.pull(a);
    // Apart: each adds version 2, and b a version 3 on top of its own (stored as a change to its version 2).
    const current = (db: Database, number: number) => db.prepare(`UPDATE documents SET current_version = ? WHERE document_id = 'doc'`).run(number);
    version(a.db, 2, 'a2');
    current(a.db, 2);
    version(b.db, 2, 'b2');
    current(b.db, 2);
    version(b.db, 3, 'b3');
    current(b.db, 3);
    a.pull(b);
    b.pull(a);
    // Each document points at the head of its own line, never at a version of the other.
    const head = (db: Database) => db.prepare(`SELECT current_version FROM documents WHERE document_id = 'doc'`).pluck().get();
    expect(head(a.db)).toBe(2);
    expect(head(b.db)).toBe(3);
    const versions = (db: Database) => db.prepare(`SELECT version_id FROM document_versions WHERE document_id = 'doc' ORDER BY version_number`).pluck().all();
    expect(versions(a.db)).toEqual(['v1', 'a2']);
    expect(versions(b.db)).toEqual(['v1', 'b2', 'b3']);
    // Nothing is lost: the other line waits in the log, for the merge.
    expect(
      a
        .ops()
        .filter((op) => op.tbl === 'document_versions')
        .map((op) => JSON.parse(op.row!).version_id),
    ).toEqual(expect.arrayContaining(['b2', 'b3']));
  });

  it('are forgotten after a while, each device’s newest kept; a device that lacks forgotten ones is told so', () => {
    const a = device('dev_a');
    for (const domain of ['p1.test', 'p2.test', 'p3.test']) a.setPeer(domain, 'http://p');
    a.db.prepare(`UPDATE device_ops SET at = '2020-01-01T00:00:00.000Z'`).run();
    expect(pruneOps(a.db, '2026-01-01T00:00:00.000Z')).toBe(2);
    expect(a.ops().map((op) => op.seq)).toEqual([3]);
    expect(prunedPast(a.db, {})).toBe('dev_a');
    expect(prunedPast(a.db, { dev_a: 1 })).toBe('dev_a');
    expect(prunedPast(a.db, { dev_a: 2 })).toBeNull();
  });

  it('stop being captured once the node has no other device', () => {
    const a = device('dev_a');
    removeCapture(a.db);
    a.setPeer('w.test', 'http://w');
    expect(a.ops()).toEqual([]);
  });
});
