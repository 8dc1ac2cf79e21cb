/**
 * SQL lives in store modules only (the data layer): a file named `store.ts` or
 * `*-store.ts`, or one inside a `store/` folder. Routes and services call typed store functions;
 * so a reader finds every query on a table in one place, and no SQL hides in orchestration code.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const STORE = /(^|\/)store(\/|\.ts$)|-store\.ts$/;
// A statement handed to SQLite, or SQL written as a template the node runs.
const SQL =
  /\b(?:db|database)\s*\.\s*(?:prepare|exec)\s*\(|`\s*(?:SELECT\s|INSERT\s|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|WITH\s|CREATE\s|ALTER\s|DROP\s|PRAGMA\s)/;

function sourceFiles(): string[] {
  return (
    execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'server'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      // Tracked files deleted in the working tree are gone already.
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && existsSync(`${root}${file}`))
  );
}

describe('the data layer', () => {
  it('keeps every SQL statement of the node in a store module', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(200);
    const offending = files
      .filter((file) => !STORE.test(file))
      .flatMap((file) =>
        readFileSync(`${root}${file}`, 'utf8')
          .split('\n')
          .flatMap((line, index) => (SQL.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(offending).toEqual([]);
  });

  it('would notice a query in a service', () => {
    expect(SQL.test('const row = db.prepare(`SELECT * FROM agents WHERE agent_id = ?`).get(id);')).toBe(true);
    expect(SQL.test('    `SELECT status FROM agents WHERE agent_id = ?`,')).toBe(true);
    expect(SQL.test('const match = /^Bearer (\\S+)$/.exec(header);')).toBe(false);
    expect(SQL.test(' * `DELETE /v1/events/subscriptions/{subscription_id}`')).toBe(false);
  });
});
