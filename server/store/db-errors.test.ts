import SQLite from 'better-sqlite3-multiple-ciphers';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { conflictOnConstraint, isConstraintError } from './db-errors.ts';

describe('conflictOnConstraint', () => {
  const db = new SQLite(':memory:');
  db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER CHECK (n > 0))`);
  const insert = (id: string, n = 1) => db.prepare(`INSERT INTO t (id, n) VALUES (?, ?)`).run(id, n);

  it('passes a successful write through', () => {
    expect(conflictOnConstraint('SVC_ERR_MESSAGE_ID_TAKEN', 'dup', () => insert('a')).changes).toBe(1);
  });

  it('turns a unique or check violation into a 409 with the given code and detail', () => {
    for (const write of [() => insert('a'), () => insert('b', 0)]) {
      let caught: unknown;
      try {
        conflictOnConstraint('SVC_ERR_MESSAGE_ID_TAKEN', 'message_id already exists', write);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ServiceError);
      expect(caught).toMatchObject({ statusCode: 409, code: 'SVC_ERR_MESSAGE_ID_TAKEN', detail: 'message_id already exists' });
    }
  });

  it('lets every other error through', () => {
    expect(() => conflictOnConstraint('SVC_ERR_MESSAGE_ID_TAKEN', 'dup', () => db.prepare(`INSERT INTO missing VALUES (1)`).run())).toThrow(/no such table/);
    expect(isConstraintError(new Error('x'))).toBe(false);
    expect(isConstraintError(null)).toBe(false);
  });
});
